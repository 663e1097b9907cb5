package tstream

import (
	"fmt"
	"runtime"
	"slices"
	"sync"
	"unsafe"

	"github.com/rdbz/rdbz/rdbio"
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
// DecodeT uses the same pipe for the strings it LZF-encodes, and runs its
// Writer (and the CRC of the output) on the pipe's output goroutine while
// batches flow (on the caller's while the pipe is direct).
//
// Memory: the batches in flight weigh at most pipeBudget together (less
// with fewer workers than GOMAXPROCS: Options.Workers; a batch heavier than
// that goes alone), and a string that decodes to more than pipeMaxString is
// done by the reading goroutine as before, once the batches ahead of it
// have gone through (the pipe is then "direct" until the next string it
// takes; it starts so too). 1 MiB in flight keeps two workers busy: at 4
// MiB, compress of a dump of source files (gen-realdata's godev-lzf) held
// so much that the collector ran without pause under rdbz's memory limit,
// and took 2.9 s where 1 MiB took 2.2 (app-cache at scale 4: the same;
// app-cache-nocompress 1.8 and 1.65 s).
const (
	pipeBatch     = 128 << 10
	pipeBudget    = 1 << 20
	pipeMaxString = 1 << 20
	pipeQueue     = pipeBudget/pipeBatch + 4 // batches in flight, at most (and a drain mark)
)

type opKind uint8

const (
	opBegin opKind = iota // Begin: key at buf[a:b] (a < 0: none), input offset
	opBytes               // Write(buf[a:b])
	opLZF                 // a string to rewrite: prefix buf[a:m], payload buf[m:b]
	opOut                 // WriteOut(buf[a:b]): the output's form of a string
	opOrig                // WriteOrig(buf[a:b]): the original's form of it
)

type tOp struct {
	kind    opKind
	a, m, b int
	input   int64 // opBegin: the record's offset; opLZF: the string's
	ulen    int   // opLZF: its decoded length
	ka, kb  int   // opLZF: its record's key in buf (ka < 0: none)
	ra, rb  int   // opLZF: what replaces it, in res (set by a worker)
	oa, ob  int   // opLZF with mode.shadow: its original form in res (oa < 0: buf[a:b])
	enc     rdbio.Enc
}

// opWeight is what an op weighs in a batch beside its bytes: a dump of
// small records (10,000 intsets, 150 KB) had put them all in one batch,
// 20,000 ops grown by append into fresh pages, a third of its compress.
const opWeight = int64(unsafe.Sizeof(tOp{}))

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
	mode    mode
	version int
	cur     *tBatch
	key     []byte // the current record's key (TKey form), for errors
	keyA    int    // where cur holds it (-1: not yet)
	direct  bool   // pass straight to dst: no batch is in flight
	inline  bool   // no goroutines: always direct (newTPipe)
	work    chan *tBatch
	order   chan *tBatch
	free    chan *tBatch // batches to reuse (newBatch)
	large   chan *tBatch // a large batch to reuse (roomFor)
	wg      sync.WaitGroup
	mu      sync.Mutex
	cond    *sync.Cond
	weight  int64 // of the batches in flight
	budget  int64 // the most weight in flight: pipeBudget, less with fewer workers
	err     error // the first failure, in stream order
	st      TStats
	closed  bool
}

func newTPipe(dst TSink, m mode, version int, workers int) *tpipe {
	procs := max(runtime.GOMAXPROCS(0), 1)
	n := procs
	if workers > 0 {
		n = min(workers, procs)
	}
	p := &tpipe{dst: dst, mode: m, version: version, keyA: -1, budget: int64(max(pipeBudget*n/procs, 2*pipeBatch)),
		work: make(chan *tBatch, pipeQueue), order: make(chan *tBatch, pipeQueue), free: make(chan *tBatch, pipeQueue),
		large: make(chan *tBatch, 1)}
	p.cond = sync.NewCond(&p.mu)
	// Direct until the first string with LZF work: a dump saved with
	// rdbcompression no has none, and its bytes then go straight to the
	// TSink instead of through batches and another goroutine (compress of
	// godev-raw 0.86 -> 0.82 s, app-cache-nocompress x4 1.20 -> 1.17 s).
	p.direct = true
	if procs == 1 {
		// One thread: a worker could only take turns with the caller, so
		// the caller does every string itself (take declines) and the
		// pipe stays direct, holding no batch. Compress of the corpus's
		// Dragonfly seed (LZF nodes, one thread by default): peak RSS
		// 25.0 -> 24.2 MiB (medians of 11), same time.
		p.inline = true
		return p
	}
	p.wg.Add(n + 1)
	for range n {
		go p.worker()
	}
	go p.output()
	p.cur = p.newBatch()
	return p
}

// Batches are reused: a fresh one for every 128 KiB of T cost 5% of
// compress's CPU in allocation and clearing on app-cache. Each pipe keeps
// those it made in a list of its own (a sync.Pool, emptied by every
// collection, gave back 47 MB of fresh buffers over the compress of
// godev-lzf), but not those grown past maxKeptBatch by a large string:
// the batches alive at once, pipeQueue at most, keep at most that each.
const maxKeptBatch = 4 * pipeBatch

// In DecodeT, one batch grown by a large string is kept beside them
// (p.large) and takes the next string too large for the batch filling
// (roomFor): made afresh for each, the batches of gen-realdata's godev-lzf
// were 121 MB of allocations and clearing in its decompress (now 28; 422
// -> 394 ms in turns). It holds at most maxLargeBatch. EncodeT keeps none:
// there it saved allocations but no time, and split, whose parts each
// compress through a pipe of their own beside the decompressing one, went
// from 57 to 65 MiB of peak RSS and from 2.0 to 2.8 s (an .rdbz of
// godev-lzf into 3 parts).
const maxLargeBatch = 2*pipeMaxString + 2*pipeBatch

func (p *tpipe) newBatch() *tBatch {
	var b *tBatch
	select {
	case b = <-p.free:
	default:
		return &tBatch{}
	}
	return b.reset()
}

func (b *tBatch) reset() *tBatch {
	b.buf, b.ops, b.res = b.buf[:0], b.ops[:0], b.res[:0]
	b.weight, b.st, b.err, b.done, b.barrier = 0, TStats{}, nil, nil, nil
	return b
}

func (p *tpipe) freeBatch(b *tBatch) {
	kept := p.free
	if n := cap(b.buf) + cap(b.res); n > maxKeptBatch {
		if n > maxLargeBatch || p.mode.toT {
			return
		}
		kept = p.large
		select {
		case old := <-p.large: // the larger of the two is kept
			if cap(old.buf)+cap(old.res) > n {
				b = old
			}
		default:
		}
	}
	select {
	case kept <- b:
	default:
	}
}

// roomFor readies the batch filling for a string of n bytes: when it has
// no room for them and n is more than a batch, the kept large batch (if
// any) takes over what it holds, and grows if it must.
func (p *tpipe) roomFor(n int) {
	b := p.cur
	if n <= pipeBatch || cap(b.buf)-len(b.buf) >= n {
		return
	}
	var big *tBatch
	select {
	case big = <-p.large:
	default:
		return
	}
	big.reset()
	big.buf = append(big.buf, b.buf...)
	big.ops = append(big.ops, b.ops...)
	big.weight = b.weight
	p.cur = big
	p.freeBatch(b.reset())
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
	b.weight += int64(len(key)) + opWeight
	return p.maybeSeal()
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
		b.weight += opWeight
	}
	b.weight += int64(len(q))
	return len(q), p.maybeSeal()
}

// WriteOut passes on bytes of the output only (altSink).
func (p *tpipe) WriteOut(q []byte) error { return p.writeAlt(opOut, q) }

// WriteOrig passes on bytes of the original only (altSink).
func (p *tpipe) WriteOrig(q []byte) error { return p.writeAlt(opOrig, q) }

func (p *tpipe) writeAlt(kind opKind, q []byte) error {
	if p.direct {
		a := p.dst.(altSink)
		if kind == opOut {
			return a.WriteOut(q)
		}
		return a.WriteOrig(q)
	}
	b := p.cur
	a := len(b.buf)
	b.buf = append(b.buf, q...)
	b.ops = append(b.ops, tOp{kind: kind, a: a, b: len(b.buf)})
	b.weight += int64(len(q)) + opWeight
	return p.maybeSeal()
}

// take takes a string of a value (its encoding, prefix and payload, its
// decoded length, its offset) for a worker to rewrite.
func (p *tpipe) take(enc rdbio.Enc, hold, comp []byte, ulen int, at int64) (bool, error) {
	if p.inline {
		return false, nil
	}
	p.direct = false
	p.roomFor(len(p.key) + len(hold) + len(comp))
	b := p.cur
	op := tOp{kind: opLZF, a: len(b.buf), input: at, ulen: ulen, ka: -1, enc: enc}
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
	b.weight += int64(len(hold)+len(comp)+2*ulen) + opWeight
	return true, p.maybeSeal()
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
	p.cur, p.keyA = p.newBatch(), -1
	p.mu.Lock()
	for p.weight > 0 && p.weight+b.weight > p.budget && p.err == nil {
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
	var s strWork
	for b := range p.work {
		if p.failure() == nil {
			p.run(b, &s)
		}
		close(b.done)
	}
}

// run rewrites the strings of b.
func (p *tpipe) run(b *tBatch, s *strWork) {
	b.res = slices.Grow(b.res[:0], resBound(b, p.mode))
	for i := range b.ops {
		op := &b.ops[i]
		if op.kind != opLZF {
			continue
		}
		op.ra = len(b.res)
		var err error
		switch {
		case p.mode.toT && op.enc == rdbio.EncLZF:
			b.res, err = s.toT(b.res, b.buf[op.a:op.m], b.buf[op.m:op.b], op.ulen, &b.st)
		case !p.mode.toT && p.mode.target != TargetRaw && op.enc == rdbio.EncT:
			b.res, op.ra, err = s.toLZF(b.res, p.mode.target, b.buf[op.m:op.b])
		default:
			var head, body []byte
			if head, body, _, err = s.rewrite(p.mode, op.enc, b.buf[op.a:op.m], b.buf[op.m:op.b], op.ulen, &b.st); err == nil {
				b.res = append(append(b.res, head...), body...)
			}
		}
		if err != nil {
			e := &rdbio.Error{Offset: op.input, Version: p.version, What: "value", Err: err}
			if op.ka >= 0 {
				e.Key = tkeyName(b.buf[op.ka:op.kb])
			}
			b.err = e
			return
		}
		op.rb = len(b.res)
		b.st.TBytes += int64(op.rb - op.ra)
		if p.mode.shadow {
			if err := p.original(b, op, s); err != nil {
				b.err = &rdbio.Error{Offset: op.input, Version: p.version, What: "value", Err: err}
				return
			}
		}
	}
}

// resBound is room enough in res for what a worker writes there for
// batch b, so that it is sized once, not grown by append: a head and the
// decoded bytes of each string (LZF-encoded, 1/32 more at worst; twice,
// in shadow mode), or its stored form where that is longer (toT keeps an
// unfaithful string as it is). The lengths are the file's claims, but
// bounded by the batch's weight (take) and by CanDecode; a claim that
// fails is not counted, and fails its rewrite.
func resBound(b *tBatch, m mode) int {
	n := 0
	for i := range b.ops {
		op := &b.ops[i]
		p := op.b - op.m
		switch {
		case op.kind != opLZF:
		case op.enc == rdbio.EncLZF && !lzf.CanDecode(uint64(p), uint64(op.ulen)):
		case m.toT:
			n += maxHead + max(op.ulen, p)
		default:
			u := max(op.ulen, p)
			n += maxHead + lzfBound(u)
		}
	}
	if m.shadow {
		n *= 2
	}
	return n
}

// maxHead is the longest string head rewrite makes: an encoding byte and
// two lengths.
const maxHead = 1 + 2*9

// original puts the original form of op's string (rewritten into
// res[ra:rb]) in res[oa:ob], or sets oa < 0 when it is buf[a:b].
func (p *tpipe) original(b *tBatch, op *tOp, s *strWork) error {
	out := b.res[op.ra:op.rb]
	switch {
	case op.enc != rdbio.EncT:
		op.oa = -1 // T's bytes are the original's
		return nil
	case len(out) > 0 && out[0] == lzfByte:
		op.oa, op.ob = op.ra, op.rb // encoded as the original already
		return nil
	}
	oh, ob, err := s.original(op.enc, b.buf[op.a:op.m], b.buf[op.m:op.b], nil, nil, nil)
	if err != nil {
		return err
	}
	op.oa = len(b.res)
	b.res = append(append(b.res, oh...), ob...)
	op.ob = len(b.res)
	return nil
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
		p.freeBatch(b)
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
			err = p.replayString(b, op)
		case opOut:
			err = p.dst.(altSink).WriteOut(b.buf[op.a:op.b])
		case opOrig:
			err = p.dst.(altSink).WriteOrig(b.buf[op.a:op.b])
		}
		if err != nil {
			return fmt.Errorf("rdb: writing output: %w", err)
		}
	}
	return nil
}

// replayString passes on a rewritten string, and its original form to a
// shadow sum.
func (p *tpipe) replayString(b *tBatch, op tOp) error {
	if !p.mode.shadow {
		_, err := p.dst.Write(b.res[op.ra:op.rb])
		return err
	}
	a := p.dst.(altSink)
	if err := a.WriteOut(b.res[op.ra:op.rb]); err != nil {
		return err
	}
	if op.oa < 0 {
		return a.WriteOrig(b.buf[op.a:op.b])
	}
	return a.WriteOrig(b.res[op.oa:op.ob])
}

func (s *TStats) add(o TStats) {
	s.TBytes += o.TBytes
	s.Decoded += o.Decoded
	s.LZFBytes += o.LZFBytes
	s.DecBytes += o.DecBytes
	s.Unfaithful += o.Unfaithful
}

// strWork is what rewriting a string needs: an LZF encoder and buffers.
// Each goroutine has its own.
type strWork struct {
	enc       lzf.Encoder
	dec, lzf  []byte
	headBytes [24]byte // a prefix: the encoding byte and two lengths of ≤ 9
	// orig, origHead: a 0xC5 string's original form (original)
	orig, origHead []byte
}

// strKeep is the largest buffer a strWork keeps for the next string when
// that one is smaller: each pipe has a strWork per worker, and a split
// writes through one pipe per shard, so buffers kept at the largest string
// seen (up to pipeMaxString, beyond in direct mode) held 40 MB of split's
// heap on a dump of source files (5 shards), at 256 KiB 15 MB.
const strKeep = 64 << 10

// keep returns b emptied for a string of n bytes, or nil when b is larger
// than strKeep and n is not.
func keep(b []byte, n int) []byte {
	if cap(b) > strKeep && n <= strKeep {
		return nil
	}
	return b[:0]
}

// rewrite returns what goes in place of a string (encoding enc, prefix
// hold, payload p as stored, ulen decoded bytes) — head, then body —
// and its decoded bytes. Each may be hold, p or one of s's buffers. st
// (which may be nil) counts what toT did.
func (s *strWork) rewrite(m mode, enc rdbio.Enc, hold, p []byte, ulen int, st *TStats) (head, body, dec []byte, err error) {
	dec = p
	same := false // an LZF string that is Redis's of its decoded bytes
	if enc == rdbio.EncLZF {
		if m.toT {
			s.dec, same, err = s.decodeFaithful(keep(s.dec, ulen), hold, p, ulen)
		} else {
			s.dec, err = lzf.Decode(keep(s.dec, ulen), p, ulen)
		}
		if err != nil {
			return nil, nil, nil, errNoDecode(ulen)
		}
		dec = s.dec
	}
	if st == nil {
		st = new(TStats)
	}
	h := s.headBytes[:0]
	s.lzf = keep(s.lzf, len(dec))
	switch {
	case m.toT && same:
		st.Decoded++
		st.LZFBytes += int64(len(hold) + len(p))
		st.DecBytes += int64(len(dec))
		return rdbio.AppendLen(append(h, tByte, 0), uint64(len(dec))), dec, dec, nil
	case m.toT:
		st.Unfaithful++
		return hold, p, dec, nil
	case m.target == TargetRaw:
		return rdbio.AppendLen(h, uint64(len(dec))), dec, dec, nil
	default:
		var ok bool
		if s.lzf, ok, err = s.encodeLZF(s.lzf, dec, m.target); err != nil {
			return nil, nil, nil, err
		} else if !ok {
			return rdbio.AppendLen(h, uint64(len(dec))), dec, dec, nil
		}
	}
	return rdbio.AppendStringHead(h, rdbio.EncLZF, 0, uint64(len(s.lzf)), uint64(len(dec))), s.lzf, dec, nil
}

// toT appends to dst what goes in place of an LZF string (prefix hold,
// payload p, ulen decoded bytes) in T — rewrite's work in compress — and
// returns it: the string decoded straight into dst, behind T's head, when
// it is faithful, else hold and p as they are. With room for the head,
// ulen or hold and p (resBound), it allocates nothing: decoding
// into a buffer of its own and copying was 83 MB of allocations and a copy
// of every decoded byte on gen-realdata's godev-lzf.
func (s *strWork) toT(dst, hold, p []byte, ulen int, st *TStats) ([]byte, error) {
	if ulen < 0 || !lzf.CanDecode(uint64(len(p)), uint64(ulen)) {
		return dst, errNoDecode(ulen) // a claim the payload cannot hold sizes nothing
	}
	var hb [maxHead]byte
	head := rdbio.AppendLen(append(hb[:0], tByte, 0), uint64(ulen))
	start := len(dst)
	body := len(dst) + len(head)
	dst = slices.Grow(dst, max(len(head)+ulen, len(hold)+len(p)))
	_, same, err := s.decodeFaithful(dst[body:body], hold, p, ulen)
	if err != nil {
		return dst[:start], errNoDecode(ulen)
	}
	end := body + ulen
	if !same {
		st.Unfaithful++
		return append(append(dst[:start], hold...), p...), nil
	}
	st.Decoded++
	st.LZFBytes += int64(len(hold) + len(p))
	st.DecBytes += int64(ulen)
	dst = dst[:end]
	copy(dst[start:], head)
	return dst, nil
}

// toLZF appends to dst what goes in place of a 0xC5 string of T (its
// decoded bytes dec) for target TargetOriginal or TargetLZF — rewrite's
// work in decompress — and returns it and where it starts in dst: the LZF
// stream encoded straight into dst, maxHead bytes on, its head just before
// it (the bytes skipped are no op's), or, where Redis keeps the string as
// it is (TargetLZF), its raw form. With room for maxHead and the encoder's
// budget (resBound), it allocates nothing: encoding into a buffer of its
// own and copying was 84 MB of allocations on gen-realdata's godev-lzf.
func (s *strWork) toLZF(dst []byte, target Target, dec []byte) ([]byte, int, error) {
	start := len(dst)
	at := start + maxHead
	dst = slices.Grow(dst, maxHead+lzfBound(len(dec)))
	z, ok, err := s.encodeLZF(dst[at:at], dec, target)
	if err != nil {
		return dst, start, err
	}
	if !ok {
		var hb [maxHead]byte
		return append(append(dst, rdbio.AppendLen(hb[:0], uint64(len(dec)))...), dec...), start, nil
	}
	var hb [maxHead]byte
	head := rdbio.AppendStringHead(hb[:0], rdbio.EncLZF, 0, uint64(len(z)), uint64(len(dec)))
	dst = dst[:at+len(z)]
	copy(dst[at-len(head):], head)
	return dst, at - len(head), nil
}

// lzfBound is a budget no LZF stream of n bytes outgrows (a control byte
// for each 32 literals, and lzf_c.c's slack): encoding within it keeps
// every stream, as Redis wrote it.
func lzfBound(n int) int { return n + n/32 + 8 }

// encodeLZF LZF-encodes dec into dst[:0] as target has it: Redis's stream
// of it for TargetOriginal (the source held it so: ok, or an error for a
// 0xC5 string no stream stands for), else as Redis saves a string (ok
// false where Redis keeps it raw).
func (s *strWork) encodeLZF(dst, dec []byte, target Target) ([]byte, bool, error) {
	if target != TargetOriginal {
		z, ok := s.enc.RedisSave(dst, dec)
		return z, ok, nil
	}
	z, ok := s.enc.Encode(dst, dec, lzfBound(len(dec)))
	if !ok {
		return z, false, fmt.Errorf("%w: 0xC5 string does not LZF-encode", rdbio.ErrCorrupt)
	}
	return z, true, nil
}

// errNoDecode is the error of an LZF string that does not decode to its
// claimed ulen bytes.
func errNoDecode(ulen int) error {
	return fmt.Errorf("%w: LZF string does not decode to %d bytes", rdbio.ErrCorrupt, ulen)
}

// original returns the form a string rewritten by a decoding mode has in
// the file T stands for (what TargetOriginal writes): T's own bytes,
// hold and p, but for a 0xC5 string, whose original is its decoded bytes
// LZF-encoded — out (head, body) itself when the rewrite made that
// already (TargetLZF), else encoded here. dec is the decoded string (nil
// or empty: p, for a 0xC5 string).
func (s *strWork) original(enc rdbio.Enc, hold, p, dec, head, body []byte) ([]byte, []byte, error) {
	if enc != rdbio.EncT {
		return hold, p, nil
	}
	if len(dec) == 0 {
		dec = p
	}
	if len(head) > 0 && head[0] == lzfByte {
		return head, body, nil
	}
	var err error
	if s.orig, _, err = s.encodeLZF(keep(s.orig, len(dec)), dec, TargetOriginal); err != nil {
		return nil, nil, err
	}
	s.origHead = rdbio.AppendStringHead(s.origHead[:0], rdbio.EncLZF, 0, uint64(len(s.orig)), uint64(len(dec)))
	return s.origHead, s.orig, nil
}

// decodeFaithful decodes the LZF string of prefix hold and payload comp
// into dst[:0] and reports whether it is faithful: hold is the head Redis
// writes before such a string and comp is Redis's stream of the decoded
// bytes (lzf.Encoder.DecodeFaithful), so that decompress gives back both.
func (s *strWork) decodeFaithful(dst, hold, comp []byte, ulen int) ([]byte, bool, error) {
	var buf [maxHead]byte
	if string(rdbio.AppendStringHead(buf[:0], rdbio.EncLZF, 0, uint64(len(comp)), uint64(ulen))) != string(hold) {
		dec, err := lzf.Decode(dst, comp, ulen)
		return dec, false, err
	}
	return s.enc.DecodeFaithful(dst, comp, ulen)
}

// A stringTaker takes strings of values from the rewrite for a worker:
// tpipe, and the tsink in front of one.
type stringTaker interface {
	// take reports false when the caller must do the string itself.
	take(enc rdbio.Enc, hold, p []byte, ulen int, at int64) (bool, error)
	// drain waits until what was taken has gone on.
	drain() error
}
