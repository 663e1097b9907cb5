package rdbio

import (
	"bufio"
	"encoding/binary"
	"errors"
	"io"

	"github.com/rdbz/rdbz/rdbio/crc64"
)

// Writer writes an RDB stream: the magic on creation, then records as raw
// bytes or through the helpers, then the trailer on Close. It keeps the
// CRC64 of everything it writes.
type Writer struct {
	bw     *bufio.Writer
	crc    *crc64.Digest
	hdr    Header
	n      int64
	closed bool
	tr     Trailer
	scr    [24]byte
}

// NewWriter writes h's magic to w and returns a Writer for the records.
func NewWriter(w io.Writer, h Header) (*Writer, error) {
	if len(h.Magic) != 9 {
		return nil, errors.New("rdb: writer needs a 9-byte magic")
	}
	wr := &Writer{bw: bufio.NewWriterSize(w, bufSize), crc: crc64.New(), hdr: h}
	_, err := wr.Write([]byte(h.Magic))
	return wr, err
}

// Write writes raw bytes (part of records, as the Reader's sink).
func (w *Writer) Write(p []byte) (int, error) {
	if w.crc != nil {
		w.crc.Write(p)
	}
	n, err := w.bw.Write(p)
	w.n += int64(n)
	return n, err
}

// Written is the number of bytes written so far.
func (w *Writer) Written() int64 { return w.n }

// Checksum is the CRC-64 of the bytes written so far, the magic included
// (after Close, the EOF opcode too, not the trailer), or 0 when the
// Writer keeps none.
func (w *Writer) Checksum() uint64 {
	if w.crc == nil {
		return 0
	}
	return w.crc.Sum64()
}

// AppendLen appends n as an RDB length in its shortest form.
func AppendLen(dst []byte, n uint64) []byte {
	switch {
	case n < 1<<6:
		return append(dst, byte(n))
	case n < 1<<14:
		return append(dst, byte(n>>8)|0x40, byte(n))
	case n <= 0xFFFFFFFF:
		return binary.BigEndian.AppendUint32(append(dst, 0x80), uint32(n))
	}
	return binary.BigEndian.AppendUint64(append(dst, 0x81), n)
}

// WriteLen writes an RDB length.
func (w *Writer) WriteLen(n uint64) error {
	_, err := w.Write(AppendLen(w.scr[:0], n))
	return err
}

// WriteString writes s as a plain length-prefixed string.
func (w *Writer) WriteString(s []byte) error {
	if err := w.WriteLen(uint64(len(s))); err != nil {
		return err
	}
	_, err := w.Write(s)
	return err
}

// AppendStringHead appends the prefix of a string stored with enc: for
// EncRaw the length; for EncLZF 0xC3, clen, ulen; for EncZstd 0xC4, flags,
// clen, ulen. EncInt strings are written whole with Write.
func AppendStringHead(dst []byte, enc Enc, flags byte, size, ulen uint64) []byte {
	switch enc {
	case EncLZF:
		dst = append(dst, 0xC0|encLZF)
	case EncZstd:
		dst = append(dst, 0xC0|EncodingZstd, flags)
	default:
		return AppendLen(dst, size)
	}
	return AppendLen(AppendLen(dst, size), ulen)
}

// WriteNode writes a list node: the container length (when container is
// not 0, i.e. type 18), the string prefix for enc, and the payload.
func (w *Writer) WriteNode(container uint64, enc Enc, flags byte, ulen uint64, payload []byte) error {
	if err := w.writeNodeHead(container, enc, flags, ulen, len(payload)); err != nil {
		return err
	}
	_, err := w.Write(payload)
	return err
}

// WriteNodeSummed is WriteNode for a payload whose CRC64 (sum) the caller
// computed, on another goroutine: the Writer combines it with its running
// checksum instead of reading the payload again, so that the writing
// goroutine does not checksum every byte alone.
func (w *Writer) WriteNodeSummed(container uint64, enc Enc, flags byte, ulen uint64, payload []byte, sum uint64) error {
	if err := w.writeNodeHead(container, enc, flags, ulen, len(payload)); err != nil {
		return err
	}
	if w.crc != nil {
		w.crc.AddSum(sum, len(payload))
	}
	n, err := w.bw.Write(payload)
	w.n += int64(n)
	return err
}

func (w *Writer) writeNodeHead(container uint64, enc Enc, flags byte, ulen uint64, size int) error {
	b := w.scr[:0]
	if container != 0 {
		b = AppendLen(b, container)
	}
	b = AppendStringHead(b, enc, flags, uint64(size), ulen)
	_, err := w.Write(b)
	return err
}

// AppendAux appends an AUX record with plain strings.
func AppendAux(dst, name, value []byte) []byte {
	dst = append(dst, OpAux)
	dst = append(AppendLen(dst, uint64(len(name))), name...)
	return append(AppendLen(dst, uint64(len(value))), value...)
}

// WriteAux writes an AUX record with plain strings.
func (w *Writer) WriteAux(name, value []byte) error {
	if _, err := w.Write([]byte{OpAux}); err != nil {
		return err
	}
	if err := w.WriteString(name); err != nil {
		return err
	}
	return w.WriteString(value)
}

// Trailer says what checksum Close writes (TrailerCRC unless SetTrailer
// chose another).
type Trailer struct {
	kind  uint8
	value uint64
}

// Trailer choices.
var (
	TrailerCRC  = Trailer{kind: 0} // the CRC64 of what was written
	TrailerZero = Trailer{kind: 1} // a zero checksum (as the source had: disabled)
)

// TrailerValue is a trailer holding v as it is (an unchanged copy of a file
// whose stored checksum is kept, right or wrong).
func TrailerValue(v uint64) Trailer { return Trailer{kind: 2, value: v} }

// SetTrailer chooses the checksum that Close writes.
func (w *Writer) SetTrailer(t Trailer) { w.tr = t }

// Close writes the EOF opcode and, for RDB ≥ 5, the checksum (see
// SetTrailer), and flushes. It does not close the underlying writer.
func (w *Writer) Close() error {
	t := w.tr
	if w.closed {
		return nil
	}
	w.closed = true
	if _, err := w.Write([]byte{OpEOF}); err != nil {
		return err
	}
	if w.hdr.HasChecksum() {
		var sum uint64
		if w.crc != nil {
			sum = w.crc.Sum64()
		}
		switch t.kind {
		case 1:
			sum = 0
		case 2:
			sum = t.value
		}
		b := binary.LittleEndian.AppendUint64(w.scr[:0], sum)
		if _, err := w.bw.Write(b); err != nil {
			return err
		}
		w.n += 8
	}
	return w.bw.Flush()
}

// WriteRest writes bytes that follow the trailer (not checksummed).
func (w *Writer) WriteRest(p []byte) (int, error) {
	n, err := w.bw.Write(p)
	w.n += int64(n)
	return n, err
}

// Rest is an io.Writer of bytes that follow the trailer (WriteRest), for
// Reader.CopyRest.
func (w *Writer) Rest() io.Writer { return restWriter{w} }

type restWriter struct{ w *Writer }

func (r restWriter) Write(p []byte) (int, error) { return r.w.WriteRest(p) }

// Flush flushes buffered bytes to the underlying writer.
func (w *Writer) Flush() error { return w.bw.Flush() }

var _ io.WriteCloser = (*Writer)(nil)
