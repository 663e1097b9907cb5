package reshape

import (
	"io"
	"sync"
)

// queueWriter writes to its destination on a goroutine of its own, through
// a bounded queue of chunks: the reader of the input goes on while the
// parts are written (or compressed) concurrently, and a part that is slow
// to take its bytes holds the reader back rather than piling them up. At
// most depth chunks of chunkSize bytes are in flight.
type queueWriter struct {
	dst  io.Writer
	work chan []byte
	free chan []byte
	done chan struct{}
	once sync.Once
	mu   sync.Mutex
	err  error
}

const queueChunk = 64 << 10

func newQueueWriter(dst io.Writer, depth int) *queueWriter {
	q := &queueWriter{dst: dst, work: make(chan []byte, depth), free: make(chan []byte, depth), done: make(chan struct{})}
	for range depth {
		q.free <- make([]byte, 0, queueChunk)
	}
	go q.loop()
	return q
}

func (q *queueWriter) loop() {
	defer close(q.done)
	for b := range q.work {
		if q.failed() == nil {
			if _, err := q.dst.Write(b); err != nil {
				q.mu.Lock()
				q.err = err
				q.mu.Unlock()
			}
		}
		q.free <- b[:0]
	}
}

func (q *queueWriter) failed() error {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.err
}

// Write queues a copy of p; it fails once a write to the destination has
// failed.
func (q *queueWriter) Write(p []byte) (int, error) {
	n := 0
	for len(p) > 0 {
		if err := q.failed(); err != nil {
			return n, err
		}
		b := <-q.free
		k := min(len(p), cap(b))
		q.work <- append(b, p[:k]...)
		p, n = p[k:], n+k
	}
	return n, nil
}

// Close waits for the queued chunks to be written and returns the first
// error of a write. Calling it again returns that error again.
func (q *queueWriter) Close() error {
	q.once.Do(func() {
		close(q.work)
		<-q.done
	})
	return q.failed()
}
