package analyze

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/rdbz/rdbz/cmd/rdbz/internal/servers"
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
	// (stream metadata, field TTLs); "" for nothing. The Fix then names
	// with --drop the kinds that lose it (FixDrops): convert refuses a
	// loss it was not told to accept.
	FixLoses string   `json:"fix_loses,omitempty"`
	FixDrops []string `json:"fix_drops,omitempty"`
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
	kind        string // the --drop kind that accepts loses
	// skipped: data the server skips while loading (not Fatal), which
	// rdbz convert refuses unless --drop names it.
	skipped bool
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

// judge turns what was collected into a verdict per server.
func (c *compatCollector) judge(h rdbio.Header, s *Summary) []Compat {
	all := servers.All()
	out := make([]Compat, 0, len(all))
	c.integ.finish()
	for _, srv := range all {
		v := Compat{Server: srv.Name(), Causes: []Cause{}}
		fileCause := func(msg string) {
			v.Causes = append(v.Causes, Cause{Cause: msg, Fatal: true, Offset: -1})
		}
		if msg := srv.VersionCause(h); msg != "" {
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
			if !srv.ReadsType(u.vt) {
				cs := u.cause(fmt.Sprintf("value type %d (%s)", u.vt.Byte(), name), true)
				cs.convertible, cs.loses = srv.Reencodes(u.vt)
				cs.kind = name
				v.Causes = append(v.Causes, cs)
			}
		}
		for _, name := range slices.Sorted(maps.Keys(c.modules)) {
			if msg, fatal := srv.ModuleCause(name); msg != "" {
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
			if msg, fatal := srv.OpCause(byte(op), h.Valkey); msg != "" {
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
			if cs.loses != "" && cs.kind != "" && !slices.Contains(v.FixDrops, cs.kind) {
				v.FixDrops = append(v.FixDrops, cs.kind)
			}
		}
		if !v.Loads && fixable {
			v.Fix = "rdbz convert --target " + srv.Name()
			for _, k := range v.FixDrops {
				v.Fix += " --drop " + k
			}
			v.FixLoses = strings.Join(loses, "; ")
		} else {
			v.FixDrops = nil
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
