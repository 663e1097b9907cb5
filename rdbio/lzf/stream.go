package lzf

import (
	"bufio"
	"errors"
	"fmt"
	"io"
)

// chunk is how much an Reader decodes ahead at most.
const chunk = 64 << 10

// Reader decodes an LZF stream as it reads it, holding only the last
// 8 KiB of output (as far as a back reference reaches) and one chunk: a
// string of any decoded length is read in bounded memory. It is the way to
// read a string whose decoded length is over the capture cap.
type Reader struct {
	src  io.ByteReader
	left int64  // decoded bytes still to come
	win  []byte // the history, then bytes not yet returned from out
	out  int
	err  error
}

// NewReader returns a reader of the ulen bytes that the LZF stream src
// decodes to. It fails (ErrCorrupt) when the stream does not decode to
// exactly ulen bytes.
func NewReader(src io.Reader, ulen int64) *Reader {
	br, ok := src.(io.ByteReader)
	if !ok {
		br = bufio.NewReaderSize(src, 32<<10)
	}
	z := &Reader{src: br, left: ulen}
	if ulen < 0 {
		z.err = fmt.Errorf("lzf: negative decoded length %d: %w", ulen, ErrCorrupt)
	}
	return z
}

// Read reads decoded bytes.
func (z *Reader) Read(p []byte) (int, error) {
	for z.out == len(z.win) {
		if z.err != nil {
			return 0, z.err
		}
		z.err = z.fill()
	}
	n := copy(p, z.win[z.out:])
	z.out += n
	return n, nil
}

// fill decodes up to a chunk more, keeping the history a back reference
// may reach. At the end it returns io.EOF, or an error when the stream
// holds more or less than it claimed.
func (z *Reader) fill() error {
	if keep := len(z.win) - maxOffset; keep > 0 {
		z.win = append(z.win[:0], z.win[keep:]...)
		z.out -= keep
	}
	for target := len(z.win) + chunk; len(z.win) < target; {
		if z.left == 0 {
			if _, err := z.src.ReadByte(); err == nil {
				return fmt.Errorf("lzf: stream decodes to more than its length: %w", ErrCorrupt)
			}
			if len(z.win) > z.out {
				return nil
			}
			return io.EOF
		}
		if err := z.token(); err != nil {
			return err
		}
	}
	return nil
}

// token decodes one literal run or back reference.
func (z *Reader) token() error {
	c, err := z.byte()
	if err != nil {
		return err
	}
	if c < maxLiteral {
		n := int64(c) + 1
		if n > z.left {
			return fmt.Errorf("lzf: literal run overflows the decoded length: %w", ErrCorrupt)
		}
		for ; n > 0; n-- {
			b, err := z.byte()
			if err != nil {
				return err
			}
			z.win = append(z.win, byte(b))
			z.left--
		}
		return nil
	}
	n := c >> 5
	if n == 7 {
		b, err := z.byte()
		if err != nil {
			return err
		}
		n += int(b)
	}
	lo, err := z.byte()
	if err != nil {
		return err
	}
	dist, n := (c&0x1f)<<8|int(lo)+1, n+2
	if dist > len(z.win) || int64(n) > z.left {
		return fmt.Errorf("lzf: back reference out of range: %w", ErrCorrupt)
	}
	op := len(z.win)
	z.win = append(z.win, make([]byte, n)...)
	copyBack(z.win[op-dist:op+n], dist)
	z.left -= int64(n)
	return nil
}

// byte reads one stream byte; the stream may not end before the decoded
// length is reached.
func (z *Reader) byte() (int, error) {
	b, err := z.src.ReadByte()
	if errors.Is(err, io.EOF) {
		return 0, fmt.Errorf("lzf: stream ends %d bytes short of its length: %w", z.left, ErrCorrupt)
	}
	return int(b), err
}
