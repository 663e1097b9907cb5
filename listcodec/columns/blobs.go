package columns

import "encoding/binary"

// The blobs a Splitter takes apart: listpacks, ziplists and intsets. Each
// parser accepts a blob only when it is what Join's builder makes of its
// entries (join.go: buildListpack, buildZiplist, buildIntset), the way
// Redis writes it: every entry in its smallest encoding, the back-lengths
// or previous-entry lengths right, the header's size, tail and count
// right (a count of 65535 or more stored as 65535), the end byte last;
// then the Splitter runs the builder on the entries and compares
// (Splitter.rebuilds). Anything else is not taken apart, and goes on as
// the string it is.

// elem is an entry of a blob: a string (a slice of the record) or an
// integer.
type elem struct {
	str   []byte
	v     int64
	isInt bool
}

const (
	lpHead   = 6  // u32 total bytes, u16 count
	zlHead   = 10 // u32 total bytes, u32 tail offset, u16 count
	isHead   = 8  // u32 width, u32 count
	endByte  = 0xFF
	count16  = 0xFFFF
	maxBlobN = 1 << 30 // entries of one blob, far above what fits in a segment
)

// parseListpack appends the entries of the listpack b to es; ok only when
// b is canonical.
func parseListpack(b []byte, es []elem) ([]elem, bool) {
	if len(b) < lpHead+1 || int(binary.LittleEndian.Uint32(b)) != len(b) || b[len(b)-1] != endByte {
		return es, false
	}
	n0 := len(es)
	p, end := lpHead, len(b)-1
	for p < end {
		e, size, ok := lpEntry(b[p:end])
		if !ok {
			return es, false
		}
		bl := backlenSize(size)
		if p+size+bl > end || !backlenIs(b[p+size:p+size+bl], size) {
			return es, false
		}
		es = append(es, e)
		p += size + bl
	}
	n := len(es) - n0
	if int(binary.LittleEndian.Uint16(b[4:])) != min(n, count16) {
		return es, false
	}
	return es, true
}

// lpEntry decodes the listpack entry at the start of b (which excludes the
// end byte) and reports its encoding-and-data size; ok only when it is in
// its smallest encoding.
func lpEntry(b []byte) (elem, int, bool) {
	c := b[0]
	switch {
	case c&0x80 == 0:
		return elem{v: int64(c), isInt: true}, 1, true
	case c&0xC0 == 0x80:
		return lpStr(b, 1, int(c&0x3F))
	case c&0xE0 == 0xC0:
		if len(b) < 2 {
			return elem{}, 0, false
		}
		v := (int64(c&0x1F)<<8 | int64(b[1])) << 51 >> 51
		return elem{v: v, isInt: true}, 2, lpIntSize(v) == 2
	case c&0xF0 == 0xE0:
		if len(b) < 2 {
			return elem{}, 0, false
		}
		return lpStr(b, 2, int(c&0x0F)<<8|int(b[1]))
	case c == 0xF0:
		if len(b) < 5 {
			return elem{}, 0, false
		}
		n := binary.LittleEndian.Uint32(b[1:])
		if uint64(n) > uint64(len(b)) {
			return elem{}, 0, false
		}
		return lpStr(b, 5, int(n))
	case c >= 0xF1 && c <= 0xF4:
		w := [...]int{2, 3, 4, 8}[c-0xF1]
		if len(b) < 1+w {
			return elem{}, 0, false
		}
		v := leSigned(b[1 : 1+w])
		return elem{v: v, isInt: true}, 1 + w, lpIntSize(v) == 1+w
	}
	return elem{}, 0, false
}

func lpStr(b []byte, head, n int) (elem, int, bool) {
	if head+n > len(b) || lpStrHeadSize(n) != head {
		return elem{}, 0, false
	}
	return elem{str: b[head : head+n]}, head + n, true
}

// backlenIs tells whether b is the back-length Join writes for an entry of
// l bytes.
func backlenIs(b []byte, l int) bool {
	var w [5]byte
	putBacklen(w[:], l, len(b))
	return string(w[:len(b)]) == string(b)
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

// parseZiplist appends the entries of the ziplist b to es; ok only when b
// is canonical.
func parseZiplist(b []byte, es []elem) ([]elem, bool) {
	if len(b) < zlHead+1 || int(binary.LittleEndian.Uint32(b)) != len(b) || b[len(b)-1] != endByte {
		return es, false
	}
	n0 := len(es)
	p, end, prev, tail := zlHead, len(b)-1, 0, zlHead
	for p < end {
		e, size, ok := zlEntry(b[p:end], prev)
		if !ok {
			return es, false
		}
		es = append(es, e)
		tail, prev = p, size
		p += size
	}
	n := len(es) - n0
	if int(binary.LittleEndian.Uint32(b[4:])) != tail || int(binary.LittleEndian.Uint16(b[8:])) != min(n, count16) {
		return es, false
	}
	return es, true
}

// zlEntry decodes the ziplist entry at the start of b (which excludes the
// end byte), whose previous entry is prev bytes long, and reports its size;
// ok only when it is written as Join writes it.
func zlEntry(b []byte, prev int) (elem, int, bool) {
	ps := zlPrevSize(prev)
	if len(b) < ps+1 {
		return elem{}, 0, false
	}
	var w [5]byte
	putZLPrev(w[:], prev, ps)
	if string(w[:ps]) != string(b[:ps]) {
		return elem{}, 0, false
	}
	c, d := b[ps], b[ps+1:]
	if c < 0xC0 {
		var n, hs int
		switch c >> 6 {
		case 0:
			n, hs = int(c), 1
		case 1:
			if len(d) < 1 {
				return elem{}, 0, false
			}
			n, hs = int(c&0x3F)<<8|int(d[0]), 2
		default:
			if c != 0x80 || len(d) < 4 {
				return elem{}, 0, false
			}
			u := binary.BigEndian.Uint32(d)
			if uint64(u) > uint64(len(b)) {
				return elem{}, 0, false
			}
			n, hs = int(u), 5
		}
		size := ps + hs + n
		if size > len(b) || zlStrHeadSize(n) != hs {
			return elem{}, 0, false
		}
		return elem{str: b[ps+hs : size]}, size, true
	}
	var v int64
	var width int
	switch {
	case c >= 0xF1 && c <= 0xFD:
		v = int64(c - 0xF1)
	case c == 0xFE:
		width = 1
	case c == 0xC0:
		width = 2
	case c == 0xF0:
		width = 3
	case c == 0xD0:
		width = 4
	case c == 0xE0:
		width = 8
	default:
		return elem{}, 0, false
	}
	if len(d) < width {
		return elem{}, 0, false
	}
	if width > 0 {
		v = leSigned(d[:width])
	}
	if enc, ww := zlIntEnc(v); enc != c || ww != width {
		return elem{}, 0, false
	}
	return elem{v: v, isInt: true}, ps + 1 + width, true
}

// parseIntset appends the members of the intset b to es; ok only when b is
// canonical: its members strictly ascending, in the smallest width that
// holds them.
func parseIntset(b []byte, es []elem) ([]elem, bool) {
	if len(b) < isHead {
		return es, false
	}
	w := binary.LittleEndian.Uint32(b)
	n := binary.LittleEndian.Uint32(b[4:])
	if (w != 2 && w != 4 && w != 8) || n == 0 || uint64(len(b)) != isHead+uint64(n)*uint64(w) {
		return es, false
	}
	for p := isHead; p < len(b); p += int(w) {
		v := leSigned(b[p : p+int(w)])
		if p > isHead && v <= es[len(es)-1].v {
			return es, false
		}
		es = append(es, elem{v: v, isInt: true})
	}
	lo, hi := es[len(es)-int(n)].v, es[len(es)-1].v
	return es, intsetWidth(lo, hi) == int(w)
}
