package verify

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"hash"
	"io"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/hdt3213/rdb/model"
)

// digestObject writes the SHA-256 of o's decoded content in canonical form
// into sum (len 0, cap ≥ 32), with h (a SHA-256, reset here), and returns
// its type class and element count.
func digestObject(h hash.Hash, o model.RedisObject, sum []byte) (string, int64, error) {
	d := digester{h: h}
	return d.object(o, sum)
}

// object is digestObject with d's hash and buffer.
func (d *digester) object(o model.RedisObject, sum []byte) (string, int64, error) {
	d.reset()
	var class string
	var n int
	switch o := o.(type) {
	case *model.StringObject:
		class = model.StringType
		d.str(class)
		d.bytes(o.Value)
	case *model.ListObject:
		class, n = model.ListType, len(o.Values)
		d.str(class)
		for _, v := range o.Values {
			d.bytes(v)
		}
		d.num(uint64(n)) // after the elements: listDigest hashes them as it finds them
	case *model.SetObject:
		class, n = model.SetType, len(o.Members)
		d.set(append([][]byte(nil), o.Members...))
	case *model.HashObject:
		class, n = model.HashType, len(o.Hash)
		d.str(class)
		d.num(uint64(n))
		for _, f := range slices.Sorted(maps.Keys(o.Hash)) {
			d.str(f)
			d.bytes(o.Hash[f])
			ttl := o.FieldExpirations[f] // absolute ms; 0 (or absent): none
			d.num(uint64(max(ttl, 0)))
		}
	case *model.ZSetObject:
		class, n = model.ZSetType, len(o.Entries)
		d.str(class)
		d.num(uint64(n))
		es := append([]*model.ZSetEntry(nil), o.Entries...)
		slices.SortFunc(es, func(a, b *model.ZSetEntry) int {
			if c := strings.Compare(a.Member, b.Member); c != 0 {
				return c
			}
			return cmp.Compare(math.Float64bits(a.Score), math.Float64bits(b.Score))
		})
		for _, e := range es {
			d.str(e.Member)
			d.num(math.Float64bits(e.Score))
		}
	case *model.StreamObject:
		class, n = model.StreamType, int(o.Length)
		d.str(class)
		d.stream(o)
	default:
		return "", 0, fmt.Errorf("decoded as %T", o)
	}
	d.sum(sum)
	return class, int64(n), nil
}

// set writes the fields of a set with members m (sorted here, in place):
// its class, its count, its members in byte order. blobDigest's sets and
// hdt3213/rdb's decoded ones are digested by it alike.
func (d *digester) set(m [][]byte) {
	slices.SortFunc(m, bytes.Compare)
	d.str(model.SetType)
	d.num(uint64(len(m)))
	for _, v := range m {
		d.bytes(v)
	}
}

// digester writes length-prefixed fields into a hash, gathered in buf up
// to digestChunk bytes first: SHA-256 takes one write of many short
// fields faster than a write of each (set members and hash fields are
// mostly a few bytes: on app-cache-nocompress x4 the writes of each took
// 0.22 s of verify's 3 CPU-seconds).
type digester struct {
	h   hash.Hash
	buf []byte
}

// digestChunk is the most bytes a digester gathers before it hashes them.
const digestChunk = 64 << 10

// reset starts a new digest.
func (d *digester) reset() {
	d.h.Reset()
	d.buf = d.buf[:0]
}

// directMin is the shortest field a digester writes to the hash itself
// (after what it gathered), rather than copying it into buf.
const directMin = 4 << 10

// room makes room for n more bytes in buf; false when n bytes are better
// written to h directly (buf is then empty).
func (d *digester) room(n int) bool {
	if len(d.buf)+n > digestChunk || n >= directMin {
		d.h.Write(d.buf)
		d.buf = d.buf[:0]
	}
	return n < directMin
}

func (d *digester) num(v uint64) {
	d.room(8)
	d.buf = binary.LittleEndian.AppendUint64(d.buf, v)
}

func (d *digester) bytes(b []byte) {
	d.num(uint64(len(b)))
	if d.room(len(b)) {
		d.buf = append(d.buf, b...)
	} else {
		d.h.Write(b)
	}
}

func (d *digester) str(s string) {
	d.num(uint64(len(s)))
	if d.room(len(s)) {
		d.buf = append(d.buf, s...)
	} else {
		io.WriteString(d.h, s)
	}
}

// sum appends the digest of what was written since reset to dst.
func (d *digester) sum(dst []byte) []byte {
	d.h.Write(d.buf)
	d.buf = keepBuf(d.buf)
	return d.h.Sum(dst)
}

// id writes a stream ID; nil (absent in this stream version) is a marker.
func (d *digester) id(id *model.StreamId) {
	if id == nil {
		d.num(0)
		return
	}
	d.num(1)
	d.num(id.Ms)
	d.num(id.Sequence)
}

// stream digests what the model gives of a stream: length, IDs and
// counters, the live messages in order (fields sorted: the decoder keeps
// them in a map), and the consumer groups by name with their pending
// entries (ID, delivery time and count) and consumers (name, pending IDs).
// Not part of the digest: how messages are grouped into listpack nodes,
// deleted messages still stored in them, and the consumers' seen and active
// times, which like LRU/LFU hints record access (two dumps of the same data
// taken apart differ in them; Redis's DEBUG DIGEST leaves them out too).
func (d *digester) stream(o *model.StreamObject) {
	d.num(o.Length)
	d.id(o.LastId)
	d.id(o.FirstId)
	d.id(o.MaxDeletedId)
	d.num(o.AddedEntriesCount)
	for _, e := range o.Entries {
		for _, m := range e.Msgs {
			if m.Deleted {
				continue
			}
			d.num(1)
			d.id(m.Id)
			d.num(uint64(len(m.Fields)))
			for _, f := range slices.Sorted(maps.Keys(m.Fields)) {
				d.str(f)
				d.str(m.Fields[f])
			}
		}
	}
	d.num(0) // end of messages
	gs := append([]*model.StreamGroup(nil), o.Groups...)
	sort.Slice(gs, func(i, j int) bool { return gs[i].Name < gs[j].Name })
	d.num(uint64(len(gs)))
	for _, g := range gs {
		d.str(g.Name)
		d.id(g.LastId)
		d.num(g.EntriesRead)
		pel := append([]*model.StreamNAck(nil), g.Pending...)
		sort.Slice(pel, func(i, j int) bool { return idLess(pel[i].Id, pel[j].Id) })
		d.num(uint64(len(pel)))
		for _, p := range pel {
			d.id(p.Id)
			d.num(p.DeliveryTime)
			d.num(p.DeliveryCount)
		}
		cs := append([]*model.StreamConsumer(nil), g.Consumers...)
		sort.Slice(cs, func(i, j int) bool { return cs[i].Name < cs[j].Name })
		d.num(uint64(len(cs)))
		for _, c := range cs {
			d.str(c.Name)
			ids := append([]*model.StreamId(nil), c.Pending...)
			sort.Slice(ids, func(i, j int) bool { return idLess(ids[i], ids[j]) })
			d.num(uint64(len(ids)))
			for _, id := range ids {
				d.id(id)
			}
		}
	}
}

func idLess(a, b *model.StreamId) bool {
	switch {
	case a == nil || b == nil:
		return a == nil && b != nil
	case a.Ms != b.Ms:
		return a.Ms < b.Ms
	}
	return a.Sequence < b.Sequence
}
