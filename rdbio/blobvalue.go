package rdbio

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/rdbz/rdbz/rdbio/blob"
	"github.com/rdbz/rdbz/rdbio/lzf"
)

// The values of rdbio that are blobs, and their kinds; the blobs
// themselves are read and written by rdbio/blob.

// Blob tells whether a value of type t is one blob, and if so its kind,
// how many entries make one element (see blob.Check) and how many bytes
// precede the blob's string in the value (the minimum expiry of type 25).
// List types are not: their nodes are blobs (NodeBlob).
func (t Type) Blob() (kind blob.Kind, per, skip int, ok bool) {
	switch t {
	case TypeHashZipmap:
		return blob.Zipmap, 2, 0, true
	case TypeSetIntset:
		return blob.Intset, 1, 0, true
	case TypeZsetZiplist, TypeHashZiplist:
		return blob.Ziplist, 2, 0, true
	case TypeHashListpack, TypeZsetListpack:
		return blob.Listpack, 2, 0, true
	case TypeSetListpack:
		return blob.Listpack, 1, 0, true
	case TypeHashLpExPreGA:
		return blob.Listpack, 3, 0, true
	case TypeHashListpackEx:
		return blob.Listpack, 3, 8, true
	}
	return 0, 0, 0, false
}

// NodeBlob is the kind of blob the PACKED nodes of list type t hold:
// ziplists in types 10 and 14, listpacks in 18.
func NodeBlob(t Type) blob.Kind { return nodeBlob(t) }

// DecodeValueBlob appends to dst[:0] the blob held by a value as
// Value.Count or Value.Copy wrote it (value), whose string starts skip bytes
// in: the payload of a raw string, the decoded bytes of an LZF one
// (ErrTooLarge when it claims more than limit bytes), the digits of an
// integer one (as a server reads it). Bytes that do not make one whole
// string, or LZF data that does not decode, are ErrCorrupt.
func DecodeValueBlob(dst, value []byte, skip, limit int) ([]byte, error) {
	if skip > len(value) {
		return nil, fmt.Errorf("%w: value of %d bytes, blob expected after %d", ErrCorrupt, len(value), skip)
	}
	s := NewStringScanner(value[skip:], limit)
	out, _, err := s.String(dst)
	if err != nil {
		if errors.Is(err, ErrTooLarge) {
			return nil, err
		}
		return nil, fmt.Errorf("%w: blob string: %v", ErrCorrupt, err)
	}
	if rest := len(value) - skip - s.Offset(); rest != 0 {
		return nil, fmt.Errorf("%w: %d bytes after the blob string", ErrCorrupt, rest)
	}
	return out, nil
}

// DecodeNodeLZF decodes an LZF blob of ulen bytes (a list node's or a
// value's) into dst: ErrTooLarge over limit, ErrCorrupt when it does not
// decode (a server refuses it: "Invalid LZF compressed string").
func DecodeNodeLZF(dst, comp []byte, ulen uint64, limit int) ([]byte, error) {
	if ulen > uint64(limit) {
		return nil, fmt.Errorf("%w: LZF blob of %d bytes (cap %d)", ErrTooLarge, ulen, limit)
	}
	out, err := lzf.Decode(dst[:0], comp, int(ulen))
	if err != nil {
		return nil, fmt.Errorf("%w: LZF blob does not decode to %d bytes", ErrCorrupt, ulen)
	}
	return out, nil
}

// BlobEntries calls fn with each entry of the whole decoded blob b of the
// given kind, as an ElemString (Len, Data as Value.Visit gives it, Int):
// the entries of a listpack or ziplist, the members of an intset, the
// keys and values of a zipmap. The error wraps ErrCorrupt when b is not well
// formed as far as it was walked, or fn's.
func BlobEntries(kind blob.Kind, b []byte, fn func(*Elem) error) error {
	var e Elem
	var digits [24]byte
	return blob.Entries(kind, b, func(en blob.Entry) error {
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
