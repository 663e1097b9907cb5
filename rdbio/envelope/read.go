package envelope

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// MaxZstdWindow bounds the window of a zstd stream Open reads (the memory
// its decoder holds); zstd levels up to 19 use at most 8 MiB.
const MaxZstdWindow = 64 << 20

// Open peeks at the first bytes of r. An input that starts with "VKCS" must
// be a valid envelope (else an *Error naming the offset and the value):
// Open returns a reader of the RDB inside and what the envelope says. Any
// other input is returned unchanged (the peeked bytes, then r itself) with
// the zero Info. The inner reader's errors are *Errors naming the file
// offset and the inner RDB's; it reads one LZ4 frame (bounded by the
// frame's block size, at most 4 MiB) or zstd frames (window at most
// MaxZstdWindow), and refuses data after the LZ4 frame.
func Open(r io.Reader) (io.Reader, Info, error) {
	head := make([]byte, Size)
	n, err := io.ReadFull(r, head)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, Info{}, err
	}
	if n < len(Magic) || string(head[:len(Magic)]) != Magic {
		return io.MultiReader(bytes.NewReader(head[:n]), r), Info{}, nil
	}
	if n < Size {
		return nil, Info{}, headerError(int64(n), ErrTruncated, "envelope header of %d bytes, want %d", n, Size)
	}
	info, err := parseHeader(head)
	if err != nil {
		return nil, info, err
	}
	if info.Codec == CodecZstd {
		return openZstd(r, info)
	}
	return openLZ4(r, info)
}

// openLZ4 reads the LZ4 frame header after the envelope and returns the
// frame's reader.
func openLZ4(r io.Reader, info Info) (io.Reader, Info, error) {
	hdr := make([]byte, 6, 6+8+1) // magic, FLG, BD [, content size], HC
	if n, err := io.ReadFull(r, hdr); err != nil {
		return nil, info, readError(Size+int64(n), -1, "LZ4 frame header", err)
	}
	if m := binary.LittleEndian.Uint32(hdr); m != lz4Magic {
		return nil, info, headerError(Size, ErrCorrupt, "LZ4 frame magic %#08x, want %#08x", m, lz4Magic)
	}
	info.LZ4 = Frame{FLG: hdr[4], BD: hdr[5]}
	if err := info.LZ4.check(); err != nil {
		return nil, info, err
	}
	rest := 1
	if info.LZ4.HasContentSize() {
		rest += 8
	}
	hdr = hdr[:6+rest]
	if n, err := io.ReadFull(r, hdr[6:]); err != nil {
		return nil, info, readError(Size+6+int64(n), -1, "LZ4 frame header", err)
	}
	if info.LZ4.HasContentSize() {
		info.LZ4.ContentSize = binary.LittleEndian.Uint64(hdr[6:])
	}
	w := &walker{r: r, off: Size + int64(len(hdr)), block: Size, frame: info.LZ4}
	zr := lz4.NewReader(io.MultiReader(bytes.NewReader(hdr), w))
	return &lz4Reader{zr: zr, w: w}, info, nil
}

// readError is an *Error for a read of the source that failed at off:
// the file ends there (ErrTruncated) or the read itself failed.
func readError(off, inner int64, what string, err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return &Error{Offset: off, Inner: inner, What: what, Err: ErrTruncated}
	}
	return &Error{Offset: off, Inner: inner, What: what + ": read", Err: err}
}

// lz4Reader is the inner RDB of an LZ4 envelope.
type lz4Reader struct {
	zr    *lz4.Reader
	w     *walker
	inner int64 // bytes given out
	err   error
}

func (r *lz4Reader) Read(p []byte) (int, error) {
	if r.err != nil {
		return 0, r.err
	}
	n, err := r.zr.Read(p)
	r.inner += int64(n)
	switch {
	case err == io.EOF:
		err = r.w.after(r.inner)
		if err == nil {
			err = io.EOF
		}
	case err != nil:
		err = r.w.wrap(err, r.inner)
	}
	if err != nil {
		r.err = err
	}
	return n, err
}

// walker follows the LZ4 frame's block structure as pierrec/lz4 reads it
// (block size, data, block checksum; the end mark; the content checksum),
// so that errors name the offset of the block being read, a block larger
// than the frame's block size is refused before it is read, and the frame
// ends where its end mark and checksum do: the decoder never reads past it.
type walker struct {
	r     io.Reader
	frame Frame
	off   int64 // file offset of the next byte of r
	block int64 // file offset of the block being read (the frame's, in its header)
	state walkState
	need  int64 // bytes left of the current piece (size field: of 4)
	size  [4]byte
	done  bool // after() ran
}

type walkState uint8

const (
	walkSize walkState = iota // the block size field, or the end mark
	walkData
	walkBlockSum
	walkContentSum
	walkEnd
)

func (w *walker) Read(p []byte) (int, error) {
	if w.state == walkEnd {
		return 0, io.EOF
	}
	if w.state == walkSize && w.need == 0 {
		w.need, w.block = 4, w.off
	}
	if int64(len(p)) > w.need {
		p = p[:w.need]
	}
	n, err := w.r.Read(p)
	if w.state == walkSize {
		copy(w.size[4-w.need:], p[:n])
	}
	w.off += int64(n)
	w.need -= int64(n)
	if w.need == 0 {
		if serr := w.next(); serr != nil {
			return 0, serr // not n: io.ReadFull would drop the error
		}
	}
	if err != nil && w.state != walkEnd {
		return n, readError(w.off, -1, w.piece(), err)
	}
	return n, nil
}

// next moves past a piece that was read whole.
func (w *walker) next() error {
	switch w.state {
	case walkSize:
		x := binary.LittleEndian.Uint32(w.size[:])
		size := int64(x &^ (1 << 31))
		switch {
		case x == 0 && w.frame.ContentChecksum():
			w.state, w.need = walkContentSum, 4
		case x == 0:
			w.state = walkEnd
		case size > int64(w.frame.BlockMax()):
			return &Error{Offset: w.block, Inner: -1, What: "LZ4 block",
				Err: fmt.Errorf("%w: block of %d bytes over the frame's %d", ErrCorrupt, size, w.frame.BlockMax())}
		default:
			w.state, w.need = walkData, size
		}
	case walkData:
		if w.frame.BlockChecksum() {
			w.state, w.need = walkBlockSum, 4
		} else {
			w.state = walkSize
		}
	case walkBlockSum:
		w.state = walkSize
	case walkContentSum:
		w.state = walkEnd
	}
	return nil
}

// piece names what is being read, for errors.
func (w *walker) piece() string {
	switch w.state {
	case walkSize:
		return fmt.Sprintf("LZ4 frame: block size at file offset %d", w.block)
	case walkData, walkBlockSum:
		return fmt.Sprintf("LZ4 block at file offset %d", w.block)
	}
	return "LZ4 frame: content checksum"
}

// wrap turns a decoder error into an *Error at the block being read.
func (w *walker) wrap(err error, inner int64) error {
	var e *Error
	if errors.As(err, &e) {
		if e.Inner < 0 {
			e.Inner = inner
		}
		return e
	}
	what := fmt.Sprintf("LZ4 block at file offset %d", w.block)
	if w.block == Size {
		what = "LZ4 frame header"
	} else if w.state == walkEnd {
		what = "LZ4 frame end"
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return &Error{Offset: w.off, Inner: inner, What: what, Err: ErrTruncated}
	}
	return &Error{Offset: w.block, Inner: inner, What: what, Err: fmt.Errorf("%w: %w", ErrCorrupt, err)}
}

// after checks, once the frame has ended, that nothing follows it.
func (w *walker) after(inner int64) error {
	if w.done {
		return nil
	}
	w.done = true
	var b [1]byte
	n, err := io.ReadFull(w.r, b[:])
	switch {
	case n > 0:
		return &Error{Offset: w.off, Inner: inner, What: "after the LZ4 frame",
			Err: fmt.Errorf("%w: data after the frame's end (Valkey ignores it; rdbz would not keep it)", ErrCorrupt)}
	case errors.Is(err, io.EOF):
		return nil
	}
	return readError(w.off, inner, "after the LZ4 frame", err)
}

// openZstd returns the reader of a zstd envelope's frames.
func openZstd(r io.Reader, info Info) (io.Reader, Info, error) {
	cr := &countReader{r: r, n: Size}
	d, err := zstd.NewReader(cr, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true),
		zstd.WithDecoderMaxWindow(MaxZstdWindow))
	if err != nil {
		return nil, info, headerError(Size, ErrCorrupt, "zstd stream: %v", err)
	}
	return &zstdReader{d: d, cr: cr}, info, nil
}

// zstdReader is the inner RDB of a zstd envelope.
type zstdReader struct {
	d     *zstd.Decoder
	cr    *countReader
	inner int64
}

func (r *zstdReader) Read(p []byte) (int, error) {
	n, err := r.d.Read(p)
	r.inner += int64(n)
	if err != nil && err != io.EOF {
		var e *Error
		if !errors.As(err, &e) {
			what := fmt.Sprintf("zstd stream, %d bytes read", r.cr.n)
			err = &Error{Offset: r.cr.n, Inner: r.inner, What: what, Err: fmt.Errorf("%w: %w", ErrCorrupt, err)}
		}
	}
	return n, err
}

// countReader counts the bytes read through it, from n on.
type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
