package blob

import (
	"encoding/binary"
	"math"
)

// A ziplist (ziplist.c, redis 2.6 to 6.2) is a u32 total size, the u32
// offset of the last entry and a u16 entry count (65535: "unknown", count
// by walking), then the entries, then the end byte 0xFF. An entry is the
// size of the previous entry (1 byte under 254, else 0xFE and a u32), its
// encoding and its data. The server reads the encoding byte c as
// ZIP_ENTRY_ENCODING does: below 0xC0 it is a string, and only its top two
// bits say which length follows (c&0xC0): 00 a 6-bit length in c, 01 a
// 14-bit length in c's low bits and the next byte, 10 a 32-bit big-endian
// length in the next 4 bytes (c's low bits ignored, so 0x81..0xBF read as
// 0x80). From 0xC0 on it is an integer: 0xC0, 0xD0, 0xE0 16, 32, 64 bits,
// 0xF0 24 bits, 0xFE 8 bits (little-endian, signed), 0xF1..0xFD the values
// 0..12 in c itself; any other byte is not an encoding.

const zlHeader = 10 // u32 total bytes, u32 tail offset, u16 count

// zlEntry is one decoded ziplist entry.
type zlEntry struct {
	entry   Entry
	prevlen uint64 // the previous-entry length it records
	size    int    // its bytes: previous-entry length, encoding, data
}

// zlDecode decodes the entry at offset p of the whole ziplist b, as
// zipEntrySafe does for the server's iterators: p is at least zlHeader and
// b[p] is not the end byte; the entry must end before b's last byte (where
// the end byte belongs) and its previous-entry length must not reach before
// the first entry. This is the one ziplist decoder: counting, walking,
// checking and re-encoding all read entries through it.
func zlDecode(b []byte, p int) (zlEntry, error) {
	last := len(b) - 1
	pls := 1
	if b[p] >= 254 {
		pls = 5
	}
	if p+pls > last {
		return zlEntry{}, fault(p, "entry header past the end")
	}
	prevlen := uint64(b[p])
	if pls == 5 {
		prevlen = uint64(binary.LittleEndian.Uint32(b[p+1:]))
	}
	at := p + pls
	c := b[at]
	lensize, n := zlEncoding(c)
	if lensize == 0 {
		return zlEntry{}, fault(at, "encoding byte 0x%02x", c)
	}
	if at+lensize > last {
		return zlEntry{}, fault(p, "entry header past the end")
	}
	switch c & 0xC0 {
	case 0x00:
		n = uint64(c & 0x3F)
	case 0x40:
		n = uint64(c&0x3F)<<8 | uint64(b[at+1])
	case 0x80:
		n = uint64(binary.BigEndian.Uint32(b[at+1:]))
	}
	size := uint64(pls+lensize) + n
	if uint64(p)+size > uint64(last) {
		return zlEntry{}, fault(p, "entry of %d bytes past the end", size)
	}
	if prevlen > uint64(p-zlHeader) {
		return zlEntry{}, fault(p, "previous-entry length %d before the first entry", prevlen)
	}
	e := zlEntry{prevlen: prevlen, size: int(size)}
	d := b[at+lensize : p+int(size)]
	switch {
	case c < 0xC0:
		e.entry.Str = d
	case c >= 0xF1 && c <= 0xFD:
		e.entry = Entry{IsInt: true, Int: int64(c&0x0F) - 1}
	default:
		e.entry = Entry{IsInt: true, Int: leSigned(d)}
	}
	return e, nil
}

// zlEncoding gives the size of the encoding field that starts with byte c
// (0: not an encoding) and, for integers, the size of their data.
func zlEncoding(c byte) (int, uint64) {
	switch {
	case c < 0xC0:
		return [...]int{1, 2, 5}[c>>6], 0
	case c == 0xC0:
		return 1, 2
	case c == 0xD0:
		return 1, 4
	case c == 0xE0:
		return 1, 8
	case c == 0xF0:
		return 1, 3
	case c == 0xFE:
		return 1, 1
	case c >= 0xF1 && c <= 0xFD:
		return 1, 0
	}
	return 0, 0
}

// eachZiplist calls fn with the offset and decoding of each entry of the
// whole ziplist b (zlDecode) until fn returns an error, which it returns; it
// fails (a *blobError) when b is not well formed as far as it was walked,
// or when the entries do not end at b's last byte.
func eachZiplist(b []byte, fn func(at int, e zlEntry) error) error {
	if len(b) <= zlHeader {
		return fault(0, "%d bytes, shorter than the header", len(b))
	}
	p := zlHeader
	for b[p] != endByte {
		e, err := zlDecode(b, p)
		if err != nil {
			return err
		}
		if err := fn(p, e); err != nil {
			return err
		}
		p += e.size
	}
	if p != len(b)-1 {
		return fault(p, "end byte before the end")
	}
	return nil
}

// checkZiplist: header size, end byte and tail offset; deep: each entry
// within the blob with a valid encoding and a previous-entry length equal
// to the previous entry's size, the tail offset at the last entry, the
// header count right, whole elements without a field twice.
func checkZiplist(b []byte, deep bool, per int) error {
	size := len(b)
	if size <= zlHeader {
		return fault(0, "%d bytes, shorter than the header", size)
	}
	if n := binary.LittleEndian.Uint32(b); uint64(n) != uint64(size) {
		return fault(0, "header says %d bytes, blob has %d", n, size)
	}
	if b[size-1] != endByte {
		return fault(size-1, "no end byte")
	}
	tail := binary.LittleEndian.Uint32(b[4:])
	if uint64(tail) > uint64(size-1) {
		return fault(4, "tail offset %d past the end", tail)
	}
	if !deep {
		return nil
	}
	fs := fieldSet{per: per}
	prev, prevSize := -1, 0
	err := eachZiplist(b, func(at int, e zlEntry) error {
		if e.prevlen != uint64(prevSize) {
			return fault(at, "previous-entry length %d, previous entry %d bytes", e.prevlen, prevSize)
		}
		fs.add(e.entry)
		prev, prevSize = at, e.size
		return nil
	})
	switch {
	case err != nil:
		return err
	case prev >= 0 && uint32(prev) != tail:
		return fault(4, "tail offset %d, last entry at %d", tail, prev)
	case !fs.whole():
		return fault(size-1, "%d entries, not a multiple of %d", fs.n, per)
	case fs.twice():
		return fault(zlHeader, "a field appears twice")
	}
	if h := binary.LittleEndian.Uint16(b[8:]); h != countUnknown16 && int(h) != fs.n {
		return fault(8, "header count %d, %d entries", h, fs.n)
	}
	return nil
}

// ZiplistWriter builds a ziplist as ziplist.c does when pushing at the
// tail: each entry's previous-entry length in 1 byte (under 254) or 5,
// strings of under 32 bytes that read as integers in the smallest integer
// encoding (zipTryEncoding: 0–12 in the encoding byte, then 8, 16, 24, 32
// or 64 bits), other strings with a 6-, 14- or 32-bit length; the header
// holds the total size, the offset of the last entry and the count (65535
// from 65535 entries on). The zero value is unusable: use
// NewZiplistWriter.
type ZiplistWriter struct {
	blobBuf
	tail, prev int // the last entry's offset and size
}

// NewZiplistWriter returns a writer of ziplists of at most max bytes.
func NewZiplistWriter(max int) *ZiplistWriter {
	return &ZiplistWriter{blobBuf: newBlobBuf(max, zlHeader), tail: zlHeader}
}

// Reset empties the writer.
func (w *ZiplistWriter) Reset() {
	w.blobBuf.Reset()
	w.tail, w.prev = zlHeader, 0
}

// Append adds e.
func (w *ZiplistWriter) Append(e Entry) error {
	if e.IsInt {
		return w.AppendInt(e.Int)
	}
	return w.AppendString(e.Str)
}

// AppendString adds s: as an integer when it reads as one (RedisInt).
func (w *ZiplistWriter) AppendString(s []byte) error {
	if v, ok := RedisInt(s); ok {
		return w.AppendInt(v)
	}
	b, err := w.entry(zlPrevlenSize(w.prev) + zlStrHeadSize(len(s)) + len(s))
	if err != nil {
		return err
	}
	w.buf = append(appendZiplistStrHead(b, uint64(len(s))), s...)
	return nil
}

// AppendInt adds the integer v.
func (w *ZiplistWriter) AppendInt(v int64) error {
	enc, width := zlIntEncoding(v)
	b, err := w.entry(zlPrevlenSize(w.prev) + 1 + width)
	if err != nil {
		return err
	}
	w.buf = appendLE(append(b, enc), uint64(v), width)
	return nil
}

// entry checks room for an entry of size bytes, appends its
// previous-entry length and records it as the last entry.
func (w *ZiplistWriter) entry(size int) ([]byte, error) {
	if err := growTo(Ziplist, w.Size()+size, w.max); err != nil {
		return nil, err
	}
	b := append(w.buf, byte(w.prev))
	if w.prev >= 254 {
		b = binary.LittleEndian.AppendUint32(append(w.buf, 0xFE), uint32(w.prev))
	}
	w.tail, w.prev = len(w.buf), size
	w.n++
	return b, nil
}

// Bytes finishes the ziplist: header and end byte.
func (w *ZiplistWriter) Bytes() []byte {
	b := append(w.buf, endByte)
	putZiplistHeader(b, len(b), w.tail, w.n)
	return b
}

// putZiplistHeader writes a ziplist's size, tail offset and count (65535
// when the count is 65535 or more).
func putZiplistHeader(b []byte, size, tail, n int) {
	binary.LittleEndian.PutUint32(b, uint32(size))
	binary.LittleEndian.PutUint32(b[4:], uint32(tail))
	binary.LittleEndian.PutUint16(b[8:], uint16(min(n, countUnknown16)))
}

// zlPrevlenSize is the size of a previous-entry length field holding l.
func zlPrevlenSize(l int) int {
	if l < 254 {
		return 1
	}
	return 5
}

// zlStrHeadSize is the size of the encoding of a string of n bytes.
func zlStrHeadSize(n int) int {
	switch {
	case n <= 0x3F:
		return 1
	case n <= 0x3FFF:
		return 2
	}
	return 5
}

// appendZiplistStrHead appends the encoding of a string of n bytes.
func appendZiplistStrHead(b []byte, n uint64) []byte {
	switch {
	case n <= 0x3F:
		return append(b, byte(n))
	case n <= 0x3FFF:
		return append(b, 0x40|byte(n>>8), byte(n))
	}
	return binary.BigEndian.AppendUint32(append(b, 0x80), uint32(n))
}

// zlIntEncoding is the encoding byte ziplist.c gives the integer v and
// the number of data bytes after it.
func zlIntEncoding(v int64) (byte, int) {
	switch {
	case v >= 0 && v <= 12:
		return 0xF1 + byte(v), 0
	case v >= math.MinInt8 && v <= math.MaxInt8:
		return 0xFE, 1
	case v >= math.MinInt16 && v <= math.MaxInt16:
		return 0xC0, 2
	case v >= -1<<23 && v < 1<<23:
		return 0xF0, 3
	case v >= math.MinInt32 && v <= math.MaxInt32:
		return 0xD0, 4
	}
	return 0xE0, 8
}
