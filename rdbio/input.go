package rdbio

import (
	"errors"
	"io"
	"slices"

	"github.com/rdbz/rdbz/rdbio/crc64"
)

// bufSize is the input window at its largest. Every consumed byte passes
// through it once; a long string streams through it in pieces of the
// window.
const bufSize = 256 << 10

// firstBufSize is the window a reader starts with: it doubles each time
// the input outlasts it, up to bufSize, so a small file (or a test's many
// readers of one) does not clear 256 KiB it never uses, and a large one
// reaches the full window after a few hundred KiB.
const firstBufSize = 16 << 10

// input is a buffered reader that knows its offset, keeps a CRC64 of every
// consumed byte, and hands consumed bytes on to a sink (out) in large spans.
//
// Bytes buf[mark:pos] have been consumed but not yet sent to out (flush),
// buf[sumMark:mark] sent but not yet checksummed (settle). fill does both
// before it moves the window, so a slice returned by take is valid only
// until the next fill.
type input struct {
	src     io.Reader
	buf     []byte
	pos     int           // next unread byte
	end     int           // end of valid data
	mark    int           // start of consumed bytes not yet flushed
	sumMark int           // start of flushed bytes not yet summed: buf[sumMark:mark]
	base    int64         // input offset of buf[0]
	crc     *crc64.Digest // the CRC64 of the bytes summed (a background sum once it ends); nil: none
	out     io.Writer     // receives consumed bytes; nil discards them
	eof     bool
	// spare is the window's other buffer: the unread bytes move there
	// while the window's consumed ones are summed in the background.
	spare []byte
	sum   bgSum // the window summed in the background
}

// newInput is an input over src; sum: with a CRC64 of what it consumes.
func newInput(src io.Reader, sum bool) *input {
	in := &input{src: src, buf: make([]byte, firstBufSize)}
	if sum {
		in.crc = crc64.New()
	}
	return in
}

// sliceInput is an input over b alone, which it never changes (and does
// not sum).
func sliceInput(b []byte) *input {
	return &input{buf: b, end: len(b), eof: true}
}

// offset is the input offset of the next unread byte.
func (in *input) offset() int64 { return in.base + int64(in.pos) }

// flush passes the consumed span on to the sink. Its CRC waits until the
// window moves (settle): a record's value goes to a sink of its own, so
// spans are short, and summed at once one by one they were a quarter of
// info's CPU, on the reading goroutine.
func (in *input) flush() error {
	if in.pos == in.mark {
		return nil
	}
	span := in.buf[in.mark:in.pos]
	in.mark = in.pos
	if in.out != nil {
		if _, err := in.out.Write(span); err != nil {
			return &sinkError{err}
		}
	}
	return nil
}

// settle sums the bytes flushed and not summed yet: in the background
// when they are many (bgSum).
func (in *input) settle() {
	span := in.buf[in.sumMark:in.mark]
	in.sumMark = in.mark
	if in.crc == nil {
		return
	}
	// The sum running ends first, whatever comes next: it may be of the
	// spare buffer, which move is about to fill.
	in.sum.wait(in.crc)
	if len(span) > 0 && !in.sum.start(in.crc, span) {
		in.crc.Write(span)
	}
}

// checksum adds consumed bytes that went past the window (tailCheck) to
// the CRC64, if any, after those flushed before them.
func (in *input) checksum(p []byte) {
	in.settle()
	if in.crc != nil && !in.sum.after(p) {
		in.crc.Write(p)
	}
}

// passed marks every byte up to pos flushed and summed (or left out of
// the sum) by the caller.
func (in *input) passed() { in.mark, in.sumMark = in.pos, in.pos }

// consumedSum is the CRC64 of the bytes consumed so far (0 without one).
func (in *input) consumedSum() uint64 {
	if in.crc == nil {
		return 0
	}
	return crc64.Update(in.crcSum(), in.buf[in.sumMark:in.pos])
}

// crcSum is the CRC64 of the bytes flushed so far (0 without one).
func (in *input) crcSum() uint64 {
	if in.crc == nil {
		return 0
	}
	in.settle()
	in.sum.wait(in.crc)
	return in.crc.Sum64()
}

// setOut flushes what is pending to the current sink and switches sinks.
func (in *input) setOut(w io.Writer) error {
	err := in.flush()
	in.out = w
	return err
}

// fill makes at least n (≤ len(buf)) unread bytes available, or fails with
// io.ErrUnexpectedEOF.
func (in *input) fill(n int) error {
	if in.end-in.pos >= n {
		return nil
	}
	if in.src == nil { // a sliceInput: nothing more to come, nothing to move
		return io.ErrUnexpectedEOF
	}
	if err := in.flush(); err != nil {
		return err
	}
	in.settle()
	if len(in.buf) < bufSize && (in.end == len(in.buf) || n > len(in.buf)) {
		in.grow(n)
	} else if in.pos > 0 {
		in.move()
	}
	for in.end < n {
		if in.eof {
			return io.ErrUnexpectedEOF
		}
		m, err := in.src.Read(in.buf[in.end:])
		in.end += m
		if errors.Is(err, io.EOF) {
			in.eof = true
		} else if err != nil {
			return &sourceError{err}
		}
	}
	return nil
}

// move moves the unread bytes to the front of the window; while the
// window is summed in the background, to the front of the spare one
// (whose own sum has ended: one runs at a time).
func (in *input) move() {
	dst := in.buf
	if in.sum.busy() {
		if len(in.spare) != len(in.buf) {
			in.spare = make([]byte, len(in.buf))
		}
		dst, in.spare = in.spare, in.buf
	}
	in.end = copy(dst, in.buf[in.pos:in.end])
	in.base += int64(in.pos)
	in.buf, in.pos, in.mark, in.sumMark = dst, 0, 0, 0
}

// grow moves the unread bytes into a window twice as large (at least n,
// at most bufSize): the input filled the current one, so it may well
// outlast the next.
func (in *input) grow(n int) {
	size := min(bufSize, max(2*len(in.buf), n))
	buf := make([]byte, size)
	in.end = copy(buf, in.buf[in.pos:in.end])
	in.base += int64(in.pos)
	in.buf, in.pos, in.mark, in.sumMark = buf, 0, 0, 0
}

// take consumes n (≤ len(buf)) bytes and returns them; the slice is valid
// until the next fill.
func (in *input) take(n int) ([]byte, error) {
	if err := in.fill(n); err != nil {
		return nil, err
	}
	p := in.buf[in.pos : in.pos+n]
	in.pos += n
	return p, nil
}

func (in *input) byte() (byte, error) {
	if in.pos < in.end {
		b := in.buf[in.pos]
		in.pos++
		return b, nil
	}
	p, err := in.take(1)
	if err != nil {
		return 0, err
	}
	return p[0], nil
}

// skip consumes n bytes, streaming them through the window.
func (in *input) skip(n uint64) error {
	for n > 0 {
		if in.pos == in.end {
			if err := in.fill(1); err != nil {
				return err
			}
		}
		k := uint64(in.end - in.pos)
		if k > n {
			k = n
		}
		in.pos += int(k)
		n -= k
	}
	return nil
}

// appendN consumes n bytes and appends them to dst. It grows dst as bytes
// arrive, never by more than appendStep up front, so a bogus length fails
// at the end of the input instead of allocating it; once a step's bytes
// have arrived it grows to the whole length in one allocation (callers
// bound n by the cap), instead of append's doublings, which for a 12 MB
// string allocated 35 MB and peaked at twice its size.
func (in *input) appendN(dst []byte, n uint64) ([]byte, error) {
	if uint64(cap(dst)-len(dst)) < n {
		dst = slices.Grow(dst, int(min(n, appendStep)))
	}
	start := len(dst)
	for n > 0 {
		if in.pos == in.end {
			if err := in.fill(1); err != nil {
				return dst, err
			}
		}
		if uint64(cap(dst)-len(dst)) < n && len(dst)-start >= appendStep {
			dst = slices.Grow(dst, int(n))
		}
		k := uint64(in.end - in.pos)
		if k > n {
			k = n
		}
		dst = append(dst, in.buf[in.pos:in.pos+int(k)]...)
		in.pos += int(k)
		n -= k
	}
	return dst, nil
}

// appendStep is what appendN allocates before the bytes arrive.
const appendStep = 1 << 20

// sinkError marks a failure of the sink (the caller's writer), which must
// not be reported as a format error.
type sinkError struct{ err error }

func (e *sinkError) Error() string { return e.err.Error() }
func (e *sinkError) Unwrap() error { return e.err }

// sourceError marks a read failure of the underlying reader.
type sourceError struct{ err error }

func (e *sourceError) Error() string { return "read: " + e.err.Error() }
func (e *sourceError) Unwrap() error { return e.err }
