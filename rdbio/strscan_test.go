package rdbio

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// TestStringScanner reads back lengths of every size and strings stored
// raw, as integers of 1, 2 and 4 bytes and LZF, as a writer lays them out.
func TestStringScanner(t *testing.T) {
	long := []byte(strings.Repeat("abcdefgh", 100))
	comp := lzfCompressForTest(long)
	if len(comp) >= len(long) {
		t.Fatal("test LZF stream does not compress")
	}
	var b []byte
	lens := []uint64{0, 63, 64, 16383, 16384, 1 << 32}
	for _, n := range lens {
		b = AppendLen(b, n)
	}
	b = AppendLen(b, 3)
	b = append(b, "abc"...)
	b = append(b, 0xC0, 0xFB)       // -5
	b = append(b, 0xC1, 0x00, 0x80) // -32768
	b = append(b, 0xC2, 0x40, 0x42, 0x0F, 0x00)
	b = append(AppendStringHead(b, EncLZF, 0, uint64(len(comp)), uint64(len(long))), comp...)
	b = AppendLen(b, uint64(len(long)))
	b = append(b, long...)

	s := NewStringScanner(b, 1<<20)
	for _, want := range lens {
		got, err := s.Len()
		if err != nil || got != want {
			t.Fatalf("length %d: got %d, %v", want, got, err)
		}
	}
	for _, want := range []struct {
		s     string
		isInt bool
	}{{"abc", false}, {"-5", true}, {"-32768", true}, {"1000000", true}, {string(long), false}, {string(long), false}} {
		got, isInt, err := s.String(nil)
		if err != nil || string(got) != want.s || isInt != want.isInt {
			t.Fatalf("string %.20q: got %.20q (int %v), %v", want.s, got, isInt, err)
		}
	}
	if s.Offset() != len(b) {
		t.Fatalf("offset %d after reading all %d bytes", s.Offset(), len(b))
	}
}

// TestStringScannerRefuses: strings over the limit are ErrTooLarge;
// truncated ones, bad LZF, a special encoding where a length is expected
// and rdbz's 0xC4 are ErrCorrupt; the slice is left as it was.
func TestStringScannerRefuses(t *testing.T) {
	long := []byte(strings.Repeat("xyz", 50))
	comp := lzfCompressForTest(long)
	lzf := append(AppendStringHead(nil, EncLZF, 0, uint64(len(comp)), uint64(len(long))), comp...)
	// A back reference before any output.
	badLZF := []byte{0xC3, 2, 10, 0x20, 0x00}
	for _, c := range []struct {
		name  string
		b     []byte
		limit int
		want  error
	}{
		{"raw over the limit", append(AppendLen(nil, 200), make([]byte, 200)...), 100, ErrTooLarge},
		{"LZF over the limit", lzf, 100, ErrTooLarge},
		{"truncated raw", append(AppendLen(nil, 10), "abc"...), 100, ErrCorrupt},
		{"truncated length", []byte{0x80, 0, 0}, 100, ErrCorrupt},
		{"truncated int", []byte{0xC2, 1, 2}, 100, ErrCorrupt},
		{"truncated LZF", lzf[:len(lzf)-1], 1000, ErrCorrupt},
		{"empty", nil, 100, ErrCorrupt},
		{"bad length byte", []byte{0x85}, 100, ErrCorrupt},
		{"LZF that does not decode", badLZF, 100, ErrCorrupt},
		{"LZF claiming too much", []byte{0xC3, 1, 0x80, 0, 1, 0, 0, 0}, 1 << 20, ErrCorrupt},
		{"zstd node string", []byte{0xC4, 0, 1, 1, 0}, 100, ErrCorrupt},
	} {
		orig := bytes.Clone(c.b)
		_, _, err := NewStringScanner(c.b, c.limit).String(nil)
		if !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
		if !bytes.Equal(orig, c.b) {
			t.Errorf("%s: the slice changed", c.name)
		}
	}
	if _, err := NewStringScanner([]byte{0xC0, 1}, 10).Len(); !errors.Is(err, ErrCorrupt) {
		t.Errorf("an integer string where a length is expected: %v", err)
	}
}
