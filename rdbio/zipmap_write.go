package rdbio

import (
	"encoding/binary"
	"strconv"
)

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
	if err := growTo(BlobZipmap, w.Size()+size, w.max); err != nil {
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
	b := append(w.buf, blobEnd)
	b[0] = byte(min(w.n/2, zipmapUnknown))
	return b
}
