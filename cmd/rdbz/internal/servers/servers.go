// Package servers is the table of the servers rdbz knows the RDB loaders
// of (redis 6.2 to 8.6, valkey 8 and 9, Dragonfly): which magic, RDB
// versions, value types and opcodes each reads, and which values rdbz
// convert can rewrite for it. rdbio/analyze judges a file by it and
// rdbio/convert rewrites a file by it: one table decides both what analyze
// says a server refuses and what convert rewrites.
package servers

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rdbz/rdbz/rdbio"
)

type serverKind uint8

const (
	kindRedis serverKind = iota
	kindValkey
	kindDragonfly
)

// Server is what one server's RDB loader accepts (docs/rdb-format.md;
// Dragonfly's src/server/rdb_load.cc).
type Server struct {
	name      string
	kind      serverKind
	maxRedis  int // highest REDIS-magic version read
	minRedis  int
	valkeyMax int // highest VALKEY-magic version read; 0 = refuses the VALKEY magic
	maxType   int // highest Redis type id known
}

// all are the servers of the table, oldest first.
var all = []Server{
	{name: "redis-6.2", kind: kindRedis, maxRedis: 9, minRedis: 1, maxType: rdbio.TypeStreamListpacks},
	{name: "redis-7.0", kind: kindRedis, maxRedis: 10, minRedis: 1, maxType: rdbio.TypeStream2},
	{name: "redis-7.2", kind: kindRedis, maxRedis: 11, minRedis: 1, maxType: rdbio.TypeStream3},
	{name: "redis-7.4", kind: kindRedis, maxRedis: 12, minRedis: 1, maxType: rdbio.TypeHashListpackEx},
	{name: "redis-8.0..8.4", kind: kindRedis, maxRedis: 12, minRedis: 1, maxType: rdbio.TypeHashListpackEx},
	{name: "redis-8.6", kind: kindRedis, maxRedis: 13, minRedis: 1, maxType: rdbio.TypeStream4},
	{name: "valkey-8", kind: kindValkey, maxRedis: 11, minRedis: 1, maxType: rdbio.TypeStream3},
	{name: "valkey-9", kind: kindValkey, maxRedis: 11, minRedis: 1, valkeyMax: 80, maxType: rdbio.TypeStream3},
	{name: "dragonfly", kind: kindDragonfly, maxRedis: 12, minRedis: 5, maxType: rdbio.TypeStream3},
}

// dragonflyRedisTypes are the Redis type ids Dragonfly's loader reads
// (rdb_load.cc ReadObj): not 1 (linked list), 6, 9 (zipmap), 10 (ziplist
// list) nor 22 and up.
var dragonflyRedisTypes = map[rdbio.Type]bool{0: true, 2: true, 3: true, 4: true, 5: true, 7: true, 11: true,
	12: true, 13: true, 14: true, 15: true, 16: true, 17: true, 18: true, 19: true, 20: true, 21: true}

// dragonflyUpgrades are the Redis types Dragonfly does not read that rdbz
// convert rewrites as newer ones it reads, without losing data (within
// --cap: rdbio/convert upgrade.go): a linked list (1) as a quicklist 2, a
// zipmap (9) as a listpack hash, a ziplist list (10) as a quicklist.
var dragonflyUpgrades = map[rdbio.Type]bool{rdbio.TypeList: true, rdbio.TypeHashZipmap: true, rdbio.TypeListZiplist: true}

// ReadsType reports whether s reads a value of type t.
func (s Server) ReadsType(t rdbio.Type) bool {
	switch {
	case t.Dragonfly():
		return s.kind == kindDragonfly
	case t == rdbio.TypeHash2:
		return s.kind == kindValkey && s.valkeyMax >= 80
	case t == rdbio.TypePathHash || t == rdbio.TypeModulePreGA:
		return false
	case s.kind == kindDragonfly:
		return dragonflyRedisTypes[t]
	}
	return int(t) <= s.maxType
}

// Reencodes reports whether rdbz convert rewrites a value of type t (named
// name), which s does not read, as one of a type s reads
// (rdbio/convert's re-encodings, docs/convert.md): element by element, or
// losing what s has no place for, which loses names (stream metadata,
// field TTLs).
func (s Server) Reencodes(t rdbio.Type) (ok bool, loses string) {
	reads := func(types ...rdbio.Type) bool {
		for _, t := range types {
			if !s.ReadsType(t) {
				return false
			}
		}
		return true
	}
	switch {
	case rdbio.IsStream(t):
		for _, older := range slices.Backward(rdbio.StreamTypes) {
			if older < t && reads(older) {
				return true, StreamFieldsLost(t, older)
			}
		}
		return false, ""
	case rdbio.HasFieldExpiry(t) && s.kind == kindDragonfly:
		return true, "the milliseconds of field TTLs"
	case t == rdbio.TypeDflySetExpiry:
		return reads(rdbio.TypeSet), "per-member TTLs"
	case rdbio.HasFieldExpiry(t) && reads(rdbio.TypeHashMetadata):
		return true, ""
	case rdbio.HasFieldExpiry(t):
		return reads(rdbio.TypeHash), "per-field TTLs"
	}
	if s.kind == kindDragonfly && dragonflyUpgrades[t] {
		return true, ""
	}
	switch t {
	case rdbio.TypeHashListpack:
		return reads(rdbio.TypeHashZiplist), ""
	case rdbio.TypeZsetListpack:
		return reads(rdbio.TypeZsetZiplist), ""
	case rdbio.TypeListQuicklist2:
		return reads(rdbio.TypeListQuicklist), ""
	case rdbio.TypeSetListpack:
		return reads(rdbio.TypeSetIntset, rdbio.TypeSet), ""
	}
	return false, ""
}

// VersionCause is why s refuses the file's magic, or "".
func (s Server) VersionCause(h rdbio.Header) string {
	if h.Valkey {
		if h.Version <= s.valkeyMax {
			return ""
		}
		if s.valkeyMax == 0 {
			return fmt.Sprintf("magic %s: %s reads only the REDIS magic", h.Magic, s.name)
		}
		return fmt.Sprintf("magic %s: %s reads VALKEY up to version %d", h.Magic, s.name, s.valkeyMax)
	}
	if h.Version < s.minRedis || h.Version > s.maxRedis {
		return fmt.Sprintf("RDB version %d (%s): %s reads versions %d to %d", h.Version, h.Magic, s.name, s.minRedis, s.maxRedis)
	}
	return ""
}

// OpCause says whether s reads opcode op in a file with the VALKEY magic
// (valkeyFile) or not: "" when it does, else the cause and whether it
// stops the load.
func (s Server) OpCause(op byte, valkeyFile bool) (string, bool) {
	isRedis := s.kind == kindRedis
	switch {
	case op == rdbio.OpFunction2:
		if (isRedis && s.maxRedis >= 10) || s.kind == kindValkey {
			return "", false
		}
		return "function libraries (opcode 245)", true
	case op == rdbio.OpFunctionPre:
		if s.name == "redis-7.0" {
			return "", false
		}
		return "pre-release function library (opcode 246, Redis 7.0-rc)", true
	case op == rdbio.OpModuleAux:
		if s.kind == kindDragonfly {
			return "module aux data (opcode 247) is skipped", false
		}
		return "module aux data (opcode 247) needs its module loaded", true
	case op == rdbio.OpExpireSec:
		if s.kind == kindDragonfly {
			return "second-resolution expiry (opcode 253)", true
		}
		return "", false
	case op == rdbio.OpSlotInfo:
		// Redis 7.4 (RDB 12) added it; valkey 8 forked before and
		// aborts on it ("Short read", checked on a converted file).
		if (isRedis && s.maxRedis < 12) || s.kind == kindValkey {
			return "slot info (opcode 244)", true
		}
		return "", false
	case op == 243 && valkeyFile:
		if s.kind == kindValkey && s.valkeyMax >= 80 {
			return "", false
		}
		return "slot import state (opcode 243, Valkey 9)", true
	case op == 243:
		if isRedis && s.maxRedis >= 13 {
			return "", false
		}
		return "key metadata (opcode 243, Redis 8.6)", true
	case op >= 200 && op <= 224:
		if s.kind == kindDragonfly {
			return "", false
		}
		return fmt.Sprintf("Dragonfly opcode %d (%s)", op, rdbio.OpName(op)), true
	}
	return fmt.Sprintf("opcode %d (%s)", op, rdbio.OpName(op)), true
}

// ModuleCause says what s does with the values of a module type: "" when
// it loads them, else the cause and whether it stops the load.
func (s Server) ModuleCause(name string) (string, bool) {
	if s.kind == kindDragonfly {
		if name == "ReJSON-RL" {
			return "", false
		}
		return fmt.Sprintf("module type %s: keys skipped (Dragonfly reads only ReJSON-RL)", name), false
	}
	return fmt.Sprintf("module type %s needs its module loaded", name), true
}

// aliases are the names Lookup accepts besides the servers'.
var aliases = map[string]string{"redis-8.0": "redis-8.0..8.4"}

// All returns the servers of the table, oldest first.
func All() []Server { return slices.Clone(all) }

// Lookup finds a server by its name in the table (redis-8.0 is
// redis-8.0..8.4).
func Lookup(name string) (Server, bool) {
	if alias, ok := aliases[name]; ok {
		name = alias
	}
	i := slices.IndexFunc(all, func(s Server) bool { return s.name == name })
	if i < 0 {
		return Server{}, false
	}
	return all[i], true
}

// Names are the names Lookup accepts, oldest server first.
func Names() []string {
	names := make([]string, 0, len(all)+len(aliases))
	for _, s := range all {
		names = append(names, s.name)
		for alias, name := range aliases {
			if name == s.name {
				names = append(names, alias)
			}
		}
	}
	return names
}

// Name is the server's name in the table.
func (s Server) Name() string { return s.name }

// Versions is the range of REDIS-magic RDB versions the server reads.
func (s Server) Versions() (lowest, highest int) { return s.minRedis, s.maxRedis }

// ValkeyMagic is the highest VALKEY-magic version the server reads; 0 when
// it reads only the REDIS magic.
func (s Server) ValkeyMagic() int { return s.valkeyMax }

// Dragonfly reports whether the server is Dragonfly.
func (s Server) Dragonfly() bool { return s.kind == kindDragonfly }

// ReadsEnvelope reports whether some release of s loads a file in a VKCS
// envelope (docs/rdb-format.md §8): valkey 9 from 9.2 on; no Redis nor
// Dragonfly.
func (s Server) ReadsEnvelope() bool { return s.kind == kindValkey && s.valkeyMax >= 80 }

// StreamFieldsLost says what a stream of type from loses when it is copied
// as one of the older stream type to (rdbio's Value.CopyStreamAs), or ""
// for nothing: the fields each newer stream type added.
func StreamFieldsLost(from, to rdbio.Type) string {
	v, w := slices.Index(rdbio.StreamTypes, from), slices.Index(rdbio.StreamTypes, to)
	var parts []string
	lost := func(since rdbio.Type, what string) {
		if s := slices.Index(rdbio.StreamTypes, since); w < s && v >= s {
			parts = append(parts, what)
		}
	}
	lost(rdbio.TypeStream2, "first-id, max-deleted-entry-id and entries-added; groups' entries-read")
	lost(rdbio.TypeStream3, "consumers' active-time")
	lost(rdbio.TypeStream4, "idempotent-producer (IDMP) state")
	lost(rdbio.TypeStream5, "nacked IDs")
	return strings.Join(parts, "; ")
}
