package convert

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strconv"
	"time"
	"unsafe"

	"github.com/rdbz/rdbz/cmd/rdbz/internal/servers"
	"github.com/rdbz/rdbz/rdbio"
)

// olderStream is the newest stream type older than t that the target
// reads; ok is false when it reads none.
func (c *converter) olderStream(t rdbio.Type) (to rdbio.Type, ok bool) {
	for _, s := range rdbio.StreamTypes {
		if s >= t {
			break
		}
		if c.target.ReadsType(s) {
			to, ok = s, true
		}
	}
	return to, ok
}

// streamAs writes a stream as the older stream type to, streaming: the
// type byte is replaced, the fields to lacks are left out
// (rdbio.Value.CopyStreamAs).
func (c *converter) streamAs(rec *rdbio.Record, name string, to rdbio.Type) error {
	if lost := servers.StreamFieldsLost(rec.Type, to); lost != "" && !c.opt.Drop[name] {
		// A lossy re-encoding is refused as a value the target cannot
		// hold is: --drop accepts the loss (the key is kept).
		return c.drop(name, rec.Key, true, rec.Offset, fmt.Sprintf("as %v (type %d) it loses %s", to, to.Byte(), lost), lost, false)
	}
	c.g.cutOut(rec.Offset, rec.Offset+1, []byte{to.Byte()})
	c.prefix = -1
	c.rep.Keys++
	c.rep.add(name, Reencoded, rec.Key, true, rec.Offset,
		fmt.Sprintf("as %v (type %d)", to, to.Byte()), servers.StreamFieldsLost(rec.Type, to))
	if err := c.r.Value().CopyStreamAs(rewritten{c.g}, to); err != nil {
		return err
	}
	return c.g.skipTo(c.r.Offset())
}

// expiringType is the type expiringAs writes a value of type from as for
// the target: the first it reads of Dragonfly's hash (or set) with expiry,
// redis's hash with field expiry (type 24), a plain hash (or set).
func (c *converter) expiringType(from rdbio.Type) (rdbio.Type, bool) {
	types := []rdbio.Type{rdbio.TypeDflyHashExpiry, rdbio.TypeHashMetadata, rdbio.TypeHash}
	if from == rdbio.TypeDflySetExpiry {
		types = []rdbio.Type{rdbio.TypeDflySetExpiry, rdbio.TypeSet}
	}
	for _, t := range types {
		if c.target.ReadsType(t) {
			return t, true
		}
	}
	return 0, false
}

// expiringAs writes a hash with field expiry, or Dragonfly's set with
// member expiry, as the type to (expiringType): Dragonfly's 31 or 32
// (TTLs in seconds), a redis hash with field expiry (type 24, keeping the
// TTLs; a plain hash when one is past redis's limit), or a plain hash (4)
// or set (2), which has no place for them. Fields whose expiry has passed
// are left out, as the server that saved the file leaves them out when it
// loads it (so a key all of whose fields had expired is left out whole).
// The value is built within the cap: its count (and least expiry) come
// before the fields.
func (c *converter) expiringAs(rec *rdbio.Record, name string, to rdbio.Type) error {
	now := c.opt.now().UnixMilli()
	var fields []expiring
	var arena []byte
	var expired int64
	limit := c.cap + gateSlack
	err := c.r.Value().ExpiringFields(func(field, value []byte, exp int64) error {
		if exp != 0 && exp <= now {
			expired++
			return nil
		}
		// Each field held costs its bytes and its entry: a hash of
		// millions of empty fields is bounded too.
		if len(arena)+len(field)+len(value)+(len(fields)+1)*expiringSize > limit {
			return fmt.Errorf("%s as %s would hold over %d bytes (raise --cap), not re-encoded: %w", name, to, limit, rdbio.ErrTooLarge)
		}
		arena = append(arena, field...)
		arena = append(arena, value...)
		fields = append(fields, expiring{f: len(field), v: len(value), exp: exp})
		return nil
	})
	if err != nil {
		return err // an *rdbio.Error: it names the offset and the key
	}
	from := rec.Offset
	if c.prefix >= 0 {
		from = c.prefix
	}
	c.prefix = -1
	if len(fields) == 0 {
		c.rep.add(name, Expired, rec.Key, true, rec.Offset,
			fmt.Sprintf("all %d fields had expired: the server that saved it drops it when loading", expired), "")
		c.g.cutOut(from, c.r.Offset(), nil)
		return c.g.skipTo(c.r.Offset())
	}
	if to == rdbio.TypeHashMetadata && slices.ContainsFunc(fields, func(f expiring) bool { return f.exp > maxFieldExpiry }) {
		to = rdbio.TypeHash // redis refuses a file with a field expiry past its limit
	}
	lost := ""
	switch to {
	case rdbio.TypeHash, rdbio.TypeSet:
		lost = "per-field TTLs (the fields stay, without expiry; fields already expired are left out)"
	case rdbio.TypeDflyHashExpiry, rdbio.TypeDflySetExpiry:
		lost = "the milliseconds of per-field TTLs (Dragonfly keeps seconds: rounded up)"
	}
	if lost != "" && !c.opt.Drop[name] {
		// A lossy re-encoding is refused as a value the target cannot
		// hold is: --drop accepts the loss (the key is kept).
		c.prefix = from
		return c.drop(name, rec.Key, true, rec.Offset, fmt.Sprintf("as %v (type %d) it loses %s", to, to.Byte(), lost), lost, true)
	}
	out := appendRaw([]byte{to.Byte()}, rec.Key) // the type and the key, then the value
	out = appendExpiring(out, to, fields, arena)
	c.rep.Keys++
	c.rep.add(name, Reencoded, rec.Key, true, rec.Offset, fmt.Sprintf("as %v (type %d)", to, to.Byte()), lost)
	c.g.cutOut(rec.Offset, c.r.Offset(), out)
	return c.g.skipTo(c.r.Offset())
}

// expiring is a field held by expiringAs: the lengths of its name and
// value in the arena, and its expiry (Unix ms, 0 none).
type expiring struct {
	f, v int
	exp  int64
}

// maxFieldExpiry is the latest field expiry redis keeps (Unix ms,
// EB_EXPIRE_TIME_MAX: 2^48 - 1); a Valkey or Dragonfly file may hold later
// ones, which become no expiry (a plain hash).
const maxFieldExpiry = 1<<48 - 1

// expiringSize is what an expiring costs in memory.
const expiringSize = int(unsafe.Sizeof(expiring{}))

// appendExpiring appends the value of type to holding fields, whose bytes
// are in arena in turn (docs/rdb-format.md §4: types 2, 4 and 24; §6: 31, 32).
func appendExpiring(out []byte, to rdbio.Type, fields []expiring, arena []byte) []byte {
	var least int64
	if to == rdbio.TypeHashMetadata {
		for _, f := range fields {
			if f.exp != 0 && (least == 0 || f.exp < least) {
				least = f.exp
			}
		}
		out = binary.LittleEndian.AppendUint64(out, uint64(least))
	}
	out = rdbio.AppendLen(out, uint64(len(fields)))
	for _, f := range fields {
		if to == rdbio.TypeHashMetadata { // the TTL relative to the least: 0 none
			ttl := uint64(0)
			if f.exp != 0 {
				ttl = uint64(f.exp-least) + 1
			}
			out = rdbio.AppendLen(out, ttl)
		}
		out = appendRaw(out, arena[:f.f])
		if to != rdbio.TypeSet && to != rdbio.TypeDflySetExpiry {
			out = appendRaw(out, arena[f.f:f.f+f.v])
		}
		if to == rdbio.TypeDflyHashExpiry || to == rdbio.TypeDflySetExpiry {
			sec := int64(-1) // none
			if f.exp != 0 {
				sec = (f.exp + 999) / 1000
			}
			out = appendRaw(out, strconv.AppendInt(nil, sec, 10))
		}
		arena = arena[f.f+f.v:]
	}
	return out
}

// appendRaw appends s as an RDB string stored raw.
func appendRaw(b, s []byte) []byte {
	return append(rdbio.AppendStringHead(b, rdbio.EncRaw, 0, uint64(len(s)), 0), s...)
}

// now is the time against which field expiries are judged.
func (o Options) now() time.Time {
	if o.Now.IsZero() {
		return time.Now()
	}
	return o.Now
}
