package rdbio

import (
	"fmt"
	"io"
	"strconv"

	"github.com/rdbz/rdbz/rdbio/blob"
)

// ValueInfo is what walking a value tells about it without decoding it.
type ValueInfo struct {
	// Elements is the value's element count, when Known: a string's
	// length (as STRLEN), a collection's `len n` prefix, the header count
	// of a ziplist, listpack, intset or zipmap blob (pairs for hashes and
	// sorted sets, triples for hashes with field expiry), a stream's length
	// (as XLEN), the sum of a list's node counts.
	Elements int64
	// Known is false where the count is not cheap to tell: module values,
	// Dragonfly's JSON and sketches, blobs over the cap whose header does
	// not hold the count, rdbz-compressed list nodes.
	Known bool
	// Integer says a string value is an integer: stored as one, or digits
	// that strconv.ParseInt reads (Redis stores both as a shared integer).
	Integer bool
	// Module is the module type name of a module value (see ModuleName).
	Module string
	// MaxStringLen is the largest decoded length that a string of the
	// value claims (LZF and zstd strings say it before their payload), so
	// that a decoder handed the value can be spared one over its limits.
	MaxStringLen uint64
}

// walkPending walks the pending value with its bytes sent to w; count says
// whether to read blob headers and string contents (Value.Copy, Count).
func (r *Reader) walkPending(w io.Writer, count bool) (info ValueInfo, err error) {
	r.val.maxLen = 0
	err = r.divert(w, "value", func() (err error) {
		info, err = r.finishValue(count)
		return err
	})
	info.MaxStringLen = r.val.maxLen
	return info, err
}

// finishValue walks whatever is left of the current key's value through
// the current output.
func (r *Reader) finishValue(count bool) (ValueInfo, error) {
	switch r.val.state {
	case valuePending:
		r.val.state = noValue
		info, err := r.walkValue(r.rec.Type, count)
		return info, r.wrap("value", err)
	case inList:
		r.val.state = noValue
		if err := r.in.skip(r.dataLeft()); err != nil {
			return ValueInfo{}, r.fail("list node", err)
		}
		info, err := r.walkNodes(count)
		return info, r.wrap("list node", err)
	}
	return ValueInfo{}, nil
}

// walkValue is the one walk of the value grammar (docs/rdb-format.md §4-§6): it
// consumes a whole value of type t and reports what it saw. Without count
// it reads no string's contents (Next's skip); with it, strings and blob
// headers are read to tell their length and element count.
func (r *Reader) walkValue(t Type, count bool) (ValueInfo, error) {
	switch t {
	case TypeString:
		if count {
			return r.stringInfo()
		}
		return ValueInfo{}, r.skipString()
	case TypeList, TypeSet:
		return r.walkStrings(1, 0)
	case TypeHash:
		return r.walkStrings(2, 0)
	case TypeZset:
		return r.walkZset()
	case TypeZset2:
		return r.walkStrings(1, 8)
	case TypeModulePreGA:
		return ValueInfo{}, fmt.Errorf("%w: module value of the 4.0 pre-GA format cannot be walked", ErrUnsupported)
	case TypeModule2:
		return r.walkModule(count)
	case TypeHashZipmap:
		return r.walkBlob(blob.Zipmap, 1, count)
	case TypeListZiplist:
		return r.walkBlob(blob.Ziplist, 1, count)
	case TypeSetIntset:
		return r.walkBlob(blob.Intset, 1, count)
	case TypeZsetZiplist, TypeHashZiplist:
		return r.walkBlob(blob.Ziplist, 2, count)
	case TypeHashListpack, TypeZsetListpack:
		return r.walkBlob(blob.Listpack, 2, count)
	case TypeSetListpack:
		return r.walkBlob(blob.Listpack, 1, count)
	case TypeDflyJSONOld:
		return ValueInfo{}, r.skipString()
	case TypeListQuicklist, TypeListQuicklist2:
		n, err := r.readLen()
		if err != nil {
			return ValueInfo{}, err
		}
		r.val.nodes = n
		return r.walkNodes(count)
	case TypeStreamListpacks, TypeStream2, TypeStream3, TypeStream4, TypeStream5:
		return r.walkStream(t, count)
	}
	if t.Dragonfly() {
		return r.walkDflyValue(t)
	}
	return r.walkHFE(t, count)
}

// walkNodes walks the r.val.nodes nodes left of the current key's list value
// (each a blob; PLAIN nodes of type 18 hold one element).
func (r *Reader) walkNodes(count bool) (ValueInfo, error) {
	info := ValueInfo{Known: true}
	kind := nodeBlob(r.rec.Type)
	for ; r.val.nodes > 0; r.val.nodes-- {
		var container uint64
		if r.rec.Type == TypeListQuicklist2 {
			c, err := r.readLen()
			if err != nil {
				return ValueInfo{}, err
			}
			container = c
		}
		if !count {
			if err := r.skipNodeString(); err != nil {
				return ValueInfo{}, err
			}
			continue
		}
		h, err := r.strHeader()
		if err != nil {
			return ValueInfo{}, err
		}
		n, ok := int64(1), true
		if container == 1 || h.enc == EncInt {
			err = r.in.skip(h.size)
		} else {
			n, ok, err = r.blobBody(kind, h)
		}
		if err != nil {
			return ValueInfo{}, err
		}
		info.Elements += n
		info.Known = info.Known && ok
	}
	if !info.Known {
		info.Elements = 0
	}
	return info, nil
}

// stringInfo walks a string value and tells its decoded length and whether
// it is an integer.
func (r *Reader) stringInfo() (ValueInfo, error) {
	h, err := r.valueStrHeader()
	if err != nil {
		return ValueInfo{}, err
	}
	info := ValueInfo{Elements: int64(h.ulen), Known: true}
	switch {
	case h.enc == EncInt:
		var d [24]byte
		s, err := r.in.intDigits(d[:0], h)
		if err != nil {
			return ValueInfo{}, err
		}
		info.Elements = int64(len(s))
		info.Integer = true
		return info, nil
	case h.enc == EncRaw && h.size <= 20: // short enough to be an integer
		p, err := r.in.take(int(h.size))
		if err != nil {
			return ValueInfo{}, err
		}
		_, perr := strconv.ParseInt(string(p), 10, 64)
		info.Integer = perr == nil
		return info, nil
	}
	return info, r.in.skip(h.size)
}

// walkModule walks a module value (type 7): the module id, then the body.
func (r *Reader) walkModule(count bool) (ValueInfo, error) {
	id, err := r.readLen()
	if err != nil {
		return ValueInfo{}, err
	}
	var info ValueInfo
	if count {
		info.Module = ModuleName(id)
	}
	return info, r.skipModuleBody()
}

// walkBlob walks a string that holds a blob of the given kind and, when
// count is set, counts its entries (divided by per: 2 for field/value
// pairs, 3 for triples).
func (r *Reader) walkBlob(kind blob.Kind, per int64, count bool) (ValueInfo, error) {
	if !count {
		return ValueInfo{}, r.skipString()
	}
	h, err := r.valueStrHeader()
	if err != nil {
		return ValueInfo{}, err
	}
	n, ok, err := r.blobBody(kind, h)
	return ValueInfo{Elements: n / per, Known: ok}, err
}

// collection reads a count and calls fn that many times: the shape of most
// collections in the format. The count is the value's element count.
func (r *Reader) collection(fn func() error) (ValueInfo, error) {
	n, err := r.readLen()
	if err != nil {
		return ValueInfo{}, err
	}
	for i := uint64(0); i < n; i++ {
		if err := fn(); err != nil {
			return ValueInfo{}, err
		}
	}
	return ValueInfo{Elements: int64(n), Known: true}, nil
}

// each is collection for parts that are not the value itself.
func (r *Reader) each(fn func() error) error {
	_, err := r.collection(fn)
	return err
}

// skipN calls fn n times.
func skipN(n int, fn func() error) error {
	for i := 0; i < n; i++ {
		if err := fn(); err != nil {
			return err
		}
	}
	return nil
}

// walkStrings walks `len n`, n × (per strings, then fixed raw bytes).
func (r *Reader) walkStrings(per int, fixed uint64) (ValueInfo, error) {
	return r.collection(func() error {
		if err := skipN(per, r.skipString); err != nil {
			return err
		}
		return r.in.skip(fixed)
	})
}

// walkLenStrings walks `len n`, n × (lens lengths, then strs strings).
func (r *Reader) walkLenStrings(lens, strs int) (ValueInfo, error) {
	return r.collection(func() error {
		if err := r.skipLens(lens); err != nil {
			return err
		}
		return skipN(strs, r.skipString)
	})
}

// walkZset walks type 3: members with string-encoded doubles.
func (r *Reader) walkZset() (ValueInfo, error) {
	return r.collection(func() error {
		if err := r.skipString(); err != nil {
			return err
		}
		b, err := r.in.byte()
		if err != nil || b >= 253 { // 253..255: NaN, +inf, -inf
			return err
		}
		return r.in.skip(uint64(b))
	})
}

// walkHFE walks the hash-field-expiry types 22..25 and Valkey's HASH_2.
func (r *Reader) walkHFE(t Type, count bool) (ValueInfo, error) {
	switch {
	case t == TypeHash2: // field, value, i64 expire
		return r.walkStrings(2, 8)
	case t == TypeHashMetaPreGA: // n × (len ttl, field, value)
		return r.walkLenStrings(1, 2)
	case t == TypeHashLpExPreGA:
		return r.walkBlob(blob.Listpack, 3, count)
	case t == TypeHashMetadata:
		if err := r.in.skip(8); err != nil {
			return ValueInfo{}, err
		}
		return r.walkLenStrings(1, 2)
	case t == TypeHashListpackEx:
		if err := r.in.skip(8); err != nil {
			return ValueInfo{}, err
		}
		return r.walkBlob(blob.Listpack, 3, count)
	}
	return ValueInfo{}, fmt.Errorf("%w: value type %d (%v): layout not known", ErrUnsupported, t.Byte(), t)
}

// ModuleName decodes the 9-character module type name from a module id
// (9 × 6 bits of the alphabet A–Z a–z 0–9 - _, then 10 bits of encoding
// version), as Redis's moduleTypeNameByID does.
func ModuleName(id uint64) string {
	const set = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	var name [9]byte
	id >>= 10
	for j := 8; j >= 0; j-- {
		name[j] = set[id&63]
		id >>= 6
	}
	return string(name[:])
}
