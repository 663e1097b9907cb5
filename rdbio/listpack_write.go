package rdbio

import (
	"encoding/binary"
	"math"
)

// ListpackWriter builds a listpack as listpack.c does (lpAppend): each
// string that reads as an integer in the smallest integer encoding, other
// strings with a 6-, 12- or 32-bit length, every entry followed by its
// back-length; the header holds the total size and the entry count (65535
// from 65535 entries on: "unknown"). The zero value is unusable: use
// NewListpackWriter.
type ListpackWriter struct{ blobBuf }

// NewListpackWriter returns a writer of listpacks of at most max bytes.
func NewListpackWriter(max int) *ListpackWriter {
	return &ListpackWriter{newBlobBuf(max, lpHeader)}
}

const lpHeader = 6 // u32 total bytes, u16 count

// Append adds e.
func (w *ListpackWriter) Append(e Entry) error {
	if e.IsInt {
		return w.AppendInt(e.Int)
	}
	return w.AppendString(e.Str)
}

// AppendString adds s: as an integer when it reads as one (RedisInt).
func (w *ListpackWriter) AppendString(s []byte) error {
	if v, ok := RedisInt(s); ok {
		return w.AppendInt(v)
	}
	if err := growTo(BlobListpack, w.Size()+int(ListpackStringSize(int64(len(s)))), w.max); err != nil {
		return err
	}
	at := len(w.buf)
	w.buf = append(appendListpackStrHead(w.buf, uint64(len(s))), s...)
	w.buf = appendBacklen(w.buf, uint64(len(w.buf)-at))
	w.n++
	return nil
}

// AppendInt adds the integer v.
func (w *ListpackWriter) AppendInt(v int64) error {
	if err := growTo(BlobListpack, w.Size()+int(ListpackIntSize(v)), w.max); err != nil {
		return err
	}
	at := len(w.buf)
	w.buf = appendListpackInt(w.buf, v)
	w.buf = appendBacklen(w.buf, uint64(len(w.buf)-at))
	w.n++
	return nil
}

// Bytes finishes the listpack: header and end byte.
func (w *ListpackWriter) Bytes() []byte {
	b := append(w.buf, blobEnd)
	putListpackHeader(b, len(b), w.n)
	return b
}

// putListpackHeader writes a listpack's size and count (65535 when the
// count is 65535 or more).
func putListpackHeader(b []byte, size, n int) {
	binary.LittleEndian.PutUint32(b, uint32(size))
	binary.LittleEndian.PutUint16(b[4:], uint16(min(n, countUnknown16)))
}

// appendListpackStrHead appends the encoding of a string of n bytes.
func appendListpackStrHead(b []byte, n uint64) []byte {
	switch {
	case n < 64:
		return append(b, 0x80|byte(n))
	case n < 4096:
		return append(b, 0xE0|byte(n>>8), byte(n))
	}
	return binary.LittleEndian.AppendUint32(append(b, 0xF0), uint32(n))
}

// lpIntWidth is how many data bytes listpack.c gives the integer v after
// its encoding byte: 0 (7-bit, in the byte), 1 (13-bit), 2, 3, 4 or 8.
func lpIntWidth(v int64) int {
	switch {
	case v >= 0 && v <= 127:
		return 0
	case v >= -4096 && v <= 4095:
		return 1
	case v >= math.MinInt16 && v <= math.MaxInt16:
		return 2
	case v >= -1<<23 && v < 1<<23:
		return 3
	case v >= math.MinInt32 && v <= math.MaxInt32:
		return 4
	}
	return 8
}

// appendListpackInt appends the encoding and data of the integer v.
func appendListpackInt(b []byte, v int64) []byte {
	switch w := lpIntWidth(v); w {
	case 0:
		return append(b, byte(v))
	case 1:
		u := uint64(v) & 0x1FFF
		return append(b, 0xC0|byte(u>>8), byte(u))
	default:
		return appendLE(append(b, [...]byte{2: 0xF1, 3: 0xF2, 4: 0xF3, 8: 0xF4}[w]), uint64(v), w)
	}
}

// appendLE appends the n low bytes of u, least significant first.
func appendLE(b []byte, u uint64, n int) []byte {
	for i := 0; i < n; i++ {
		b = append(b, byte(u>>(8*i)))
	}
	return b
}

// appendBacklen appends the back-length of an entry of l bytes: 7 bits a
// byte, the most significant first, every byte but the first with bit 7
// set.
func appendBacklen(b []byte, l uint64) []byte {
	k := backlenSize(int(min(l, math.MaxInt)))
	for i := k - 1; i >= 0; i-- {
		c := byte(l>>(7*i)) & 0x7F
		if i != k-1 {
			c |= 0x80
		}
		b = append(b, c)
	}
	return b
}
