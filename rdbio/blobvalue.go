package rdbio

import (
	"fmt"
	"strconv"
)

// Blob tells whether a value of type t is one blob, and if so its kind,
// how many entries make one element (see CheckBlob) and how many bytes
// precede the blob's string in the value (the minimum expiry of type 25).
// List types are not: their nodes are blobs (NodeBlob).
func (t Type) Blob() (kind Blob, per, skip int, ok bool) {
	switch t {
	case TypeHashZipmap:
		return BlobZipmap, 2, 0, true
	case TypeSetIntset:
		return BlobIntset, 1, 0, true
	case TypeZsetZiplist, TypeHashZiplist:
		return BlobZiplist, 2, 0, true
	case TypeHashListpack, TypeZsetListpack:
		return BlobListpack, 2, 0, true
	case TypeSetListpack:
		return BlobListpack, 1, 0, true
	case TypeHashLpExPreGA:
		return BlobListpack, 3, 0, true
	case TypeHashListpackEx:
		return BlobListpack, 3, 8, true
	}
	return 0, 0, 0, false
}

// NodeBlob is the kind of blob the PACKED nodes of list type t hold:
// ziplists in types 10 and 14, listpacks in 18.
func NodeBlob(t Type) Blob { return nodeBlob(t) }

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
	s := value[skip:]
	r := &Reader{in: &input{buf: s, end: len(s), eof: true, crc: newCRC64()}, opt: Options{Cap: limit}}
	h, err := r.valueStrHeader()
	if err != nil {
		return nil, fmt.Errorf("%w: blob string header: %v", ErrCorrupt, err)
	}
	payload := s[r.in.pos:]
	if uint64(len(payload)) != h.size {
		return nil, fmt.Errorf("%w: blob string of %d bytes, %d stored", ErrCorrupt, h.size, len(payload))
	}
	switch h.enc {
	case EncInt:
		return strconv.AppendInt(dst[:0], IntValue(payload), 10), nil
	case EncLZF:
		return DecodeNodeLZF(dst, payload, h.ulen, limit)
	}
	return append(dst[:0], payload...), nil
}

// DecodeNodeLZF decodes an LZF blob of ulen bytes (a list node's or a
// value's) into dst: ErrTooLarge over limit, ErrCorrupt when it does not
// decode (a server refuses it: "Invalid LZF compressed string").
func DecodeNodeLZF(dst, comp []byte, ulen uint64, limit int) ([]byte, error) {
	if ulen > uint64(limit) {
		return nil, fmt.Errorf("%w: LZF blob of %d bytes (cap %d)", ErrTooLarge, ulen, limit)
	}
	out, err := LZFDecode(dst[:0], comp, int(ulen))
	if err != nil {
		return nil, fmt.Errorf("%w: LZF blob does not decode to %d bytes", ErrCorrupt, ulen)
	}
	return out, nil
}
