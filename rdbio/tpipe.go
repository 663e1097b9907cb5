package rdbio

import (
	"fmt"
	"runtime"
	"slices"
	"sync"

	"github.com/rdbz/rdbz/rdbio/lzf"
)

// The LZF work of EncodeT — decoding each LZF string of a value and
// checking that the faithful encoder gives its stored bytes back — is most
// of the reading goroutine's CPU on a dump saved with rdbcompression yes
// (1.2 of its 1.9 s on app-cache at scale 4, docs/performance.md). tpipe
// moves that work off it: what EncodeT sends is gathered in batches,
// workers do the LZF strings of each batch, and one goroutine passes the
// batches on to the TSink in their order, so the TSink sees the bytes the
// reading goroutine alone would have sent.
//
// Memory: the batches in flight weigh at most pipeBudget together (a
// batch heavier than that goes alone), and a string that decodes to more
// than pipeMaxString is done by the reading goroutine as before, once the
// batches ahead of it have gone through (the pipe is then "direct" until
// the next string it takes).
const (
	pipeBatch     = 128 << 10
	pipeBudget    = 8 << 20
	pipeMaxString = 1 << 20
	pipeQueue     = pipeBudget/pipeBatch + 2 // batches in flight, at most
)

type opKind uint8

const (
	opBegin opKind = iota // Begin: key at buf[a:b] (a < 0: none), input offset
	opBytes               // Write(buf[a:b])
	opLZF                 // an LZF string: prefix buf[a:m], payload buf[m:b]
)

type tOp struct {
	kind    opKind
	a, m, b int
	input   int64 // opBegin: the record's offset; opLZF: the string's
	ulen    int   // opLZF: its decoded length
	ka, kb  int   // opLZF: its record's key in buf (ka < 0: none)
	ra, rb  int   // opLZF: its T form in res (set by a worker)
}

type tBatch struct {
	buf     []byte
	ops     []tOp
	res     []byte
	weight  int64
	st      TStats // what the worker did: LZF counters, T bytes of res
	err     error
	done    chan struct{} // closed when the worker is through (or at once)
	barrier chan struct{} // a drain mark: closed when the batches before it went on
}

type tpipe struct {
	dst     TSink
	version int
	cur     *tBatch
	key     []byte // the current record's key (TKey form), for errors
	keyA    int    // where cur holds it (-1: not yet)
	direct  bool   // pass straight to dst: no batch is in flight
	work    chan *tBatch
	order   chan *tBatch
	wg      sync.WaitGroup
	mu      sync.Mutex
	cond    *sync.Cond
	weight  int64 // of the batches in flight
	err     error // the first failure, in stream order
	st      TStats
	closed  bool
}

func newTPipe(dst TSink, version int) *tpipe {
	p := &tpipe{dst: dst, version: version, keyA: -1,
		work: make(chan *tBatch, pipeQueue), order: make(chan *tBatch, pipeQueue)}
	p.cond = sync.NewCond(&p.mu)
	n := max(runtime.GOMAXPROCS(0), 1)
	p.wg.Add(n + 1)
	for range n {
		go p.worker()
	}
	go p.output()
	p.cur = newBatch()
	return p
}

// batches are reused: a fresh one for every 128 KiB of T cost 5% of
// compress's CPU in allocation and clearing on app-cache.
var batches = sync.Pool{New: func() any { return &tBatch{} }}

func newBatch() *tBatch {
	b := batches.Get().(*tBatch)
	b.buf, b.ops, b.res = b.buf[:0], b.ops[:0], b.res[:0]
	b.weight, b.st, b.err, b.done, b.barrier = 0, TStats{}, nil, nil, nil
	return b
}

func freeBatch(b *tBatch) {
	if cap(b.buf)+cap(b.res) <= 4*pipeMaxString {
		batches.Put(b)
	}
}

// failure is the first error of the batches gone through.
func (p *tpipe) failure() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// Begin starts a record.
func (p *tpipe) Begin(key []byte, input int64) error {
	p.key, p.keyA = append(p.key[:0], key...), -1
	if p.direct {
		return p.dst.Begin(key, input)
	}
	b := p.cur
	op := tOp{kind: opBegin, a: -1, input: input}
	if key != nil {
		op.a = len(b.buf)
		b.buf = append(b.buf, key...)
		op.b = len(b.buf)
		p.keyA = op.a
	}
	b.ops = append(b.ops, op)
	return nil
}

// Write sends T bytes on.
func (p *tpipe) Write(q []byte) (int, error) {
	if p.direct {
		return p.dst.Write(q)
	}
	b := p.cur
	if n := len(b.ops); n > 0 && b.ops[n-1].kind == opBytes && b.ops[n-1].b == len(b.buf) {
		b.buf = append(b.buf, q...)
		b.ops[n-1].b = len(b.buf)
	} else {
		a := len(b.buf)
		b.buf = append(b.buf, q...)
		b.ops = append(b.ops, tOp{kind: opBytes, a: a, b: len(b.buf)})
	}
	b.weight += int64(len(q))
	return len(q), p.maybeSeal()
}

// lzf takes an LZF string of a value (its prefix and payload, its decoded
// length, its offset) for a worker.
func (p *tpipe) lzf(hold, comp []byte, ulen int, at int64) error {
	p.direct = false
	b := p.cur
	op := tOp{kind: opLZF, a: len(b.buf), input: at, ulen: ulen, ka: -1}
	if len(p.key) > 0 {
		if p.keyA < 0 {
			p.keyA = len(b.buf)
			b.buf = append(b.buf, p.key...)
			op.a = len(b.buf)
		}
		op.ka, op.kb = p.keyA, p.keyA+len(p.key)
	}
	b.buf = append(b.buf, hold...)
	op.m = len(b.buf)
	b.buf = append(b.buf, comp...)
	op.b = len(b.buf)
	b.ops = append(b.ops, op)
	b.weight += int64(len(hold) + len(comp) + 2*ulen)
	return p.maybeSeal()
}

func (p *tpipe) maybeSeal() error {
	if p.cur.weight < pipeBatch {
		return nil
	}
	return p.seal()
}

// seal sends the current batch into the pipe, once the weight in flight
// leaves room for it.
func (p *tpipe) seal() error {
	b := p.cur
	if len(b.ops) == 0 {
		return p.failure()
	}
	p.cur, p.keyA = newBatch(), -1
	p.mu.Lock()
	for p.weight > 0 && p.weight+b.weight > pipeBudget && p.err == nil {
		p.cond.Wait()
	}
	p.weight += b.weight
	err := p.err
	p.mu.Unlock()
	if err != nil {
		return err
	}
	b.done = make(chan struct{})
	p.order <- b
	p.work <- b
	return nil
}

// drain waits until every batch sent has gone on, and makes the pipe
// direct: what follows goes straight to the TSink from the caller.
func (p *tpipe) drain() error {
	if p.direct {
		return nil
	}
	if err := p.seal(); err != nil {
		return err
	}
	mark := &tBatch{done: make(chan struct{}), barrier: make(chan struct{})}
	close(mark.done)
	p.order <- mark
	<-mark.barrier
	p.direct = true
	return p.failure()
}

// close sends the last batch (when flush), waits for every goroutine and
// returns the first failure.
func (p *tpipe) close(flush bool) error {
	if p.closed {
		return p.failure()
	}
	p.closed = true
	var err error
	if flush && !p.direct {
		err = p.seal()
	}
	close(p.work)
	close(p.order)
	p.wg.Wait()
	if e := p.failure(); e != nil {
		return e
	}
	return err
}

func (p *tpipe) worker() {
	defer p.wg.Done()
	var enc lzf.Encoder
	var scratch []byte
	for b := range p.work {
		if p.failure() == nil {
			scratch = p.run(b, &enc, scratch)
		}
		close(b.done)
	}
}

// run does the LZF strings of b.
func (p *tpipe) run(b *tBatch, enc *lzf.Encoder, scratch []byte) []byte {
	for i := range b.ops {
		op := &b.ops[i]
		if op.kind != opLZF {
			continue
		}
		hold, comp := b.buf[op.a:op.m], b.buf[op.m:op.b]
		op.ra = len(b.res)
		res, ok, err := appendT(b.res, hold, comp, op.ulen, enc, &scratch)
		if err != nil {
			e := &Error{Offset: op.input, Version: p.version, What: "value", Err: err}
			if op.ka >= 0 {
				e.Key = tkeyName(b.buf[op.ka:op.kb])
			}
			b.err = e
			return scratch
		}
		b.res, op.rb = res, len(res)
		b.st.TBytes += int64(op.rb - op.ra)
		if ok {
			b.st.Decoded++
			b.st.LZFBytes += int64(len(hold) + len(comp))
			b.st.DecBytes += int64(op.ulen)
		} else {
			b.st.Unfaithful++
		}
	}
	return scratch
}

// tkeyName is the key of a TKey.
func tkeyName(k []byte) []byte {
	if len(k) < 3 {
		return nil
	}
	return append([]byte(nil), k[3:]...)
}

func (p *tpipe) output() {
	defer p.wg.Done()
	for b := range p.order {
		<-b.done
		if b.barrier != nil {
			close(b.barrier)
			continue
		}
		err := p.failure()
		if err == nil {
			err = b.err
		}
		if err == nil {
			err = p.replay(b)
		}
		p.mu.Lock()
		if p.err == nil && err != nil {
			p.err = err
		}
		p.weight -= b.weight
		p.st.add(b.st)
		p.cond.Broadcast()
		p.mu.Unlock()
		freeBatch(b)
	}
}

// replay passes a batch on to the TSink.
func (p *tpipe) replay(b *tBatch) error {
	for _, op := range b.ops {
		var err error
		switch op.kind {
		case opBegin:
			var key []byte
			if op.a >= 0 {
				key = b.buf[op.a:op.b]
			}
			err = p.dst.Begin(key, op.input)
		case opBytes:
			_, err = p.dst.Write(b.buf[op.a:op.b])
		case opLZF:
			_, err = p.dst.Write(b.res[op.ra:op.rb])
		}
		if err != nil {
			return fmt.Errorf("rdb: writing output: %w", err)
		}
	}
	return nil
}

func (s *TStats) add(o TStats) {
	s.TBytes += o.TBytes
	s.Decoded += o.Decoded
	s.LZFBytes += o.LZFBytes
	s.DecBytes += o.DecBytes
	s.Unfaithful += o.Unfaithful
}

// appendT appends the T form of an LZF string (prefix hold, payload comp,
// ulen decoded bytes) to dst: 0xC5 and the decoded bytes when the faithful
// encoder gives back its bytes, prefix included (ok), else the string as
// it was. An LZF payload that does not decode is ErrCorrupt.
func appendT(dst, hold, comp []byte, ulen int, enc *lzf.Encoder, scratch *[]byte) (out []byte, ok bool, err error) {
	start := len(dst)
	dst = AppendLen(append(dst, 0xC0|EncodingT, 0), uint64(ulen))
	at := len(dst)
	dst = slices.Grow(dst, ulen)[:at+ulen]
	if _, err := lzf.Decode(dst[at:at], comp, ulen); err != nil {
		return dst[:start], false, fmt.Errorf("%w: LZF string does not decode to %d bytes", ErrCorrupt, ulen)
	}
	if faithful(enc, scratch, hold, comp, dst[at:]) {
		return dst, true, nil
	}
	dst = append(append(dst[:start], hold...), comp...)
	return dst, false, nil
}

// faithful reports whether hold, comp is what Redis's LZF encoder makes of
// dec: the canonical prefix and the same payload. *scratch is a buffer it
// may use.
func faithful(enc *lzf.Encoder, scratch *[]byte, hold, comp, dec []byte) bool {
	var buf [24]byte // a prefix: the encoding byte and two lengths of ≤ 9
	head := AppendStringHead(buf[:0], EncLZF, 0, uint64(len(comp)), uint64(len(dec)))
	if string(head) != string(hold) {
		return false
	}
	var ok bool
	*scratch, ok = enc.Encode((*scratch)[:0], dec, len(dec)+len(dec)/32+8)
	return ok && string(*scratch) == string(comp)
}
