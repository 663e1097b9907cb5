package blob

import (
	"encoding/binary"
	"strconv"
)

// A zipmap (zipmap.c, the hashes of redis 2.4 and older) is a pair count
// in its first byte (254: "unknown", count by walking), then fields and
// values in turn, then the end byte 0xFF. A field is its length and its
// bytes; a value is its length, a count of free bytes (1 byte), its bytes
// and the free bytes. A length is one byte under 254, else (0xFE, and as
// the server reads it 0xFF too) a u32 that follows, little-endian.

// zipmapLen reads the length at p and returns it with the offset after it;
// ok is false when the length field reaches b's last byte (where the end
// byte belongs).
func zipmapLen(b []byte, p uint64) (l uint32, next uint64, ok bool) {
	s := uint64(1)
	if b[p] >= 254 {
		s = 5
	}
	if p+s > uint64(len(b)-1) {
		return 0, 0, false
	}
	if s == 1 {
		return uint32(b[p]), p + 1, true
	}
	return binary.LittleEndian.Uint32(b[p+1:]), p + 5, true
}

// zipmapPair decodes the field and value at offset p of the zipmap b, as
// zipmapValidateIntegrity reads them (the value's length and free bytes
// added in 32 bits), and returns the offset after them, which is before
// b's last byte. This is the one zipmap decoder: counting, walking,
// checking and re-encoding all read pairs through it.
func zipmapPair(b []byte, p uint64) (field, value []byte, next uint64, err error) {
	last, start := uint64(len(b)-1), int(p)
	l, p, ok := zipmapLen(b, p)
	if !ok {
		return nil, nil, 0, fault(start, "field length past the end")
	}
	if p+uint64(l) > last {
		return nil, nil, 0, fault(start, "field of %d bytes past the end", l)
	}
	field = b[p : p+uint64(l)]
	l, p, ok = zipmapLen(b, p+uint64(l))
	if !ok {
		return nil, nil, 0, fault(start, "value length past the end")
	}
	free := uint32(b[p])
	p++
	next = p + uint64(l+free) // 32-bit, as the server adds them
	if next > last || p+uint64(l) > last {
		return nil, nil, 0, fault(start, "value of %d bytes past the end", l)
	}
	return field, b[p : p+uint64(l)], next, nil
}

// eachZipmap calls fn with each field and value of the zipmap b in turn
// (zipmapPair) until fn returns an error, which it
// returns; it fails (a *blobError) when b is malformed as far as it was
// walked. It stops at the first end byte.
func eachZipmap(b []byte, fn func(s []byte) error) error {
	if len(b) < 2 {
		return fault(0, "%d bytes, shorter than the header", len(b))
	}
	p := uint64(1)
	for b[p] != endByte {
		field, value, next, err := zipmapPair(b, p)
		if err != nil {
			return err
		}
		if err := fn(field); err != nil {
			return err
		}
		if err := fn(value); err != nil {
			return err
		}
		p = next
	}
	return nil
}

// eachZipmapString is eachZipmap for walking a whole zipmap, whose last
// byte must be the end byte. The walk stops at the first end byte, as the
// server's (zipmapNext) does: bytes between it and the last byte are not
// read.
func eachZipmapString(b []byte, fn func(s []byte) error) error {
	if err := eachZipmap(b, fn); err != nil {
		return err
	}
	if b[len(b)-1] != endByte {
		return fault(len(b)-1, "no end byte")
	}
	return nil
}

// checkZipmap: at least 2 bytes ending with 0xFF; deep: every field and
// value within the blob, at least one pair, the count in the first byte
// right (unless 254), no field twice.
func checkZipmap(b []byte, deep bool) error {
	size := len(b)
	if size < 2 {
		return fault(0, "%d bytes, shorter than the header", size)
	}
	if b[size-1] != endByte {
		return fault(size-1, "no end byte")
	}
	if !deep {
		return nil
	}
	fs := fieldSet{per: 2}
	if err := eachZipmap(b, func(s []byte) error { fs.add(Entry{Str: s}); return nil }); err != nil {
		return err
	}
	count := fs.n / 2
	if count == 0 {
		return fault(1, "no pair")
	}
	if fs.twice() {
		return fault(1, "a field appears twice")
	}
	if b[0] != zipmapUnknown && int(b[0]) != count {
		return fault(0, "header count %d, %d pairs", b[0], count)
	}
	return nil
}

// ZipmapWriter builds a zipmap (type 9, written by redis 2.4 only) as
// zipmap.c's zipmapSet does for new fields: entries are fields and values
// in turn, each length in 1 byte (under 254) or 0xFE and a u32, every
// value with 0 free bytes; the first byte is the pair count (254 from 254
// pairs on: "unknown"). Integers are written as their digits. It is here
// to make inputs for conversions up from zipmaps (Recode reads them). The
// zero value is unusable: use NewZipmapWriter.
type ZipmapWriter struct{ blobBuf }

// NewZipmapWriter returns a writer of zipmaps of at most max bytes.
func NewZipmapWriter(max int) *ZipmapWriter { return &ZipmapWriter{newBlobBuf(max, 1)} }

// Append adds e: a field, or the value of the field before it.
func (w *ZipmapWriter) Append(e Entry) error {
	if e.IsInt {
		return w.AppendInt(e.Int)
	}
	return w.AppendString(e.Str)
}

// AppendInt adds the digits of v.
func (w *ZipmapWriter) AppendInt(v int64) error {
	var d [20]byte
	return w.AppendString(strconv.AppendInt(d[:0], v, 10))
}

// AppendString adds s: a field, or the value of the field before it.
func (w *ZipmapWriter) AppendString(s []byte) error {
	size := 1 + len(s)
	if len(s) >= 254 {
		size += 4
	}
	if w.n%2 == 1 {
		size++ // the value's free-bytes count
	}
	if err := growTo(Zipmap, w.Size()+size, w.max); err != nil {
		return err
	}
	if len(s) < 254 {
		w.buf = append(w.buf, byte(len(s)))
	} else {
		w.buf = binary.LittleEndian.AppendUint32(append(w.buf, 0xFE), uint32(len(s)))
	}
	if w.n%2 == 1 {
		w.buf = append(w.buf, 0)
	}
	w.buf = append(w.buf, s...)
	w.n++
	return nil
}

// Bytes finishes the zipmap: count and end byte. A field without its
// value makes a malformed zipmap.
func (w *ZipmapWriter) Bytes() []byte {
	b := append(w.buf, endByte)
	b[0] = byte(min(w.n/2, zipmapUnknown))
	return b
}
