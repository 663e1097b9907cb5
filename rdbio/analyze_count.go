package rdbio

import "encoding/binary"

// Element counts from the headers of the blobs Redis stores values in
// (rdb-format.md §5.3, §5.4). Each function takes the blob's decoded bytes,
// or only a prefix of them; it returns the count and true, or false when
// the count cannot be told: the header says "unknown" (65535 in a ziplist or
// listpack, 254 in a zipmap) and the blob is not whole, or the blob is
// malformed.

// blobHead is how many leading bytes of a blob every header count needs.
const blobHead = 10

const (
	countUnknown16 = 0xFFFF // ziplist/listpack header: count by walking
	zipmapUnknown  = 254
)

// listpackCount counts the entries of a listpack: the u16 at offset 4, or
// a walk when it is 65535 and whole is set.
func listpackCount(b []byte, whole bool) (int64, bool) {
	if len(b) < 7 {
		return 0, false
	}
	if n := binary.LittleEndian.Uint16(b[4:]); n != countUnknown16 {
		return int64(n), true
	}
	if !whole {
		return 0, false
	}
	return walkListpack(b)
}

// walkListpack counts listpack entries one by one up to the 0xFF end byte.
func walkListpack(b []byte) (int64, bool) {
	var n int64
	p := 6
	for p < len(b) {
		c := b[p]
		var size int // encoding + data
		switch {
		case c == 0xFF:
			return n, p == len(b)-1
		case c&0x80 == 0: // 7-bit uint
			size = 1
		case c&0xC0 == 0x80: // 6-bit string length
			size = 1 + int(c&0x3F)
		case c&0xE0 == 0xC0: // 13-bit int
			size = 2
		case c&0xF0 == 0xE0: // 12-bit string length
			if p+1 >= len(b) {
				return 0, false
			}
			size = 2 + (int(c&0x0F)<<8 | int(b[p+1]))
		case c == 0xF0: // 32-bit string length
			if p+5 > len(b) {
				return 0, false
			}
			size = 5 + int(binary.LittleEndian.Uint32(b[p+1:]))
		case c == 0xF1:
			size = 3
		case c == 0xF2:
			size = 4
		case c == 0xF3:
			size = 5
		case c == 0xF4:
			size = 9
		default:
			return 0, false
		}
		p += size + backlenSize(size)
		n++
	}
	return 0, false
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
	if len(b) < 11 {
		return 0, false
	}
	if n := binary.LittleEndian.Uint16(b[8:]); n != countUnknown16 {
		return int64(n), true
	}
	if !whole {
		return 0, false
	}
	return walkZiplist(b)
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
		return l, true
	}
	for p < len(b) {
		if b[p] == 0xFF {
			return n, p == len(b)-1
		}
		kl, ok := zlen()
		if !ok {
			return 0, false
		}
		p += kl
		vl, ok := zlen()
		if !ok || p >= len(b) {
			return 0, false
		}
		free := int(b[p])
		p += 1 + vl + free
		n++
	}
	return 0, false
}

// lzfPrefix is LZFDecodePrefix with a plain success flag.
func lzfPrefix(dst, src []byte, want, limit int) ([]byte, bool) {
	out, err := LZFDecodePrefix(dst, src, want, limit)
	return out, err == nil
}
