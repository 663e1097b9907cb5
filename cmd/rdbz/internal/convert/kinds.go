package convert

import (
	"maps"
	"slices"

	"github.com/rdbz/rdbz/rdbio"
)

// recordKinds name the records other than keys that a target may not hold,
// as --drop takes them, and what dropping them loses.
var recordKinds = map[rdbio.Kind]struct{ kind, lost string }{
	rdbio.KindFunction:   {"function", "function libraries (load them again with FUNCTION LOAD)"},
	rdbio.KindSlotInfo:   {"slot-info", "cluster slot sizes (a hint; the target recomputes them)"},
	rdbio.KindKeyMeta:    {"key-meta", "key metadata"},
	rdbio.KindSlotImport: {"slot-import", "slot import state"},
	rdbio.KindModuleAux:  {"module", "module aux data"},
	rdbio.KindVendor:     {"vendor", "vendor records (Dragonfly, Redis Enterprise)"},
}

// hintOnly are the records whose loss loses no data (a hint the target
// recomputes as it loads): dropped, and reported, without --drop.
var hintOnly = map[string]bool{"slot-info": true}

// valueKinds name, by type name, the values a target may not read: the
// conversion they need (where reencode.go has none yet) and what dropping
// them loses beyond the keys.
var valueKinds = map[string]string{
	"hash-listpack":           "listpack → ziplist hash (type 13)",
	"zset-listpack":           "listpack → ziplist sorted set (type 12)",
	"list-quicklist2":         "quicklist 2 → quicklist of ziplists (type 14)",
	"set-listpack":            "listpack → intset (type 11) or plain set (type 2)",
	"stream2":                 "stream → an older stream type (its newer metadata lost)",
	"stream3":                 "stream → an older stream type (its newer metadata lost)",
	"stream4":                 "stream → an older stream type (its newer metadata lost)",
	"stream5":                 "stream → an older stream type (its newer metadata lost)",
	"hash-metadata-pre-ga":    "hash with field expiry → plain hash (per-field TTLs lost)",
	"hash-listpack-ex-pre-ga": "hash with field expiry → plain hash (per-field TTLs lost)",
	"hash-metadata":           "hash with field expiry → plain hash (per-field TTLs lost)",
	"hash-listpack-ex":        "hash with field expiry → plain hash (per-field TTLs lost)",
	"hash2":                   "Valkey HASH_2 → plain hash (per-field TTLs lost)",
	"path-hash":               "Valkey path hash → plain hash",
	"list":                    "linked list → quicklist 2 (type 18)",
	"list-ziplist":            "ziplist list → quicklist (type 14)",
	"hash-zipmap":             "zipmap → listpack hash (type 16) or ziplist hash (type 13)",
	"module":                  "no conversion: the module must be loaded on the target",
	"module-pre-ga":           "no conversion: pre-GA module values",
	"array":                   "no conversion known",
	"json":                    "no conversion: Dragonfly JSON (RedisJSON module on Redis)",
	"hash-with-expiry":        "Dragonfly hash with field expiry → plain hash (per-field TTLs lost)",
	"set-with-expiry":         "Dragonfly set with member expiry → plain set (per-member TTLs lost)",
	"sbf":                     "no conversion: Dragonfly Bloom filter",
	"sbf2":                    "no conversion: Dragonfly Bloom filter",
	"cms":                     "no conversion: Dragonfly count-min sketch",
	"topk":                    "no conversion: Dragonfly top-k",
	"cuckoo":                  "no conversion: Dragonfly cuckoo filter",
}

// Kinds are the names Options.Drop takes, sorted.
func Kinds() []string {
	names := slices.Collect(maps.Keys(valueKinds))
	for _, k := range recordKinds {
		if !slices.Contains(names, k.kind) {
			names = append(names, k.kind)
		}
	}
	slices.Sort(names)
	return names
}

// needed is the conversion a value of type name needs.
func needed(name string) string {
	if s, ok := valueKinds[name]; ok {
		return s
	}
	return "no conversion known"
}
