package rdbio

import (
	"encoding/binary"
	"fmt"
	"strconv"

	"github.com/rdbz/rdbz/rdbio/blob"
)

// expiringFields reads the pending value for Value.ExpiringFields.
func (r *Reader) expiringFields(fn func(field, value []byte, expireMs int64) error) error {
	t := r.rec.Type
	if !HasFieldExpiry(t) {
		return fmt.Errorf("rdb: ExpiringFields on a value of type %v, which has no field expiry", t)
	}
	r.val.state = noValue
	f := fieldReader{r: r, fn: fn}
	return r.divert(nil, "value", func() error { return f.value(t) })
}

// HasFieldExpiry reports whether values of type t keep an expiry per field
// or member.
func HasFieldExpiry(t Type) bool {
	switch t {
	case TypeHashMetaPreGA, TypeHashLpExPreGA, TypeHashMetadata, TypeHashListpackEx,
		TypeHash2, TypeDflyHashExpiry, TypeDflySetExpiry:
		return true
	}
	return false
}

// fieldReader reads the fields of a value with field expiry.
type fieldReader struct {
	r          *Reader
	fn         func(field, value []byte, expireMs int64) error
	fb, vb, eb []byte
}

func (f *fieldReader) value(t Type) error {
	r := f.r
	switch t {
	case TypeHash2: // n × (field, value, i64le expiry ms, -1 none)
		return r.each(func() error {
			if err := f.pair(); err != nil {
				return err
			}
			p, err := r.in.take(8)
			if err != nil {
				return err
			}
			return f.fn(f.fb, f.vb, max(int64(binary.LittleEndian.Uint64(p)), 0))
		})
	case TypeDflyHashExpiry, TypeDflySetExpiry: // field, [value,] expiry seconds as a string, -1 none
		return r.each(func() error { return f.dragonfly(t == TypeDflyHashExpiry) })
	}
	var minExpire int64
	if t == TypeHashMetadata || t == TypeHashListpackEx {
		p, err := r.in.take(8)
		if err != nil {
			return err
		}
		minExpire = int64(binary.LittleEndian.Uint64(p))
	}
	if t == TypeHashLpExPreGA || t == TypeHashListpackEx {
		return f.listpack()
	}
	return r.each(func() error { // n × (len ttl, field, value)
		ttl, err := r.readLen()
		if err != nil {
			return err
		}
		if err := f.pair(); err != nil {
			return err
		}
		exp := int64(ttl)
		if t == TypeHashMetadata && ttl != 0 { // relative to the value's least expiry
			exp = int64(ttl) + minExpire - 1
		}
		return f.fn(f.fb, f.vb, exp)
	})
}

// pair reads a field and its value.
func (f *fieldReader) pair() (err error) {
	if f.fb, err = f.r.readString(f.fb[:0]); err != nil {
		return err
	}
	f.vb, err = f.r.readString(f.vb[:0])
	return err
}

// dragonfly reads a field of Dragonfly's hash or set with expiry.
func (f *fieldReader) dragonfly(hash bool) (err error) {
	r := f.r
	if f.fb, err = r.readString(f.fb[:0]); err != nil {
		return err
	}
	var value []byte
	if hash {
		if f.vb, err = r.readString(f.vb[:0]); err != nil {
			return err
		}
		value = f.vb
	}
	if f.eb, err = r.readString(f.eb[:0]); err != nil {
		return err
	}
	sec, err := strconv.ParseInt(string(f.eb), 10, 64)
	if err != nil {
		return fmt.Errorf("%w: Dragonfly field expiry %q is not an integer", ErrCorrupt, f.eb)
	}
	exp := int64(0)
	if sec >= 0 {
		exp = sec * 1000
	}
	return f.fn(f.fb, value, exp)
}

// listpack reads a listpack of (field, value, ttl) triples, ttl an
// absolute Unix time in milliseconds or 0.
func (f *fieldReader) listpack() error {
	lp, err := f.r.readString(f.r.bufs.dec[:0])
	if err != nil {
		return err
	}
	f.r.bufs.dec = lp
	i := 0
	var digits [24]byte
	err = blob.Entries(blob.Listpack, lp, func(e blob.Entry) error {
		s := e.Str
		if e.IsInt {
			s = strconv.AppendInt(digits[:0], e.Int, 10)
		}
		switch i % 3 {
		case 0:
			f.fb = append(f.fb[:0], s...)
		case 1:
			f.vb = append(f.vb[:0], s...)
		default:
			ttl, err := strconv.ParseInt(string(s), 10, 64)
			if err != nil || ttl < 0 {
				return fmt.Errorf("%w: field expiry %q in a hash listpack", ErrCorrupt, s)
			}
			if err := f.fn(f.fb, f.vb, ttl); err != nil {
				return err
			}
		}
		i++
		return nil
	})
	if err == nil && i%3 != 0 {
		err = fmt.Errorf("%w: hash listpack of %d entries, not (field, value, ttl) triples", ErrCorrupt, i)
	}
	return err
}
