package analyze

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/rdbz/rdbz/rdbio"
)

// Compat says whether one server loads the file as it is.
type Compat struct {
	Server string `json:"server"`
	Loads  bool   `json:"loads"`
	// Causes lists why it refuses the file (Fatal) and what it drops while
	// loading it anyway (not Fatal); empty when it loads everything.
	Causes []Cause `json:"causes"`
	// Fix is the command that makes the file load on the server ("rdbz
	// convert --target NAME") without dropping keys or records, when it
	// does not load,
	// every fatal cause is one rdbz convert rewrites and the server would
	// skip no module data while loading (convert refuses to lose it unless
	// --drop names it); "" otherwise.
	Fix string `json:"fix,omitempty"`
	// FixLoses says what the Fix loses that the server has no place for
	// (stream metadata, field TTLs); "" for nothing.
	FixLoses string `json:"fix_loses,omitempty"`
}

// Cause is one reason a server refuses a file or drops part of it.
type Cause struct {
	Cause string `json:"cause"`
	Fatal bool   `json:"fatal"`
	// Keys counts the keys (for opcodes: the records) concerned; 0 for a
	// cause about the whole file.
	Keys int64 `json:"keys"`
	// FirstKey names the first key concerned, when there is one (Go-quoted
	// when FirstKeyQuoted: the key is not valid UTF-8).
	FirstKey       *string `json:"first_key,omitempty"`
	FirstKeyQuoted bool    `json:"first_key_quoted,omitempty"`
	// Offset is the byte offset of the first record concerned (-1 for a
	// cause about the whole file).
	Offset int64 `json:"offset"`
	// convertible: rdbz convert rewrites it, losing only loses ("" for
	// nothing).
	convertible bool
	loses       string
	// skipped: data the server skips while loading (not Fatal), which
	// rdbz convert refuses unless --drop names it.
	skipped bool
}

type serverKind uint8

const (
	kindRedis serverKind = iota
	kindValkey
	kindDragonfly
)

// server is what a server's RDB loader accepts (rdb-format.md §1, §3, §4,
// §6; Dragonfly's rdb_load.cc).
type server struct {
	name      string
	kind      serverKind
	maxRedis  int // highest REDIS-magic version read
	minRedis  int
	valkeyMax int // highest VALKEY-magic version read; 0 = refuses the VALKEY magic
	maxType   int // highest Redis type id known
}

// Servers are the load targets Analyze judges, oldest first.
var servers = []server{
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

// use counts the records of one kind and remembers the first.
type use struct {
	n    int64
	key  []byte
	hasK bool
	off  int64
	typ  byte       // an opcode's
	vt   rdbio.Type // a value type's
}

// add counts one record; isKey says key names it (an empty key is a key).
func (u *use) add(key []byte, isKey bool, off int64) {
	if u.n == 0 {
		u.off = off
		if isKey {
			u.key, u.hasK = append([]byte{}, key...), true
		}
	}
	u.n++
}

// compatCollector gathers, during the walk, what decides compatibility.
type compatCollector struct {
	types   map[string]*use // by type name as the producer means it
	modules map[string]*use // module values by module name
	ops     map[byte]*use   // opcodes other than the universal ones
	zstd    use             // keys holding rdbz 0xC4 nodes
	integ   *integrity      // duplicate keys and damaged blobs
}

// newCompatCollector starts collecting; now is the time at which keys
// whose TTL is past are dropped while loading.
func newCompatCollector(now time.Time) *compatCollector {
	return &compatCollector{types: map[string]*use{}, modules: map[string]*use{}, ops: map[byte]*use{},
		integ: newIntegrity(now.UnixMilli(), rdbio.DefaultCap)}
}

// typeUse is the counter of the values of type t named name.
func (c *compatCollector) typeUse(t rdbio.Type, name string) *use {
	u := c.types[name]
	if u == nil {
		u = &use{vt: t}
		c.types[name] = u
	}
	return u
}

func (c *compatCollector) module(name string, key []byte, off int64) {
	u := c.modules[name]
	if u == nil {
		u = &use{}
		c.modules[name] = u
	}
	u.add(key, true, off)
}

func (c *compatCollector) op(op byte, off int64) {
	switch op {
	case rdbio.OpAux, rdbio.OpSelectDB, rdbio.OpResizeDB, rdbio.OpExpireMs, rdbio.OpIdle, rdbio.OpFreq, rdbio.OpEOF:
		return // every server reads these
	}
	u := c.ops[op]
	if u == nil {
		u = &use{typ: op}
		c.ops[op] = u
	}
	u.add(nil, false, off)
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

// typeOK reports whether s reads a value of type t.
func (s server) typeOK(t rdbio.Type) bool {
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

// reencodes reports whether rdbz convert rewrites a value of type t (named
// name), which s does not read, as one of a type s reads
// (rdbio/convert's re-encodings, docs/convert.md): element by element, or
// losing what s has no place for, which loses names (stream metadata,
// field TTLs).
func (s server) reencodes(t rdbio.Type) (ok bool, loses string) {
	reads := func(types ...rdbio.Type) bool {
		for _, t := range types {
			if !s.typeOK(t) {
				return false
			}
		}
		return true
	}
	switch {
	case rdbio.IsStream(t):
		for _, older := range slices.Backward(rdbio.StreamTypes) {
			if older < t && reads(older) {
				return true, rdbio.StreamFieldsLost(t, older)
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

// versionCause is why s refuses the magic, or "".
func (s server) versionCause(h rdbio.Header) string {
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

// opCause says whether s reads opcode op in this file: "" when it does,
// else the cause and whether it stops the load.
func (s server) opCause(op byte, valkeyFile bool) (string, bool) {
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

// moduleCause says what s does with the values of a module type.
func (s server) moduleCause(name string) (string, bool) {
	if s.kind == kindDragonfly {
		if name == "ReJSON-RL" {
			return "", false
		}
		return fmt.Sprintf("module type %s: keys skipped (Dragonfly reads only ReJSON-RL)", name), false
	}
	return fmt.Sprintf("module type %s needs its module loaded", name), true
}

// judge turns what was collected into a verdict per server.
func (c *compatCollector) judge(h rdbio.Header, s *Summary) []Compat {
	out := make([]Compat, 0, len(servers))
	c.integ.finish()
	for _, srv := range servers {
		v := Compat{Server: srv.name, Causes: []Cause{}}
		fileCause := func(msg string) {
			v.Causes = append(v.Causes, Cause{Cause: msg, Fatal: true, Offset: -1})
		}
		if msg := srv.versionCause(h); msg != "" {
			fileCause(msg)
			v.Causes[len(v.Causes)-1].convertible = true
		}
		if s.Checksum == rdbio.ChecksumMismatch {
			fileCause("CRC64 checksum mismatch")
		}
		if s.Unwalked != nil {
			v.Causes = append(v.Causes, Cause{Cause: "record rdbz cannot walk: " + s.Unwalked.Reason,
				Fatal: true, Offset: s.Unwalked.Offset})
		}
		for _, name := range slices.Sorted(maps.Keys(c.types)) {
			u := c.types[name]
			if !srv.typeOK(u.vt) {
				cs := u.cause(fmt.Sprintf("value type %d (%s)", u.vt.Byte(), name), true)
				cs.convertible, cs.loses = srv.reencodes(u.vt)
				v.Causes = append(v.Causes, cs)
			}
		}
		for _, name := range slices.Sorted(maps.Keys(c.modules)) {
			if msg, fatal := srv.moduleCause(name); msg != "" {
				cs := c.modules[name].cause(msg, fatal)
				cs.skipped = !fatal
				v.Causes = append(v.Causes, cs)
			}
		}
		ops := make([]int, 0, len(c.ops))
		for op := range c.ops {
			ops = append(ops, int(op))
		}
		sort.Ints(ops)
		for _, op := range ops {
			if msg, fatal := srv.opCause(byte(op), h.Valkey); msg != "" {
				cs := c.ops[byte(op)].cause(msg, fatal)
				cs.convertible = op == rdbio.OpExpireSec // written in ms
				cs.skipped = !fatal
				v.Causes = append(v.Causes, cs)
			}
		}
		v.Causes = append(v.Causes, c.integ.causes(srv)...)
		if c.zstd.n > 0 {
			cs := c.zstd.cause("rdbz-compressed list nodes (0xC4): run rdbz decompress first", true)
			cs.convertible = true
			v.Causes = append(v.Causes, cs)
		}
		v.Loads = true
		fixable := true
		var loses []string
		for _, cs := range v.Causes {
			v.Loads = v.Loads && !cs.Fatal
			fixable = fixable && (!cs.Fatal || cs.convertible) && !cs.skipped
			if cs.loses != "" && !slices.Contains(loses, cs.loses) {
				loses = append(loses, cs.loses)
			}
		}
		if !v.Loads && fixable {
			v.Fix = "rdbz convert --target " + srv.name
			v.FixLoses = strings.Join(loses, "; ")
		}
		out = append(out, v)
	}
	return out
}

func (u *use) cause(msg string, fatal bool) Cause {
	cs := Cause{Cause: msg, Fatal: fatal, Keys: u.n, Offset: u.off}
	if u.hasK {
		k, q := keyString(u.key)
		cs.FirstKey, cs.FirstKeyQuoted = &k, q
	}
	return cs
}
