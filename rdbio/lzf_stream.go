package rdbio

import (
	"bufio"
	"errors"
	"fmt"
	"io"
)

// lzfChunk is how much an LZFReader decodes ahead at most.
const lzfChunk = 64 << 10

// LZFReader decodes an LZF stream as it reads it, holding only the last
// 8 KiB of output (as far as a back reference reaches) and one chunk: a
// string of any decoded length is read in bounded memory. It is the way to
// read a string whose decoded length is over the capture cap.
type LZFReader struct {
	src  io.ByteReader
	left int64  // decoded bytes still to come
	win  []byte // the history, then bytes not yet returned from out
	out  int
	err  error
}

// NewLZFReader returns a reader of the ulen bytes that the LZF stream src
// decodes to. It fails (ErrLZFCorrupt) when the stream does not decode to
// exactly ulen bytes.
func NewLZFReader(src io.Reader, ulen int64) *LZFReader {
	br, ok := src.(io.ByteReader)
	if !ok {
		br = bufio.NewReaderSize(src, 32<<10)
	}
	z := &LZFReader{src: br, left: ulen}
	if ulen < 0 {
		z.err = fmt.Errorf("lzf: negative decoded length %d: %w", ulen, ErrLZFCorrupt)
	}
	return z
}

// Read reads decoded bytes.
func (z *LZFReader) Read(p []byte) (int, error) {
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
func (z *LZFReader) fill() error {
	if keep := len(z.win) - lzfMaxOffset; keep > 0 {
		z.win = append(z.win[:0], z.win[keep:]...)
		z.out -= keep
	}
	for target := len(z.win) + lzfChunk; len(z.win) < target; {
		if z.left == 0 {
			if _, err := z.src.ReadByte(); err == nil {
				return fmt.Errorf("lzf: stream decodes to more than its length: %w", ErrLZFCorrupt)
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
func (z *LZFReader) token() error {
	c, err := z.byte()
	if err != nil {
		return err
	}
	if c < lzfMaxLiteral {
		n := int64(c) + 1
		if n > z.left {
			return fmt.Errorf("lzf: literal run overflows the decoded length: %w", ErrLZFCorrupt)
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
		return fmt.Errorf("lzf: back reference out of range: %w", ErrLZFCorrupt)
	}
	op := len(z.win)
	z.win = append(z.win, make([]byte, n)...)
	lzfCopyBack(z.win[op-dist:op+n], dist)
	z.left -= int64(n)
	return nil
}

// byte reads one stream byte; the stream may not end before the decoded
// length is reached.
func (z *LZFReader) byte() (int, error) {
	b, err := z.src.ReadByte()
	if errors.Is(err, io.EOF) {
		return 0, fmt.Errorf("lzf: stream ends %d bytes short of its length: %w", z.left, ErrLZFCorrupt)
	}
	return int(b), err
}
