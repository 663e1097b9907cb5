package rdbio

import (
	"encoding/binary"
	"fmt"
	"strconv"
)

// StringScanner reads RDB lengths and strings (rdb-format.md §2.1, §2.2)
// from a byte slice: a value held whole, such as the bytes Value.Count
// wrote to a CappedBuffer (a linked list's `len n`, n × `str`). Strings
// are decoded as a server reads them: raw bytes, an integer's decimal
// digits, LZF data decompressed. A string of more than limit bytes
// (stored or decoded) is ErrTooLarge; bytes that break the grammar (a
// length or string running past the slice, LZF data that does not decode
// to the length it claims, an encoding other than these three, such as
// rdbz's 0xC4) are ErrCorrupt. The scanner never changes the slice.
type StringScanner struct {
	b     []byte
	pos   int
	limit int
}

// NewStringScanner returns a scanner of b from its first byte, holding
// strings of at most limit bytes.
func NewStringScanner(b []byte, limit int) *StringScanner {
	return &StringScanner{b: b, limit: limit}
}

// Offset is how many bytes of the slice have been read.
func (s *StringScanner) Offset() int { return s.pos }

// Len reads a length; a special string encoding (a first byte 11xxxxxx)
// in its place is ErrCorrupt.
func (s *StringScanner) Len() (uint64, error) {
	n, special, err := s.lenOrSpecial()
	if err != nil {
		return 0, err
	}
	if special {
		return 0, fmt.Errorf("%w: string encoding 0x%02x where a length is expected", ErrCorrupt, 0xC0|n)
	}
	return n, nil
}

// String reads a string and appends its decoded bytes to dst[:0]. isInt
// says it was stored as an integer (its bytes are then the digits).
func (s *StringScanner) String(dst []byte) (str []byte, isInt bool, err error) {
	n, special, err := s.lenOrSpecial()
	if err != nil {
		return nil, false, err
	}
	if !special {
		if n > uint64(s.limit) {
			return nil, false, fmt.Errorf("%w: string of %d bytes (cap %d)", ErrTooLarge, n, s.limit)
		}
		p, err := s.take(n)
		if err != nil {
			return nil, false, err
		}
		return append(dst[:0], p...), false, nil
	}
	switch n {
	case encInt8, encInt16, encInt32:
		p, err := s.take(1 << n)
		if err != nil {
			return nil, false, err
		}
		return strconv.AppendInt(dst[:0], IntValue(p), 10), true, nil
	case encLZF:
		clen, err := s.Len()
		if err != nil {
			return nil, false, err
		}
		ulen, err := s.Len()
		if err != nil {
			return nil, false, err
		}
		if ulen > uint64(s.limit) {
			return nil, false, fmt.Errorf("%w: LZF string of %d bytes (cap %d)", ErrTooLarge, ulen, s.limit)
		}
		if clen == 0 || !lzfCanDecode(clen, ulen) {
			return nil, false, fmt.Errorf("%w: LZF string of %d bytes cannot decode to the %d it claims", ErrCorrupt, clen, ulen)
		}
		p, err := s.take(clen)
		if err != nil {
			return nil, false, err
		}
		out, err := LZFDecode(dst[:0], p, int(ulen))
		if err != nil {
			return nil, false, fmt.Errorf("%w: LZF data does not decode to %d bytes", ErrCorrupt, ulen)
		}
		return out, false, nil
	}
	return nil, false, fmt.Errorf("%w: string encoding 0x%02x (not raw, integer or LZF)", ErrCorrupt, 0xC0|n)
}

// lenOrSpecial reads a length, or the number of a special string encoding
// (special set).
func (s *StringScanner) lenOrSpecial() (n uint64, special bool, err error) {
	p, err := s.take(1)
	if err != nil {
		return 0, false, err
	}
	b := p[0]
	switch b >> 6 {
	case 0:
		return uint64(b & 0x3F), false, nil
	case 1:
		q, err := s.take(1)
		if err != nil {
			return 0, false, err
		}
		return uint64(b&0x3F)<<8 | uint64(q[0]), false, nil
	case 3:
		return uint64(b & 0x3F), true, nil
	}
	switch b {
	case 0x80:
		q, err := s.take(4)
		if err != nil {
			return 0, false, err
		}
		return uint64(binary.BigEndian.Uint32(q)), false, nil
	case 0x81:
		q, err := s.take(8)
		if err != nil {
			return 0, false, err
		}
		return binary.BigEndian.Uint64(q), false, nil
	}
	return 0, false, fmt.Errorf("%w: length byte 0x%02x", ErrCorrupt, b)
}

// take consumes n bytes; ErrCorrupt past the end of the slice.
func (s *StringScanner) take(n uint64) ([]byte, error) {
	if n > uint64(len(s.b)-s.pos) {
		return nil, fmt.Errorf("%w: %d bytes at offset %d of a %d-byte value", ErrCorrupt, n, s.pos, len(s.b))
	}
	p := s.b[s.pos : s.pos+int(n)]
	s.pos += int(n)
	return p, nil
}
