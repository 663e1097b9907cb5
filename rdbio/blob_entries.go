package rdbio

import (
	"encoding/binary"
	"fmt"
	"strconv"
)

// Entry is one entry of a blob: an integer (IsInt, Int) or the bytes of a
// string (Str). Str is valid until the walk that gave it moves on.
type Entry struct {
	Str   []byte
	Int   int64
	IsInt bool
}

// Entries calls fn with each entry of the whole decoded blob b of the
// given kind, as it is stored: the entries of a listpack or ziplist, the
// members of an intset, the keys and values of a zipmap in turn. Strings
// come whole, whatever their length. The error wraps ErrCorrupt when b is
// not well formed as far as it was walked, or is fn's.
func Entries(kind Blob, b []byte, fn func(Entry) error) error {
	var ferr error
	onInt := func(v int64) bool { ferr = fn(Entry{Int: v, IsInt: true}); return ferr == nil }
	onStr := func(s []byte) bool { ferr = fn(Entry{Str: s}); return ferr == nil }
	var ok bool
	switch kind {
	case BlobListpack:
		ok = eachListpackEntry(b, func(le lpEntry) bool {
			if le.isInt {
				return onInt(le.v)
			}
			return onStr(le.str)
		})
	case BlobZiplist:
		ok = eachZiplistEntry(b, onInt, onStr)
	case BlobIntset:
		ok = eachIntsetMember(b, onInt)
	case BlobZipmap:
		ok = eachZipmapString(b, onStr)
	}
	if ferr != nil {
		return ferr
	}
	if !ok {
		return fmt.Errorf("%w: malformed %s blob", ErrCorrupt, blobNames[kind])
	}
	return nil
}

// BlobEntries calls fn with each entry of the whole decoded blob b of the
// given kind, as an ElemString (Len, Data as Value.Visit gives it, Int):
// the entries of a listpack or ziplist, the members of an intset, the
// keys and values of a zipmap. The error is ErrCorrupt when b is not well
// formed as far as it was walked, or fn's.
func BlobEntries(kind Blob, b []byte, fn func(*Elem) error) error {
	var e Elem
	var digits [24]byte
	return Entries(kind, b, func(en Entry) error {
		if en.IsInt {
			e = Elem{Kind: ElemString, Int: true, Data: strconv.AppendInt(digits[:0], en.Int, 10)}
			e.Len = uint64(len(e.Data))
			return fn(&e)
		}
		e = Elem{Kind: ElemString, Len: uint64(len(en.Str))}
		if len(en.Str) <= ShortString {
			e.Data = en.Str
		}
		return fn(&e)
	})
}

var blobNames = [...]string{BlobZiplist: "ziplist", BlobListpack: "listpack", BlobIntset: "intset", BlobZipmap: "zipmap"}

// eachZiplistEntry walks the entries of a ziplist (rdb-format.md §5.3),
// calling onInt or onStr until one returns false; it reports whether the
// ziplist is well formed as far as it was walked.
func eachZiplistEntry(b []byte, onInt func(int64) bool, onStr func([]byte) bool) bool {
	p := 10
	for p < len(b) {
		if b[p] == 0xFF {
			return p == len(b)-1
		}
		if b[p] < 254 { // prevlen
			p++
		} else {
			p += 5
		}
		if p >= len(b) {
			return false
		}
		c := b[p]
		var head, n int // encoding bytes, string bytes
		var v int64
		isInt := true
		switch {
		case c>>6 == 0:
			head, n, isInt = 1, int(c&0x3F), false
		case c>>6 == 1:
			if p+1 >= len(b) {
				return false
			}
			head, n, isInt = 2, int(c&0x3F)<<8|int(b[p+1]), false
		case c == 0x80:
			if p+5 > len(b) {
				return false
			}
			head, n, isInt = 5, int(binary.BigEndian.Uint32(b[p+1:])), false
		case c == 0xC0:
			head, n = 1, 2
		case c == 0xD0:
			head, n = 1, 4
		case c == 0xE0:
			head, n = 1, 8
		case c == 0xF0:
			head, n = 1, 3
		case c == 0xFE:
			head, n = 1, 1
		case c >= 0xF1 && c <= 0xFD:
			head, v = 1, int64(c&0x0F)-1
		default:
			return false
		}
		if n < 0 || p+head+n > len(b) {
			return false
		}
		d := b[p+head : p+head+n]
		if isInt && n > 0 {
			v = leSigned(d)
		}
		p += head + n
		if isInt && !onInt(v) || !isInt && !onStr(d) {
			return p <= len(b)
		}
	}
	return false
}

// leSigned decodes a little-endian two's complement integer of len(d) bytes.
func leSigned(d []byte) int64 {
	var u uint64
	for i := len(d) - 1; i >= 0; i-- {
		u = u<<8 | uint64(d[i])
	}
	shift := 64 - 8*uint(len(d))
	return int64(u<<shift) >> shift
}

// eachIntsetMember walks the members of an intset: encoding (2, 4 or 8
// bytes a member) and count, then the members.
func eachIntsetMember(b []byte, fn func(int64) bool) bool {
	if len(b) < 8 {
		return false
	}
	w := uint64(binary.LittleEndian.Uint32(b))
	n := uint64(binary.LittleEndian.Uint32(b[4:]))
	if (w != 2 && w != 4 && w != 8) || n > uint64(len(b)-8)/w || 8+n*w != uint64(len(b)) {
		return false
	}
	for p := uint64(8); p < uint64(len(b)); p += w {
		if !fn(leSigned(b[p : p+w])) {
			return true
		}
	}
	return true
}

// eachZipmapString walks the keys and values of a zipmap in order.
func eachZipmapString(b []byte, fn func([]byte) bool) bool {
	p := 1
	zlen := func() (int, bool) {
		if p >= len(b) {
			return 0, false
		}
		if b[p] < 254 {
			p++
			return int(b[p-1]), true
		}
		if b[p] != 254 || p+5 > len(b) {
			return 0, false
		}
		l := int(binary.LittleEndian.Uint32(b[p+1:]))
		p += 5
		return l, l >= 0
	}
	for p < len(b) {
		if b[p] == 0xFF {
			return p == len(b)-1
		}
		kl, ok := zlen()
		if !ok || p+kl > len(b) {
			return false
		}
		if !fn(b[p : p+kl]) {
			return true
		}
		p += kl
		vl, ok := zlen()
		if !ok || p >= len(b) {
			return false
		}
		free := int(b[p])
		p++
		if p+vl+free > len(b) {
			return false
		}
		if !fn(b[p : p+vl]) {
			return true
		}
		p += vl + free
	}
	return false
}
