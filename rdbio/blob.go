package rdbio

import (
	"encoding/binary"
	"fmt"
)

// Element counts from the headers of the blobs Redis stores values in
// (rdb-format.md §5.3, §5.4): a blob's decoded bytes, or a prefix of them,
// tell the count, or tell that it cannot be told: the header says
// "unknown" (65535 in a ziplist or listpack, 254 in a zipmap) and the blob
// is not whole, or the blob is malformed.

// Blob is a kind of blob: how its entries are counted.
type Blob uint8

// Blob kinds.
const (
	BlobZiplist  Blob = iota // ziplist: u16 count at offset 8
	BlobListpack             // listpack: u16 count at offset 4
	BlobIntset               // intset: u32 count at offset 4
	BlobZipmap               // zipmap: the first byte
)

// BlobCount counts the entries of a blob of the given kind from its
// decoded bytes b, or from a prefix of them (whole false). It reports false
// when the count cannot be told. BlobHead leading bytes hold every header
// count.
func BlobCount(kind Blob, b []byte, whole bool) (int64, bool) {
	switch kind {
	case BlobZiplist:
		return ziplistCount(b, whole)
	case BlobListpack:
		return listpackCount(b, whole)
	case BlobIntset:
		return intsetCount(b)
	}
	return zipmapCount(b, whole)
}

// BlobHead is how many leading bytes of a blob every header count needs.
const BlobHead = 10

const (
	countUnknown16 = 0xFFFF // ziplist/listpack header: count by walking
	zipmapUnknown  = 254
)

// nodeBlob is the blob kind of the nodes of list type t: listpacks in
// type 18, ziplists in 10 and 14.
func nodeBlob(t Type) Blob {
	if t == TypeListQuicklist2 {
		return BlobListpack
	}
	return BlobZiplist
}

// blobBody reads the payload of a string (whose prefix h was read) that
// holds a blob of the given kind and counts its entries. It reads the
// header only, unless the header says "count unknown" and the blob is
// within the capture cap. A blob stored otherwise than raw or LZF, or
// larger than the cap when LZF-compressed, is skipped uncounted.
func (r *Reader) blobBody(kind Blob, h strHead) (int64, bool, error) {
	switch h.enc {
	case EncRaw:
		k := min(h.size, BlobHead)
		p, err := r.in.take(int(k))
		if err != nil {
			return 0, false, err
		}
		r.dec = append(r.dec[:0], p...)
		n, ok := BlobCount(kind, r.dec, k == h.size)
		if ok || k == h.size || h.size > uint64(r.opt.Cap) {
			return n, ok, r.in.skip(h.size - k)
		}
		if r.dec, err = r.in.appendN(r.dec, h.size-k); err != nil {
			return 0, false, err
		}
		n, ok = BlobCount(kind, r.dec, true)
		return n, ok, nil
	case EncLZF:
		if h.size > uint64(r.opt.Cap) || h.ulen > uint64(r.opt.Cap) {
			return 0, false, r.in.skip(h.size)
		}
		comp, err := r.in.appendN(r.scratch[:0], h.size)
		r.scratch = comp
		if err != nil {
			return 0, false, err
		}
		n, ok, err := r.lzfBlobCount(kind, comp, int(h.ulen))
		if err != nil {
			return 0, false, fmt.Errorf("%w: LZF blob does not decode", ErrCorrupt)
		}
		return n, ok, nil
	}
	return 0, false, r.in.skip(h.size)
}

// lzfBlobCount counts the entries of a blob stored as the LZF stream comp
// of ulen decoded bytes: from a decoded prefix, or from the whole blob when
// the header does not tell. The error says the prefix does not decode.
func (r *Reader) lzfBlobCount(kind Blob, comp []byte, ulen int) (int64, bool, error) {
	var err error
	if r.dec, err = LZFDecodePrefix(r.dec, comp, BlobHead, ulen); err != nil {
		return 0, false, err
	}
	n, ok := BlobCount(kind, r.dec, len(r.dec) == ulen)
	if !ok && len(r.dec) < ulen {
		if r.dec, err = LZFDecodePrefix(r.dec, comp, ulen, ulen); err == nil {
			n, ok = BlobCount(kind, r.dec, len(r.dec) == ulen)
		}
	}
	return n, ok, nil
}

// nodeElements counts the elements of the last node nextNode returned
// (Nodes.Elements).
func (r *Reader) nodeElements() (int64, bool, error) {
	n := &r.node
	if n.Container == 1 || n.Enc == EncInt {
		return 1, true, nil
	}
	kind := nodeBlob(r.rec.Type)
	switch n.Enc {
	case EncRaw:
		if n.Data != nil {
			c, ok := BlobCount(kind, n.Data, true)
			return c, ok, nil
		}
		r.head.reset(BlobHead)
		if err := r.copyNodeData(&r.head); err != nil {
			return 0, false, err
		}
		c, ok := BlobCount(kind, r.head.buf, false)
		return c, ok, nil
	case EncLZF:
		if n.Data == nil {
			return 0, false, nil
		}
		if n.ULen > uint64(r.opt.Cap) { // the header only: never decoded whole
			var err error
			if r.dec, err = LZFDecodePrefix(r.dec, n.Data, BlobHead, int(min(n.ULen, uint64(r.opt.Cap)))); err != nil {
				return 0, false, nil
			}
			c, ok := BlobCount(kind, r.dec, false)
			return c, ok, nil
		}
		c, ok, err := r.lzfBlobCount(kind, n.Data, int(n.ULen))
		if err != nil {
			return 0, false, nil
		}
		return c, ok, nil
	}
	return 0, false, nil
}

// prefixBuf is a sink that keeps the first max bytes written to it.
type prefixBuf struct {
	buf []byte
	max int
}

func (p *prefixBuf) reset(max int) { p.buf, p.max = p.buf[:0], max }

func (p *prefixBuf) Write(b []byte) (int, error) {
	if k := p.max - len(p.buf); k > 0 {
		p.buf = append(p.buf, b[:min(k, len(b))]...)
	}
	return len(b), nil
}

// listpackCount counts the entries of a listpack: the u16 at offset 4, or
// a walk when it is 65535 and whole is set.
func listpackCount(b []byte, whole bool) (int64, bool) {
	return u16Count(b, 4, 7, whole, walkListpack)
}

// u16Count reads the u16 entry count at offset off of a blob of at least
// min bytes, or walks the blob when the count is 65535 and whole is set.
func u16Count(b []byte, off, min int, whole bool, walk func([]byte) (int64, bool)) (int64, bool) {
	if len(b) < min {
		return 0, false
	}
	if n := binary.LittleEndian.Uint16(b[off:]); n != countUnknown16 {
		return int64(n), true
	}
	if !whole {
		return 0, false
	}
	return walk(b)
}

// walkListpack counts listpack entries one by one up to the 0xFF end byte.
func walkListpack(b []byte) (int64, bool) {
	var n int64
	if !eachListpackEntry(b, func(lpEntry) bool { n++; return true }) {
		return 0, false
	}
	return n, true
}

// lpEntry is one listpack entry: an integer (isInt, v) or a string.
type lpEntry struct {
	isInt bool
	v     int64
	str   []byte
}

// eachListpackEntry calls fn with each entry of the listpack b until fn
// returns false; it reports whether b is well formed (entries within b,
// ending with the 0xFF byte at its end) as far as it was walked.
func eachListpackEntry(b []byte, fn func(lpEntry) bool) bool {
	for p := 6; p < len(b); {
		if b[p] == 0xFF {
			return p == len(b)-1
		}
		e, size, ok := lpDecode(b[p:])
		if !ok {
			return false
		}
		p += size + backlenSize(size)
		if p > len(b) || !fn(e) {
			return p <= len(b)
		}
	}
	return false
}

// lpDecode decodes the entry at the start of b and returns it with the
// size of its encoding and data (not its back-length).
func lpDecode(b []byte) (lpEntry, int, bool) {
	c := b[0]
	le := func(n int) (int64, bool) { // an n-byte little-endian signed integer
		if len(b) < 1+n {
			return 0, false
		}
		var u uint64
		for i := n; i >= 1; i-- {
			u = u<<8 | uint64(b[i])
		}
		shift := 64 - 8*uint(n)
		return int64(u<<shift) >> shift, true
	}
	str := func(head, n int) (lpEntry, int, bool) {
		if n < 0 || len(b) < head+n {
			return lpEntry{}, 0, false
		}
		return lpEntry{str: b[head : head+n]}, head + n, true
	}
	switch {
	case c&0x80 == 0: // 7-bit uint
		return lpEntry{isInt: true, v: int64(c)}, 1, true
	case c&0xC0 == 0x80: // 6-bit string length
		return str(1, int(c&0x3F))
	case c&0xE0 == 0xC0: // 13-bit int
		if len(b) < 2 {
			return lpEntry{}, 0, false
		}
		v := int64(c&0x1F)<<8 | int64(b[1])
		return lpEntry{isInt: true, v: v << 51 >> 51}, 2, true
	case c&0xF0 == 0xE0: // 12-bit string length
		if len(b) < 2 {
			return lpEntry{}, 0, false
		}
		return str(2, int(c&0x0F)<<8|int(b[1]))
	case c == 0xF0: // 32-bit string length
		if len(b) < 5 {
			return lpEntry{}, 0, false
		}
		return str(5, int(binary.LittleEndian.Uint32(b[1:])))
	case c >= 0xF1 && c <= 0xF4: // 16, 24, 32, 64-bit int
		n := [...]int{2, 3, 4, 8}[c-0xF1]
		v, ok := le(n)
		return lpEntry{isInt: true, v: v}, 1 + n, ok
	}
	return lpEntry{}, 0, false
}

// backlenSize is the size of a listpack entry's back-length field.
func backlenSize(l int) int {
	switch {
	case l <= 127:
		return 1
	case l < 16383:
		return 2
	case l < 2097151:
		return 3
	case l < 268435455:
		return 4
	}
	return 5
}

// ziplistCount counts the entries of a ziplist: the u16 at offset 8, or a
// walk when it is 65535 and whole is set.
func ziplistCount(b []byte, whole bool) (int64, bool) {
	return u16Count(b, 8, 11, whole, walkZiplist)
}

// walkZiplist counts ziplist entries one by one up to the 0xFF end byte.
func walkZiplist(b []byte) (int64, bool) {
	var n int64
	p := 10
	for p < len(b) {
		if b[p] == 0xFF {
			return n, p == len(b)-1
		}
		if b[p] < 254 { // prevlen
			p++
		} else {
			p += 5
		}
		if p >= len(b) {
			return 0, false
		}
		c := b[p]
		var size int // encoding + data
		switch {
		case c>>6 == 0:
			size = 1 + int(c&0x3F)
		case c>>6 == 1:
			if p+1 >= len(b) {
				return 0, false
			}
			size = 2 + (int(c&0x3F)<<8 | int(b[p+1]))
		case c == 0x80:
			if p+5 > len(b) {
				return 0, false
			}
			size = 5 + int(binary.BigEndian.Uint32(b[p+1:]))
		case c == 0xC0:
			size = 3
		case c == 0xD0:
			size = 5
		case c == 0xE0:
			size = 9
		case c == 0xF0:
			size = 4
		case c == 0xFE:
			size = 2
		case c >= 0xF1 && c <= 0xFD:
			size = 1
		default:
			return 0, false
		}
		p += size
		n++
	}
	return 0, false
}

// intsetCount reads an intset's u32 count at offset 4.
func intsetCount(b []byte) (int64, bool) {
	if len(b) < 8 {
		return 0, false
	}
	return int64(binary.LittleEndian.Uint32(b[4:])), true
}

// zipmapCount counts the pairs of a zipmap: the first byte, or a walk when
// it is 254 and whole is set.
func zipmapCount(b []byte, whole bool) (int64, bool) {
	if len(b) < 2 {
		return 0, false
	}
	if b[0] < zipmapUnknown {
		return int64(b[0]), true
	}
	if !whole {
		return 0, false
	}
	var n int64
	if !eachZipmapString(b, func([]byte) bool { n++; return true }) {
		return 0, false
	}
	return n / 2, true
}
