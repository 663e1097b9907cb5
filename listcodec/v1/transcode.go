package v1

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/rdbz/rdbz/listcodec/flow"
	"github.com/rdbz/rdbz/rdbio"
)

// Flow configures the pipeline of Compress and Decompress. A zero field
// means its default.
type Flow = flow.Flow

// withDefaults fills the zero fields of f from DefaultFlow.
func withDefaults(f Flow) Flow {
	d := DefaultFlow()
	f = f.WithDefaults()
	if f.QueueBytes <= 0 {
		f.QueueBytes = d.QueueBytes
	}
	return f
}

// transcoder is the reading side shared by Compress and Decompress: it
// walks the records, cuts list values into node items and hands every item
// to its handler, which decides what happens to it.
type transcoder struct {
	flow  Flow
	r     *rdbio.Filter
	w     *rdbio.Writer
	p     *pipeline
	ch    *chunker
	out   recordSink // the Reader's sink, in front of ch
	stats *Stats
	h     handler
	key   []byte       // the list key being read (shared by its nodes' items)
	nodes *rdbio.Nodes // the walk of its nodes
	// workers reports whether node items go to workers.
	workers bool
	// unwalked: a record rdbio cannot walk stopped the walk; the rest was
	// passed on as it is (PassBody), where no record can be added.
	unwalked bool
	keys     int64 // key records read
	// sent is how many bytes of the record read last the chunker had
	// when Next returned it (the rest follows with what is read next).
	sent int
}

// handler is what Compress and Decompress do at the points where they
// differ.
type handler interface {
	// aux sees every AUX record; it may leave it out (transcoder.drop).
	aux(rec *rdbio.Record) error
	// list is called at every list key record, before its nodes.
	list(rec *rdbio.Record) error
	// node sees every node item before it is emitted.
	node(it *item) error
	// emit passes an item on towards the writer (toWorkers: a node that
	// workers may re-encode).
	emit(it *item, toWorkers bool) error
	// bigNode handles, on the reading side, a node over the cap (stored, or
	// decoded): it is streamed, never held whole.
	bigNode(n *rdbio.Node) error
	// end is called at the EOF record, before the trailer: it may inject
	// records, and chooses the trailer.
	end(eof *rdbio.Record) (rdbio.Trailer, error)
}

func newTranscoder(ctx context.Context, dst io.Writer, src io.Reader, flow Flow, stats *Stats) (*transcoder, error) {
	flow = withDefaults(flow)
	rr, err := rdbio.NewReader(src, flow.Options)
	if err != nil {
		return nil, err
	}
	r := rdbio.NewFilter(rr, flow.Keep)
	w, err := rdbio.NewWriter(dst, r.Header())
	if err != nil {
		return nil, err
	}
	stats.InputEnvelope = r.Header().Envelope
	t := &transcoder{flow: flow, r: r, w: w, stats: stats}
	t.p = newPipeline(ctx, w, 64*flow.Workers+64, flow.QueueBytes, stats)
	t.ch = &chunker{p: t.p}
	t.ch.send = func(it *item) error { return t.h.emit(it, false) }
	t.out.w = t.ch
	if err := r.SetSink(&t.out); err != nil {
		return nil, t.p.stop(err)
	}
	return t, nil
}

// queue sends an item to the pipeline. A node item that no worker will see
// is marked done (unchanged) first.
func (t *transcoder) queue(it *item, toWorkers bool) error {
	if it.kind == itemNode && !(toWorkers && t.workers) {
		it.done <- struct{}{}
		toWorkers = false
	}
	return t.p.send(it, toWorkers)
}

// run reads every record and returns when the output is complete.
func (t *transcoder) run() error {
	err := t.records()
	if err != nil {
		// A node error found by a worker lies earlier in the input than
		// whatever stopped the reader (the trailer, say): report it first.
		if perr := t.p.finish(); perr != nil {
			return perr
		}
		return err
	}
	if err := t.p.finish(); err != nil {
		return err
	}
	t.stats.BytesIn, t.stats.BytesOut = t.r.Offset(), t.w.Written()
	f := t.r.Filtered()
	t.stats.Keys, t.stats.LeftOut = t.keys, f.LeftOut
	return nil
}

func (t *transcoder) records() error {
	for {
		rec, err := t.next()
		if errors.Is(err, rdbio.ErrUnsupported) {
			return t.passBody()
		}
		if err != nil {
			return err
		}
		if rec.Kind == rdbio.KindKey {
			t.keys++
		}
		switch {
		case rec.Kind == rdbio.KindAux:
			err = t.h.aux(rec)
			if err == nil {
				_, err = t.out.pass()
			}
		case rec.Kind == rdbio.KindKey && rdbio.IsList(rec.Type):
			err = t.list(rec)
		case rec.Kind == rdbio.KindEOF:
			return t.end(rec)
		}
		if err != nil {
			return err
		}
		if err := t.p.failed(); err != nil {
			return err
		}
	}
}

// next reads the next record with its bytes held (recordSink): an AUX
// record's until the handler has seen it, the others' go on at once.
func (t *transcoder) next() (*rdbio.Record, error) {
	if err := t.r.Finish(); err != nil {
		return nil, err
	}
	t.out.hold()
	rec, err := t.r.Next()
	if err == nil && rec.Kind == rdbio.KindAux {
		return rec, nil
	}
	sent, perr := t.out.pass()
	t.sent = sent
	if err == nil {
		err = perr
	}
	return rec, err
}

// drop leaves the AUX record Next returned last out of the output: its
// bytes still in the Reader go to the hold, which forgets them all.
func (t *transcoder) drop() error {
	if err := t.r.Finish(); err != nil {
		return err
	}
	t.out.held = t.out.held[:0]
	return nil
}

// recordSink is the Reader's sink in front of the chunker. From hold on
// it holds what it is written, the first bytes of the record being read,
// until pass sends them on (or drop forgets them).
type recordSink struct {
	w       io.Writer
	held    []byte
	holding bool
}

func (s *recordSink) Write(p []byte) (int, error) {
	if s.holding {
		s.held = append(s.held, p...)
		return len(p), nil
	}
	return s.w.Write(p)
}

// hold holds what follows until pass.
func (s *recordSink) hold() {
	s.holding, s.held = true, s.held[:0]
}

// pass sends what was held on, stops holding and reports how many bytes
// it sent.
func (s *recordSink) pass() (int, error) {
	s.holding = false
	p := s.held
	if len(p) == 0 {
		return 0, nil
	}
	s.held = s.held[:0]
	_, err := s.w.Write(p)
	return len(p), err
}

// passBody copies the rest unchanged after a record rdbio cannot walk.
func (t *transcoder) passBody() error {
	eof, err := t.r.PassBody()
	if err != nil {
		return err
	}
	t.unwalked = true
	if t.stats.Note == "" {
		t.stats.Note = "the rest after an unknown record at its offset was copied unchanged"
	}
	return t.end(eof)
}

// end queues the trailer and whatever follows it.
func (t *transcoder) end(eof *rdbio.Record) error {
	if err := t.ch.flush(); err != nil {
		return err
	}
	tr, err := t.h.end(eof)
	if err != nil {
		return err
	}
	it := t.p.newItem(itemTrailer)
	it.trailer = tr
	if err := t.h.emit(it, false); err != nil {
		return err
	}
	if _, err := t.r.CopyRest(t.ch.rest()); err != nil {
		return err
	}
	return t.ch.flush()
}

// list cuts a list value into node items.
func (t *transcoder) list(rec *rdbio.Record) error {
	t.key = bytes.Clone(rec.Key)
	if err := t.h.list(rec); err != nil {
		return err
	}
	nodes, err := t.r.Value().Nodes()
	if err != nil {
		return err
	}
	t.nodes = nodes
	for nodes.Next() {
		if err := t.node(nodes.Node()); err != nil {
			return err
		}
	}
	return nodes.Err()
}

func (t *transcoder) node(n *rdbio.Node) error {
	if err := t.ch.flush(); err != nil {
		return err
	}
	if n.Data == nil || decodesOverCap(n, t.flow.Cap) {
		t.stats.Big++
		return t.h.bigNode(n)
	}
	it := t.p.newItem(itemNode)
	it.hdr = append(it.hdr, n.Raw...)
	it.buf = append(it.buf, n.Data...)
	it.node = nodeIn{container: n.Container, enc: n.Enc, flags: n.Flags, ulen: n.ULen, key: t.key, offset: n.Offset}
	if err := t.h.node(it); err != nil {
		return err
	}
	return t.h.emit(it, true)
}

// decodesOverCap reports a node whose stored bytes are captured but whose
// decoded bytes would be more than the cap: it is never decoded whole.
func decodesOverCap(n *rdbio.Node, capBytes int) bool {
	return (n.Enc == rdbio.EncLZF || n.Enc == rdbio.EncZstd) && n.ULen > uint64(capBytes)
}

// passNode writes a node through unchanged, streaming its payload when it
// was not captured.
func (t *transcoder) passNode(n *rdbio.Node) error {
	if _, err := t.ch.Write(n.Raw); err != nil {
		return err
	}
	if n.Data != nil {
		_, err := t.ch.Write(n.Data)
		return err
	}
	return t.nodes.CopyData(t.ch)
}

// nodeError names the node's offset and key.
func nodeError(it *item, what string, err error) error {
	return &rdbio.Error{Offset: it.node.offset, Key: it.node.key, What: what, Err: err}
}

func errAlreadyCompressed(rec *rdbio.Record) error {
	return fmt.Errorf("%w (AUX %s at offset %d): decompress it first", ErrAlreadyCompressed, rec.Name, rec.Offset)
}
