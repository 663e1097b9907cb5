package v1

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/rdbz/rdbz/rdbio"
	"github.com/rdbz/rdbz/rdbio/crc64"
)

// The transcoding pipeline: one reader (the caller's goroutine) cuts the
// input into items — runs of bytes that pass through unchanged, and list
// nodes — and sends them in order to one writer goroutine; nodes also go to
// a pool of workers, each with its own codecs, that may re-encode them. The
// writer writes items in input order, waiting for each node's worker. Both
// queues are bounded, and so are the bytes in flight (a byte budget), so
// memory does not grow with the file.

// chunkSize is the size of a pass-through item.
const chunkSize = 256 << 10

type itemKind uint8

const (
	itemBytes   itemKind = iota // buf passes through
	itemNode                    // a list node; a worker sets out*
	itemTrailer                 // write the EOF trailer
	itemRest                    // bytes after the trailer
)

// item is one piece of the output, in input order.
type item struct {
	kind    itemKind
	buf     []byte // bytes, or the node's stored payload
	hdr     []byte // node: its raw bytes before the payload
	node    nodeIn
	trailer rdbio.Trailer
	charge  int64 // bytes taken from the budget

	out      []byte // node result when changed
	outSum   uint64 // CRC64 of out, computed by the worker
	outEnc   rdbio.Enc
	outFlags byte
	changed  bool
	// unfaithful: a kept LZF node whose stream the encoder would not
	// reproduce byte for byte.
	unfaithful bool
	err        error
	done       chan struct{}
}

// cost is what an item may hold in memory until it is written: its bytes
// and, for a node, what a worker decodes it to and re-encodes it into
// (its decoded length each), so that the budget bounds decoded bytes too.
// A pass-through chunk counts the capacity it holds: cut short by a node,
// it still holds a whole chunk (counted by its bytes, verify's queues of
// 4 MiB held 14 MB of chunks on a dump of source files).
func (it *item) cost() int64 {
	n := int64(len(it.buf) + len(it.hdr))
	if it.kind != itemNode {
		n = int64(cap(it.buf) + len(it.hdr))
	}
	if it.kind == itemNode {
		dec := int64(it.node.ulen)
		if it.node.enc == rdbio.EncRaw || it.node.enc == rdbio.EncInt {
			dec = int64(len(it.buf))
		}
		n += 2 * dec
	}
	return n
}

// freeItems is how many idle items the pipeline keeps for reuse. A
// sync.Pool was measured to lose them at every GC, which under the memory
// limit runs often: streaming a 1 GiB node then spent most of its CPU
// growing fresh 256 KiB chunks by append. Kept items hold at most
// freeItems × scratchKeep × 3 bytes.
const freeItems = 4

// scratchKeep is the largest scratch buffer a worker keeps between nodes;
// a larger one (a node near the cap) is dropped after use, so that idle
// workers hold little whatever nodes they saw.
const scratchKeep = 1 << 20

// trim returns b, or nil when it is larger than a worker keeps.
func trim(b []byte) []byte {
	if cap(b) > scratchKeep {
		return nil
	}
	return b
}

// nodeIn describes the node as read.
type nodeIn struct {
	container uint64
	enc       rdbio.Enc
	flags     byte
	ulen      uint64
	key       []byte
	offset    int64
}

// nodeFunc re-encodes one node: it sets it.out/outEnc/outFlags and
// it.changed, or leaves the node as it is.
type nodeFunc func(it *item) error

// budget is a counting semaphore of bytes in flight.
type budget struct {
	mu    sync.Mutex
	cond  *sync.Cond
	avail int64
	max   int64
	dead  bool
}

func newBudget(max int64) *budget {
	b := &budget{avail: max, max: max}
	b.cond = sync.NewCond(&b.mu)
	return b
}

// take waits for n bytes (at most the whole budget) and returns the charge.
func (b *budget) take(n int64) (int64, bool) {
	n = min(n, b.max)
	b.mu.Lock()
	defer b.mu.Unlock()
	for b.avail < n && !b.dead {
		b.cond.Wait()
	}
	b.avail -= n
	return n, !b.dead
}

func (b *budget) give(n int64) {
	b.mu.Lock()
	b.avail += n
	b.mu.Unlock()
	b.cond.Broadcast()
}

func (b *budget) kill() {
	b.mu.Lock()
	b.dead = true
	b.mu.Unlock()
	b.cond.Broadcast()
}

// pipeline runs the writer goroutine and the workers.
type pipeline struct {
	w       *rdbio.Writer
	items   chan *item
	jobs    chan *item
	budget  *budget
	abort   chan struct{}
	once    sync.Once
	err     error
	wg      sync.WaitGroup // workers
	written chan struct{}  // closed when the writer goroutine ends
	stats   *Stats
	free    chan *item  // items to reuse, with their buffers
	stopCtx func() bool // stops watching the context
}

// newPipeline starts the writer; workers start with startWorkers. When ctx
// is cancelled the pipeline fails with its error, which unblocks every
// stage.
func newPipeline(ctx context.Context, w *rdbio.Writer, queue int, maxBytes int64, stats *Stats) *pipeline {
	p := &pipeline{
		w: w, items: make(chan *item, queue), jobs: make(chan *item, queue),
		budget: newBudget(maxBytes), abort: make(chan struct{}), written: make(chan struct{}),
		stats: stats, free: make(chan *item, freeItems),
	}
	p.stopCtx = context.AfterFunc(ctx, func() { p.fail(context.Cause(ctx)) })
	go p.writeLoop()
	return p
}

// startWorkers starts n workers, at most maxWorkers, each with the node
// function newFn makes.
func (p *pipeline) startWorkers(n int, newFn func() (nodeFunc, error)) error {
	for i := 0; i < min(n, maxWorkers); i++ {
		fn, err := newFn()
		if err != nil {
			return err
		}
		p.wg.Add(1)
		go p.work(fn)
	}
	return nil
}

// maxWorkers bounds the workers whatever Flow.Workers asks: each holds a
// node codec (a zstd encoder or decoder with the dictionary's tables), and
// compress of a 59 MB dump of source files peaked at 53 MiB with 16, 61
// with 32 and 94 with 64 (the default on a 64-CPU machine).
const maxWorkers = 16

// drainWorkers waits until the running workers have finished every node
// queued so far and stops them, so that new ones can start.
func (p *pipeline) drainWorkers() error {
	close(p.jobs)
	p.wg.Wait()
	p.jobs = make(chan *item, cap(p.items))
	return p.failed()
}

func (p *pipeline) work(fn nodeFunc) {
	defer p.wg.Done()
	for it := range p.jobs {
		it.err = fn(it)
		if it.err == nil && it.changed {
			// Checksummed here, in parallel, rather than by the writer.
			it.outSum = crc64.Checksum(it.out)
		}
		it.done <- struct{}{}
	}
}

func (p *pipeline) fail(err error) {
	p.once.Do(func() {
		p.err = err
		close(p.abort)
		p.budget.kill()
	})
}

// failed returns the first error, if any.
func (p *pipeline) failed() error {
	select {
	case <-p.abort:
		return p.err
	default:
		return nil
	}
}

func (p *pipeline) newItem(kind itemKind) *item {
	var it *item
	select {
	case it = <-p.free:
	default:
		it = &item{done: make(chan struct{}, 1)}
	}
	it.kind, it.changed, it.err, it.charge = kind, false, nil, 0
	it.outEnc, it.outFlags, it.unfaithful = 0, 0, false
	it.buf, it.hdr, it.out = it.buf[:0], it.hdr[:0], it.out[:0]
	return it
}

// send queues an item (and a node to the workers when hasWorkers).
func (p *pipeline) send(it *item, toWorkers bool) error {
	charge, ok := p.budget.take(it.cost())
	it.charge = charge
	if !ok {
		return p.failed()
	}
	if toWorkers {
		select {
		case p.jobs <- it:
		case <-p.abort:
			return p.err
		}
	}
	select {
	case p.items <- it:
		return nil
	case <-p.abort:
		return p.err
	}
}

func (p *pipeline) writeLoop() {
	defer close(p.written)
	for it := range p.items {
		if p.failed() != nil {
			continue // drain
		}
		if err := p.writeItem(it); err != nil {
			p.fail(err)
		}
		p.budget.give(it.charge)
		it.buf, it.hdr, it.out = trim(it.buf), trim(it.hdr), trim(it.out)
		select {
		case p.free <- it:
		default:
		}
	}
}

func (p *pipeline) writeItem(it *item) error {
	var err error
	switch it.kind {
	case itemBytes:
		_, err = p.w.Write(it.buf)
	case itemRest:
		_, err = p.w.WriteRest(it.buf)
	case itemTrailer:
		p.w.SetTrailer(it.trailer)
		err = p.w.Close()
	case itemNode:
		<-it.done
		if it.err != nil {
			return it.err
		}
		err = p.writeNode(it)
	}
	if err != nil && !errors.Is(err, errNode) {
		err = fmt.Errorf("write output: %w", err)
	}
	return err
}

var errNode = errors.New("node")

func (p *pipeline) writeNode(it *item) error {
	before := p.w.Written()
	var err error
	if it.changed {
		err = p.w.WriteNodeSummed(it.node.container, it.outEnc, it.outFlags, it.node.ulen, it.out, it.outSum)
	} else {
		if _, err = p.w.Write(it.hdr); err == nil {
			_, err = p.w.Write(it.buf)
		}
	}
	p.stats.addNode(it, p.w.Written()-before)
	return err
}

// finish closes the queues, waits for the writer and workers, flushes.
func (p *pipeline) finish() error {
	p.stopCtx()
	close(p.jobs)
	close(p.items)
	<-p.written
	p.wg.Wait()
	if err := p.failed(); err != nil {
		return err
	}
	return p.w.Flush()
}

// stop aborts the pipeline after an error on the reading side.
func (p *pipeline) stop(err error) error {
	p.fail(err)
	p.finish()
	return err
}

// chunker is the Reader's sink: it cuts pass-through bytes into items.
type chunker struct {
	p    *pipeline
	cur  *item
	kind itemKind
	send func(*item) error
}

func (c *chunker) Write(b []byte) (int, error) {
	n := len(b)
	for len(b) > 0 {
		if c.cur == nil {
			c.cur = c.p.newItem(c.kind)
		}
		k := min(len(b), chunkSize-len(c.cur.buf))
		if need := len(c.cur.buf) + k; need > cap(c.cur.buf) {
			// Doubled from 4 KiB up to a whole chunk: a chunk cut short by
			// the next list node stays small (grown at once to 256 KiB,
			// the chunks between the 20,000 small lists of a 1.5 MB dump
			// cleared 5 GB), and streamed bytes reach whole chunks,
			// recycled through the free list, after a few doublings.
			grown := make([]byte, len(c.cur.buf), min(chunkSize, max(2*cap(c.cur.buf), need, 4<<10)))
			copy(grown, c.cur.buf)
			c.cur.buf = grown
		}
		c.cur.buf = append(c.cur.buf, b[:k]...)
		b = b[k:]
		if len(c.cur.buf) >= chunkSize {
			if err := c.flush(); err != nil {
				return 0, err
			}
		}
	}
	return n, nil
}

// flush sends the bytes gathered so far.
func (c *chunker) flush() error {
	if c.cur == nil || len(c.cur.buf) == 0 {
		return nil
	}
	it := c.cur
	c.cur = nil
	return c.send(it)
}

// inject sends bytes of rdbz's own (AUX records) as an item of their own.
func (c *chunker) inject(b []byte) error {
	if err := c.flush(); err != nil {
		return err
	}
	it := c.p.newItem(itemBytes)
	it.buf = append(it.buf, b...)
	return c.send(it)
}

// split sends all but the last k bytes gathered, keeping those. It reports
// false when fewer than k bytes are still gathered.
func (c *chunker) split(k int) (bool, error) {
	if k == 0 {
		return true, c.flush()
	}
	if c.cur == nil || len(c.cur.buf) < k {
		return false, nil
	}
	head := c.cur
	c.cur = c.p.newItem(c.kind)
	c.cur.buf = append(c.cur.buf, head.buf[len(head.buf)-k:]...)
	head.buf = head.buf[:len(head.buf)-k]
	return true, c.send(head)
}

// rest returns a writer for the bytes after the trailer.
func (c *chunker) rest() io.Writer {
	c.kind = itemRest
	return c
}
