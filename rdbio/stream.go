package rdbio

import (
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
	meta := 2 // last id
	if ver >= 2 {
		meta += 5 // first id, max deleted id, entries added
	}
	if err := r.skipLens(meta); err != nil {
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

// node walks one stream node: its master ID, then its listpack (checked
// with v.check).
func (v *visitor) node() error {
	r := v.r
	v.e = Elem{}
	if v.fn == nil {
		if err := r.skipString(); err != nil {
			return err
		}
	} else {
		id, err := r.readString(r.dec[:0])
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
	meta := 2 // last id
	if ver >= 2 {
		meta++ // entries read
	}
	if err := r.skipLens(meta); err != nil {
		return err
	}
	n, err := r.readLen()
	if err != nil {
		return err
	}
	v.e = Elem{Len: name, Count: n}
	if err := v.emit(ElemGroup); err != nil {
		return err
	}
	err = skipN64(n, func() error { // PEL: id, delivery time, delivery count
		if err := v.id(ElemGroupID); err != nil {
			return err
		}
		if err := r.in.skip(8); err != nil {
			return err
		}
		return r.skipLens(1)
	})
	if err == nil {
		err = r.each(func() error { return v.consumer(ver) })
	}
	if err != nil {
		return err
	}
	if ver >= 5 { // XNACK: nacked ids (16 bytes each; layout unverified)
		return r.skipIDs()
	}
	return nil
}

func (v *visitor) consumer(ver int) error {
	r := v.r
	name, err := v.name()
	if err != nil {
		return err
	}
	v.e = Elem{Len: name}
	if err := v.emit(ElemConsumer); err != nil {
		return err
	}
	times := uint64(8) // seen time
	if ver >= 3 {
		times += 8 // active time
	}
	if err := r.in.skip(times); err != nil {
		return err
	}
	return r.each(func() error { return v.id(ElemConsumerID) })
}

// name walks a group's or consumer's name and returns its length.
func (v *visitor) name() (uint64, error) {
	h, err := v.r.valueStrHeader()
	if err != nil {
		return 0, err
	}
	if h.enc == EncInt {
		var d [24]byte
		s, err := v.r.in.intDigits(d[:0], h)
		return uint64(len(s)), err
	}
	return h.ulen, v.r.in.skip(h.size)
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
		if r.dec, err = r.in.appendN(r.dec[:0], h.size); err != nil {
			return err
		}
		lp = r.dec
	case h.enc == EncLZF:
		if r.scratch, err = r.in.appendN(r.scratch[:0], h.size); err != nil {
			return err
		}
		if r.dec, err = lzf.Decode(r.dec, r.scratch, int(h.ulen)); err != nil {
			return fmt.Errorf("%w: stream listpack: %v", ErrCorrupt, err)
		}
		lp = r.dec
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
