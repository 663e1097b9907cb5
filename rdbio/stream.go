package rdbio

import (
	"encoding/binary"
	"fmt"

	"github.com/rdbz/rdbz/rdbio/blob"
	"github.com/rdbz/rdbz/rdbio/lzf"
)

// walkStream walks a stream value of any version (docs/rdb-format.md §4.1):
// v1 = 15, v2 = 19, v3 = 21, v4 = 26, v5 = 27. Its element count is the
// stream's length field (as XLEN).
//
// With count set it also checks each listpack within the cap: a decoder
// sizes its allocations by the counts of a listpack's master entry, which
// must not claim more entries than the listpack holds.
func (r *Reader) walkStream(t Type, count bool) (ValueInfo, error) {
	v := visitor{r: r, check: count}
	return v.stream(streamVersion(t))
}

func streamVersion(t Type) int {
	switch t {
	case TypeStream2:
		return 2
	case TypeStream3:
		return 3
	case TypeStream4:
		return 4
	case TypeStream5:
		return 5
	}
	return 1
}

// stream walks a stream value of version ver, reporting its parts when
// v.fn is set.
func (v *visitor) stream(ver int) (ValueInfo, error) {
	r := v.r
	if err := r.each(v.node); err != nil {
		return ValueInfo{}, err
	}
	length, err := r.readLen()
	if err != nil {
		return ValueInfo{}, err
	}
	if err := v.meta(ver, length); err != nil {
		return ValueInfo{}, err
	}
	if err := r.each(func() error { return v.group(ver) }); err != nil {
		return ValueInfo{}, err
	}
	if ver >= 4 {
		if err := r.skipIdmp(); err != nil {
			return ValueInfo{}, err
		}
	}
	return ValueInfo{Elements: int64(length), Known: true}, nil
}

// meta walks a stream's IDs after its length: the last ID and, from
// version 2, the first ID, the max deleted ID and entries added. Decode
// reports them (ElemStreamMeta).
func (v *visitor) meta(ver int, length uint64) error {
	n := 2 // last id
	if ver >= 2 {
		n += 5 // first id, max deleted id, entries added
	}
	if !v.whole {
		return v.r.skipLens(n)
	}
	var f [7]uint64
	if err := v.lens(f[:n]); err != nil {
		return err
	}
	m := StreamMeta{Version: ver, Length: length, LastID: StreamID{f[0], f[1]}}
	if ver >= 2 {
		m.FirstID, m.MaxDeletedID, m.EntriesAdded = StreamID{f[2], f[3]}, StreamID{f[4], f[5]}, f[6]
	}
	v.e = Elem{Meta: m}
	return v.emit(ElemStreamMeta)
}

// lens reads len(dst) lengths into dst.
func (v *visitor) lens(dst []uint64) error {
	for i := range dst {
		n, err := v.r.readLen()
		if err != nil {
			return err
		}
		dst[i] = n
	}
	return nil
}

// node walks one stream node: its master ID, then its listpack (checked
// with v.check; decoded whole for Decode; skipped by a walk past it).
func (v *visitor) node() error {
	r := v.r
	v.e = Elem{}
	if v.fn == nil {
		if err := r.skipString(); err != nil {
			return err
		}
		if !v.check {
			return r.skipString()
		}
	} else {
		id, err := r.readString(r.bufs.dec[:0])
		if err != nil {
			return err
		}
		copy(v.e.ID[:], id)
	}
	h, err := r.valueStrHeader()
	if err != nil {
		return err
	}
	v.e.Len = h.ulen
	if v.whole {
		if v.e.Data, err = r.wholeBlob(h, "stream listpack"); err != nil {
			return err
		}
		return v.emit(ElemNode)
	}
	if err := v.emit(ElemNode); err != nil {
		return err
	}
	if v.check {
		return r.checkListpackBody(h)
	}
	return r.in.skip(h.size)
}

// group walks a consumer group: name, last id (and entries read), PEL,
// consumers, and in v5 the nacked IDs.
func (v *visitor) group(ver int) error {
	r := v.r
	name, err := v.name()
	if err != nil {
		return err
	}
	var f [3]uint64 // last id, entries read
	meta := f[:2]
	if ver >= 2 {
		meta = f[:3]
	}
	if err := v.lens(meta); err != nil {
		return err
	}
	n, err := r.readLen()
	if err != nil {
		return err
	}
	v.e = Elem{Len: name, Count: n}
	if v.whole {
		v.e.Name, v.e.LastID, v.e.Read = r.bufs.strBuf, StreamID{f[0], f[1]}, -1
		if ver >= 2 {
			v.e.Read = int64(f[2])
		}
	}
	if err := v.emit(ElemGroup); err != nil {
		return err
	}
	if err := skipN64(n, v.pending); err != nil {
		return err
	}
	if err := r.each(func() error { return v.consumer(ver) }); err != nil {
		return err
	}
	if ver >= 5 { // XNACK: nacked ids (16 bytes each; layout unverified)
		return r.skipIDs()
	}
	return nil
}

// pending walks an entry of a group's PEL: ID, delivery time, delivery
// count (reported by Decode).
func (v *visitor) pending() error {
	r := v.r
	p, err := r.in.take(16 + 8)
	if err != nil {
		return err
	}
	v.e = Elem{}
	copy(v.e.ID[:], p)
	v.e.Time = int64(binary.LittleEndian.Uint64(p[16:]))
	if v.e.Count, err = r.readLen(); err != nil {
		return err
	}
	if !v.whole {
		v.e.Time, v.e.Count = 0, 0
	}
	return v.emit(ElemGroupID)
}

func (v *visitor) consumer(ver int) error {
	r := v.r
	name, err := v.name()
	if err != nil {
		return err
	}
	v.e = Elem{Len: name, Name: r.bufs.strBuf, Active: -1}
	times := 8 // seen time
	if ver >= 3 {
		times += 8 // active time
	}
	p, err := r.in.take(times)
	if err != nil {
		return err
	}
	if v.whole {
		v.e.Time = int64(binary.LittleEndian.Uint64(p))
		if ver >= 3 {
			v.e.Active = int64(binary.LittleEndian.Uint64(p[8:]))
		}
	} else {
		v.e.Name = nil
	}
	if err := v.emit(ElemConsumer); err != nil {
		return err
	}
	return r.each(func() error { return v.id(ElemConsumerID) })
}

// name walks a group's or consumer's name and returns its length; Decode
// reads it whole into r.bufs.strBuf.
func (v *visitor) name() (uint64, error) {
	r := v.r
	if v.whole {
		var err error
		r.bufs.strBuf, err = r.readString(r.bufs.strBuf[:0])
		return uint64(len(r.bufs.strBuf)), err
	}
	h, err := r.valueStrHeader()
	if err != nil {
		return 0, err
	}
	if h.enc == EncInt {
		var d [24]byte
		s, err := r.in.intDigits(d[:0], h)
		return uint64(len(s)), err
	}
	return h.ulen, r.in.skip(h.size)
}

// id walks a raw 16-byte stream ID.
func (v *visitor) id(k ElemKind) error {
	p, err := v.r.in.take(16)
	if err != nil {
		return err
	}
	v.e = Elem{}
	copy(v.e.ID[:], p)
	return v.emit(k)
}

// skipIDs walks `len n`, n × 16-byte stream ids.
func (r *Reader) skipIDs() error {
	return r.each(func() error { return r.in.skip(16) })
}

// skipIdmp walks the v4+ idempotent-producer tail.
func (r *Reader) skipIdmp() error {
	if err := r.skipLens(2); err != nil {
		return err
	}
	err := r.each(func() error { // producers: pid, n × (iid, ms, seq)
		if err := r.skipString(); err != nil {
			return err
		}
		return r.each(func() error {
			if err := r.skipString(); err != nil {
				return err
			}
			return r.skipLens(2)
		})
	})
	if err != nil {
		return err
	}
	return r.skipLens(2)
}

// checkListpackBody reads one listpack of a stream, whose string header h
// is read (when it is within the cap), and checks its master entry:
// count, deleted and the number of master fields, each at most the
// entries the listpack holds.
func (r *Reader) checkListpackBody(h strHead) error {
	var lp []byte
	var err error
	switch {
	case h.size > uint64(r.opt.Cap) || h.ulen > uint64(r.opt.Cap):
		return r.in.skip(h.size)
	case h.enc == EncRaw:
		if r.bufs.dec, err = r.in.appendN(r.bufs.dec[:0], h.size); err != nil {
			return err
		}
		lp = r.bufs.dec
	case h.enc == EncLZF:
		if r.bufs.scratch, err = r.in.appendN(r.bufs.scratch[:0], h.size); err != nil {
			return err
		}
		if r.bufs.dec, err = lzf.Decode(r.bufs.dec, r.bufs.scratch, int(h.ulen)); err != nil {
			return fmt.Errorf("%w: stream listpack: %v", ErrCorrupt, err)
		}
		lp = r.bufs.dec
	default:
		return r.in.skip(h.size)
	}
	var head []int64
	entries := int64(0)
	err = blob.Entries(blob.Listpack, lp, func(e blob.Entry) error {
		if len(head) < 3 {
			if !e.IsInt || e.Int < 0 {
				return ErrCorrupt
			}
			head = append(head, e.Int)
		}
		entries++
		return nil
	})
	if err != nil || len(head) < 3 || head[0] > entries || head[1] > entries || head[2] > entries {
		return fmt.Errorf("%w: stream listpack whose master entry claims more than its %d entries", ErrCorrupt, entries)
	}
	return nil
}
