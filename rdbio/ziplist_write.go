package rdbio

import (
	"encoding/binary"
	"math"
)

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

const zlHeader = 10 // u32 total bytes, u32 tail offset, u16 count

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
	if err := growTo(BlobZiplist, w.Size()+size, w.max); err != nil {
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
	b := append(w.buf, blobEnd)
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
