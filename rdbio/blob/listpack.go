package blob

import (
	"encoding/binary"
	"math"
)

// A listpack (listpack.c, redis 7.0 and later) is a u32 total size and a u16
// entry count (65535: "unknown", count by walking), then the entries, then
// the end byte 0xFF. An entry is its encoding and data, then its
// back-length: the size of encoding and data, 7 bits a byte, most
// significant first. Encodings: 0xxxxxxx a 7-bit unsigned integer;
// 10xxxxxx a string of up to 63 bytes; 110xxxxx + 1 byte a 13-bit signed
// integer; 1110xxxx + 1 byte a string of up to 4095 bytes; 0xF0 + u32 a
// longer string; 0xF1, 0xF2, 0xF3, 0xF4 a 16, 24, 32 or 64-bit signed
// integer, little-endian.

const lpHeader = 6 // u32 total bytes, u16 count

// lpDecode decodes the entry at the start of b and returns it with the
// size of its encoding and data (not its back-length).
func lpDecode(b []byte) (Entry, int, bool) {
	c := b[0]
	le := func(n int) (int64, bool) { // an n-byte little-endian signed integer
		if len(b) < 1+n {
			return 0, false
		}
		return leSigned(b[1 : 1+n]), true
	}
	str := func(head, n int) (Entry, int, bool) {
		if n < 0 || len(b) < head+n {
			return Entry{}, 0, false
		}
		return Entry{Str: b[head : head+n]}, head + n, true
	}
	switch {
	case c&0x80 == 0: // 7-bit uint
		return Entry{IsInt: true, Int: int64(c)}, 1, true
	case c&0xC0 == 0x80: // 6-bit string length
		return str(1, int(c&0x3F))
	case c&0xE0 == 0xC0: // 13-bit int
		if len(b) < 2 {
			return Entry{}, 0, false
		}
		v := int64(c&0x1F)<<8 | int64(b[1])
		return Entry{IsInt: true, Int: v << 51 >> 51}, 2, true
	case c&0xF0 == 0xE0: // 12-bit string length
		if len(b) < 2 {
			return Entry{}, 0, false
		}
		return str(2, int(c&0x0F)<<8|int(b[1]))
	case c == 0xF0: // 32-bit string length
		if len(b) < 5 {
			return Entry{}, 0, false
		}
		return str(5, int(binary.LittleEndian.Uint32(b[1:])))
	case c >= 0xF1 && c <= 0xF4: // 16, 24, 32, 64-bit int
		n := [...]int{2, 3, 4, 8}[c-0xF1]
		v, ok := le(n)
		return Entry{IsInt: true, Int: v}, 1 + n, ok
	}
	return Entry{}, 0, false
}

// eachListpack calls fn with each entry of the listpack b until fn returns
// an error, which it returns; it fails (a *blobError) when b is not well
// formed (entries within b, ending with the 0xFF byte at its end) as far as
// it was walked.
func eachListpack(b []byte, fn func(Entry) error) error {
	for p := lpHeader; p < len(b); {
		if b[p] == endByte {
			if p != len(b)-1 {
				return fault(p, "end byte before the end")
			}
			return nil
		}
		e, size, ok := lpDecode(b[p:])
		if !ok {
			return fault(p, "entry past the end or encoding byte 0x%02x", b[p])
		}
		at := p
		p += size + backlenSize(size)
		if p > len(b) {
			return fault(at, "entry past the end")
		}
		if err := fn(e); err != nil {
			return err
		}
	}
	return fault(len(b), "no end byte")
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

// checkListpack: the size in the header is the blob's, the last byte
// 0xFF; deep: every entry within the blob, the count in the header right,
// whole elements without a field twice.
func checkListpack(b []byte, deep bool, per int) error {
	if len(b) <= lpHeader {
		return fault(0, "%d bytes, shorter than the header", len(b))
	}
	if n := binary.LittleEndian.Uint32(b); uint64(n) != uint64(len(b)) {
		return fault(0, "header says %d bytes, blob has %d", n, len(b))
	}
	if b[len(b)-1] != endByte {
		return fault(len(b)-1, "no end byte")
	}
	if !deep {
		return nil
	}
	fs := fieldSet{per: per}
	err := eachListpack(b, func(e Entry) error { fs.add(e); return nil })
	switch {
	case err != nil:
		return fault(0, "entries run past the blob")
	case !fs.whole():
		return fault(0, "%d entries, not a multiple of %d", fs.n, per)
	case fs.twice():
		return fault(0, "a field appears twice")
	}
	if h := binary.LittleEndian.Uint16(b[4:]); h != countUnknown16 && int(h) != fs.n {
		return fault(4, "header count %d, %d entries", h, fs.n)
	}
	return nil
}

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
	if err := growTo(Listpack, w.Size()+int(ListpackStringSize(int64(len(s)))), w.max); err != nil {
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
	if err := growTo(Listpack, w.Size()+int(ListpackIntSize(v)), w.max); err != nil {
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
	b := append(w.buf, endByte)
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

// ListpackStringSize is the size of an entry holding a string of n bytes
// that does not read as an integer.
func ListpackStringSize(n int64) int64 {
	var l int64
	switch {
	case n < 64:
		l = 1 + n
	case n < 4096:
		l = 2 + n
	default:
		l = 5 + n
	}
	return l + int64(backlenSize(int(l)))
}

// ListpackIntSize is the size of an entry holding the integer v.
func ListpackIntSize(v int64) int64 {
	if w := lpIntWidth(v); w > 0 {
		return int64(1+w) + 1
	}
	return 2
}
