// Package ahead reads a file ahead of its reader, on a goroutine of its
// own: the kernel's copy of each chunk into memory then runs on the other
// CPU while the reader parses the chunk before. Walking an RDB of 166 MB
// of small keys (info), the read system calls were a quarter of the
// walking goroutine's time.
//
// Its chunks are copied once more, into the reader's buffer, which costs
// less than the kernel's copy but is not free: where the reader outruns
// the reading (an RDB of large values, walked at 4 GB/s), reading ahead
// made the walk slower. So a Reader watches: when, after its first
// chunks, the reader has mostly found none waiting, it stops reading
// ahead and reads the source directly from there on.
package ahead

import (
	"errors"
	"io"
	"sync"
)

// chunk is one read: b[:n], then err (io.EOF at the end).
type chunk struct {
	b   []byte
	n   int
	err error
}

// Reader reads its source ahead in chunks, count of them at most in
// memory. Read gives the bytes in order, then the source's error (io.EOF
// at its end). Close stops the goroutine; a Reader must be closed.
type Reader struct {
	src  io.Reader
	full chan *chunk // read, in order
	free chan *chunk // to read into
	stop chan struct{}
	done chan struct{}
	once sync.Once
	cur  *chunk
	off  int
	err  error
	// Whether reading ahead pays: chunks taken, and how many of them the
	// reader waited for; direct once the goroutine is stopped for good.
	taken, waited int
	direct        bool
}

// Judging: after judgeAfter chunks, reading ahead goes on only if the
// reader found at least half of them waiting.
const judgeAfter = 16

// New returns a Reader of src in chunks of size bytes, count of them
// (at least 2).
func New(src io.Reader, size, count int) *Reader {
	count = max(count, 2)
	r := &Reader{src: src, full: make(chan *chunk, count), free: make(chan *chunk, count),
		stop: make(chan struct{}), done: make(chan struct{})}
	for range count {
		r.free <- &chunk{b: make([]byte, size)}
	}
	go r.fill()
	return r
}

// fill reads the source into free chunks and hands them on, until an
// error or stop.
func (r *Reader) fill() {
	defer close(r.done)
	for {
		var c *chunk
		select {
		case <-r.stop:
			return
		default:
		}
		select {
		case c = <-r.free:
		case <-r.stop:
			return
		}
		c.n, c.err = io.ReadFull(r.src, c.b)
		if errors.Is(c.err, io.ErrUnexpectedEOF) {
			c.err = io.EOF // a short last chunk
		}
		r.full <- c // never blocks: full has room for every chunk
		if c.err != nil {
			return
		}
	}
}

// Read copies the next bytes into p.
func (r *Reader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if r.cur == nil {
			if r.err != nil || n > 0 && len(r.full) == 0 {
				break // what is here, without waiting for more
			}
			if !r.next() {
				m, err := r.src.Read(p[n:]) // direct: nothing is read ahead
				n += m
				if err != nil {
					r.err = err
				}
				break
			}
		}
		k := copy(p[n:], r.cur.b[r.off:r.cur.n])
		n += k
		r.off += k
		if r.off == r.cur.n {
			if r.cur.err != nil {
				r.err = r.cur.err
			} else if !r.direct {
				r.free <- r.cur
			}
			r.cur = nil
		}
	}
	if n == 0 && r.err != nil {
		return 0, r.err
	}
	return n, nil
}

// next makes the next chunk current, waiting for it; false when none is
// left to take (direct reading).
func (r *Reader) next() bool {
	if r.direct {
		select {
		case r.cur = <-r.full: // read before the goroutine stopped
			r.off = 0
			return true
		default:
			return false
		}
	}
	if len(r.full) == 0 {
		r.waited++
	}
	r.cur, r.off = <-r.full, 0
	if r.taken++; r.taken == judgeAfter && 2*r.waited > judgeAfter {
		r.stopFilling()
		r.direct = true
	}
	return true
}

// stopFilling stops the goroutine and waits for it to end.
func (r *Reader) stopFilling() {
	r.once.Do(func() { close(r.stop) })
	<-r.done
}

// Close stops the reading goroutine and waits for it to end (a read in
// progress ends first). It does not close the source.
func (r *Reader) Close() error {
	r.stopFilling()
	return nil
}
