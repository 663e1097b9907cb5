package rdbio

import (
	"errors"
	"fmt"
	"io"
)

// StringScanner reads RDB lengths and strings from a byte slice, with the
// decoder the Reader uses (FORMAT.md §5): a value held whole, such as the
// bytes Value.Count wrote to a CappedBuffer (a linked list's `len n`, n ×
// `str`). Strings are decoded as a server reads them: raw bytes, an
// integer's decimal digits, LZF data decompressed. A string of more than limit bytes
// (stored or decoded) is ErrTooLarge; bytes that break the grammar (a
// length or string running past the slice, LZF data that does not decode
// to the length it claims, an encoding other than these three, such as
// rdbz's 0xC4) are ErrCorrupt. The scanner never changes the slice.
type StringScanner struct {
	in      *input
	limit   int
	scratch []byte
}

// NewStringScanner returns a scanner of b from its first byte, holding
// strings of at most limit bytes.
func NewStringScanner(b []byte, limit int) *StringScanner {
	return &StringScanner{in: sliceInput(b), limit: limit}
}

// Offset is how many bytes of the slice have been read.
func (s *StringScanner) Offset() int { return int(s.in.offset()) }

// Len reads a length; a special string encoding (a first byte 11xxxxxx)
// in its place is ErrCorrupt.
func (s *StringScanner) Len() (uint64, error) {
	n, err := s.in.readLen()
	return n, s.fail(err)
}

// String reads a string and appends its decoded bytes to dst[:0]. isInt
// says it was stored as an integer (its bytes are then the digits).
func (s *StringScanner) String(dst []byte) (str []byte, isInt bool, err error) {
	at := s.in.offset()
	str, isInt, err = s.in.readString(dst, s.limit, &s.scratch)
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, false, fmt.Errorf("%w: string at offset %d runs past the end of the %d-byte value", ErrCorrupt, at, s.in.end)
	}
	return str, isInt, s.fail(err)
}

// fail reports the end of the slice within a length as ErrCorrupt.
func (s *StringScanner) fail(err error) error {
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%w: length at offset %d runs past the end of the %d-byte value", ErrCorrupt, s.in.offset(), s.in.end)
	}
	return err
}
