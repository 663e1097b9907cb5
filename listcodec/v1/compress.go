package v1

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/rdbz/rdbz/listcodec/format"
	"github.com/rdbz/rdbz/listcodec/node"
	"github.com/rdbz/rdbz/rdbio"
	"github.com/rdbz/rdbz/rdbio/lzf"
)

// CompressOptions configure Compress. A zero field means its default
// (DefaultCompressOptions, WithDefaults); "none" is a distinct value
// (NoMinSaving).
type CompressOptions struct {
	Flow
	// Dict is the dictionary to compress with; nil trains one from the
	// input (Train).
	Dict *node.Dict
	// NoEmbed writes AUX rdbz-dict-id instead of the dictionary itself.
	NoEmbed bool
	Level   zstd.EncoderLevel // 0 = DefaultLevel
	// MinSaving is the share of a node's stored size that compression must
	// save for the node to be stored compressed: 0 = DefaultMinSaving,
	// NoMinSaving = any saving.
	MinSaving float64
	// Verify decodes every compressed node and compares before writing it.
	Verify bool
	Train  TrainOptions
	// Phase, when set, is called as the work moves from one phase to the
	// next: "sampling" (the first pass over a file), "training",
	// "compressing", or "copying" when compression would not pay.
	Phase func(name string)
}

// phase reports the start of a phase to o.Phase, if set.
func (o *CompressOptions) phase(name string) {
	if o.Phase != nil {
		o.Phase(name)
	}
}

// Compress is CompressContext without cancellation.
func Compress(dst io.Writer, src io.Reader, opt CompressOptions) (*Stats, error) {
	return CompressContext(context.Background(), dst, src, opt)
}

// CompressContext writes an RDB stream in format 1: it rewrites its list
// nodes into zstd frames with one dictionary and copies everything else
// byte for byte. Without a dictionary it trains one: from a first pass
// over src when src is a regular file (and not Train.Stream), else from
// the first Train.TrainBytes of node bytes, held in memory meanwhile.
// Cancelling ctx stops it with ctx's error.
func CompressContext(ctx context.Context, dst io.Writer, src io.Reader, opt CompressOptions) (*Stats, error) {
	opt = opt.WithDefaults()
	start := time.Now()
	st := &Stats{}
	trained := false // by a first pass over the file
	if f, ok := src.(seekFile); ok && opt.Dict == nil && !opt.Train.Stream && isRegular(f) {
		opt.phase("sampling")
		d, note, err := trainFromFile(ctx, f, opt)
		if err != nil {
			return st, err
		}
		if d == nil {
			// Compression does not pay: a format-1 file all the same (its
			// marker, the nodes as they were), which decompress reads,
			// not an RDB it would refuse.
			st.Note = note
		}
		opt.Dict = d
		trained = true
	}
	opt.phase("compressing")
	c := &compressor{opt: opt, trained: trained}
	err := c.run(ctx, dst, src, st)
	st.Elapsed = time.Since(start)
	return st, err
}

// WithDefaults returns o with its zero fields given their defaults: the
// options Compress runs with (and the what-if predicts for).
func (o CompressOptions) WithDefaults() CompressOptions {
	if o.Level == 0 {
		o.Level = DefaultLevel
	}
	if o.MinSaving == 0 {
		o.MinSaving = DefaultMinSaving
	}
	o.Train = o.Train.withDefaults()
	o.Flow = withDefaults(o.Flow)
	return o
}

// seekFile is a regular file that can be read twice (*os.File).
type seekFile interface {
	io.ReadSeeker
	Stat() (os.FileInfo, error)
}

func isRegular(f seekFile) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode().IsRegular()
}

// compressState is where Compress is in training on a stream (Dragonfly's
// states); with a dictionary given or trained from a first pass it starts
// in stateCompress.
type compressState uint8

const (
	// stateWait: no dictionary yet and no list seen; records pass.
	stateWait compressState = iota
	// stateTrain: from the first list on, records are held and their nodes
	// sampled, until the sample is full (or the held bytes reach train
	// bytes + cap, or the input ends).
	stateTrain
	// stateCompress: the dictionary (or the decision to do without one)
	// is made; items flow to the workers and the writer.
	stateCompress
)

// compressor is Compress's handler of the transcoder.
type compressor struct {
	opt     CompressOptions
	trained bool // the dictionary (or none: opt.Dict nil) was decided by a first pass
	t       *transcoder
	state   compressState
	// stateTrain
	held    []*item
	heldB   int64
	sampler *nodeSampler
}

func (c *compressor) run(ctx context.Context, dst io.Writer, src io.Reader, st *Stats) error {
	t, err := newTranscoder(ctx, dst, src, c.opt.Flow, st)
	if err != nil {
		return err
	}
	c.t, t.h = t, c
	if err := t.ch.inject(formatAux()); err != nil {
		return t.p.stop(err)
	}
	switch {
	case c.opt.Dict != nil:
		c.state = stateCompress
		if err := c.useDict(c.opt.Dict); err != nil {
			return t.p.stop(err)
		}
	case c.trained: // no dictionary pays: the nodes pass as they are
		c.state = stateCompress
	default:
		c.state = stateWait
		c.sampler = newNodeSampler(c.opt.Train.SampleBytes, c.opt.Train.TrainBytes, c.opt.Train.seed())
	}
	return t.run()
}

// aux refuses a file that is rdbz-compressed already.
func (c *compressor) aux(rec *rdbio.Record) error {
	if bytes.HasPrefix(rec.Name, []byte(format.AuxPrefix)) {
		return errAlreadyCompressed(rec)
	}
	return nil
}

// list starts training at the first list record (stateWait → stateTrain).
// The record's bytes gathered so far are held too, so that the dictionary
// can go in front of them.
func (c *compressor) list(rec *rdbio.Record) error {
	if c.state != stateWait {
		return nil
	}
	t := c.t
	ok, err := t.ch.split(t.sent)
	if err != nil || !ok { // a key too long to hold back: try the next list
		return err
	}
	c.state = stateTrain
	return nil
}

// node samples a held node's decoded bytes while training.
func (c *compressor) node(it *item) error {
	if c.state != stateTrain {
		return nil
	}
	return c.sampler.add(it)
}

// emit holds items while training and queues them otherwise.
func (c *compressor) emit(it *item, toWorkers bool) error {
	if c.state != stateTrain {
		return c.t.queue(it, toWorkers)
	}
	return c.hold(it)
}

// formatAux is the marker record a compressed file starts with.
func formatAux() []byte {
	return rdbio.AppendAux(nil, []byte(format.AuxFormat), []byte(format.Version))
}

// dictAux is the records that bring a dictionary: the dictionary itself
// (or, noEmbed, its ID) and the checksum of its bytes.
func dictAux(d *node.Dict, noEmbed bool) []byte {
	id := strconv.FormatUint(uint64(d.ID), 10)
	var aux []byte
	if noEmbed {
		aux = rdbio.AppendAux(nil, []byte(format.AuxDictID), []byte(id))
	} else {
		aux = rdbio.AppendAux(nil, []byte(format.AuxDict), d.Bytes)
	}
	return rdbio.AppendAux(aux, []byte(format.AuxDictSum), []byte(id+":"+d.Sum()))
}

// sourceCRCAux goes before the trailer when the source's trailer was 0.
func sourceCRCAux() []byte {
	return rdbio.AppendAux(nil, []byte(format.AuxSourceCRC), []byte("0"))
}

// bigNode passes a node over the cap through unchanged.
func (c *compressor) bigNode(n *rdbio.Node) error { return c.t.passNode(n) }

// end records a source trailer of 0 (the output's is a real CRC64 always,
// so that no damaged frame goes unnoticed). After a record rdbio cannot
// walk no record can be added where a reader would find it: the source's
// trailer of 0 is kept instead (FORMAT.md §A.1.4).
func (c *compressor) end(eof *rdbio.Record) (rdbio.Trailer, error) {
	if eof.Checksum == rdbio.ChecksumDisabled && c.t.unwalked {
		return rdbio.TrailerZero, nil
	}
	if eof.Checksum == rdbio.ChecksumDisabled {
		if err := c.t.ch.inject(sourceCRCAux()); err != nil {
			return rdbio.Trailer{}, err
		}
	}
	return rdbio.TrailerCRC, nil
}

// useDict writes the dictionary's AUX records and starts the workers.
func (c *compressor) useDict(d *node.Dict) error {
	t := c.t
	if err := t.ch.inject(dictAux(d, c.opt.NoEmbed)); err != nil {
		return err
	}
	t.stats.DictID, t.stats.DictBytes = d.ID, len(d.Bytes)
	t.workers = true
	return t.p.startWorkers(c.opt.Workers, func() (nodeFunc, error) { return c.newWorker(d) })
}

// hold keeps an item in memory while training; when enough node bytes are
// seen, or the held bytes reach train bytes + cap, or the trailer comes, it
// trains and releases them.
func (c *compressor) hold(it *item) error {
	c.held = append(c.held, it)
	c.heldB += int64(len(it.buf) + len(it.hdr))
	if it.kind == itemTrailer || c.sampler.full() || c.heldB >= c.opt.Train.TrainBytes+int64(c.opt.Cap) {
		return c.release()
	}
	return nil
}

// release ends training (stateTrain → stateCompress): it builds the
// dictionary, and queues it and the held items (Dragonfly's bulk state);
// later items stream (its per-node state).
func (c *compressor) release() error {
	t := c.t
	c.state = stateCompress
	d, note, err := c.sampler.build(c.opt)
	if err != nil {
		return err
	}
	c.opt.phase("compressing")
	if d != nil {
		// The dictionary goes before the held records: flush them past
		// the chunker first so the AUX lands in front of them.
		if err := c.useDictBefore(d); err != nil {
			return err
		}
	} else {
		t.stats.Note = note
	}
	for _, h := range c.held {
		if err := t.queue(h, h.kind == itemNode); err != nil {
			return err
		}
	}
	c.held = nil
	return nil
}

// useDictBefore queues the dictionary AUX ahead of the held items (the
// chunker's pending bytes come after them).
func (c *compressor) useDictBefore(d *node.Dict) error {
	t := c.t
	cur := t.ch.cur
	t.ch.cur = nil
	err := c.useDict(d)
	t.ch.cur = cur
	return err
}

// worker compresses nodes with its own codec and scratch buffers.
type worker struct {
	opt   *CompressOptions
	codec *node.Codec
	lzf   lzf.Encoder
	raw   []byte
	chk   []byte
	ver   []byte
}

func (c *compressor) newWorker(d *node.Dict) (nodeFunc, error) {
	// Without a CRC64 trailer (RDB < 5) each frame carries a checksum.
	codec, err := node.NewCodec([]*node.Dict{d}, d, c.opt.Level, node.WithFrameChecksum(!c.t.r.Header().HasChecksum()))
	if err != nil {
		return nil, err
	}
	w := &worker{opt: &c.opt, codec: codec}
	return w.compress, nil
}

func (w *worker) compress(it *item) error {
	defer w.trimScratch()
	raw, ok, err := w.decoded(it)
	if err != nil || !ok {
		return err
	}
	frame := w.codec.Compress(it.out[:0], raw)
	newSize := int64(len(rdbio.AppendStringHead(w.chk[:0], rdbio.EncZstd, 0, uint64(len(frame)), it.node.ulen)) + len(frame))
	oldSize := int64(len(it.hdr) + len(it.buf))
	if it.node.container != 0 {
		newSize += int64(len(rdbio.AppendLen(w.chk[:0], it.node.container)))
	}
	if newSize >= oldSize || float64(oldSize-newSize) < w.opt.MinSaving*float64(oldSize) {
		it.out = frame
		return nil
	}
	if w.opt.Verify {
		back, err := w.codec.Decompress(w.ver[:0], frame, len(raw))
		w.ver = back
		if err != nil || !bytes.Equal(back, raw) {
			return nodeError(it, "verify", fmt.Errorf("%w (%v)", ErrVerify, err))
		}
	}
	it.out, it.outEnc, it.changed = frame, rdbio.EncZstd, true
	if it.node.enc == rdbio.EncLZF {
		it.outFlags = rdbio.ZstdFlagLZF
	}
	return nil
}

// trimScratch drops scratch buffers grown for a large node.
func (w *worker) trimScratch() {
	w.raw, w.chk, w.ver = trim(w.raw), trim(w.chk), trim(w.ver)
}

// decoded returns the node's bytes, or false to keep the node as it is
// (integer-encoded, or an LZF stream the encoder would not reproduce).
func (w *worker) decoded(it *item) ([]byte, bool, error) {
	switch it.node.enc {
	case rdbio.EncRaw:
		return it.buf, true, nil
	case rdbio.EncLZF:
		raw, err := lzf.Decode(w.raw[:0], it.buf, int(it.node.ulen))
		w.raw = raw
		if err != nil {
			return nil, false, nodeError(it, "LZF node", err)
		}
		chk, ok := w.lzf.Encode(w.chk[:0], raw, len(it.buf)+64)
		w.chk = chk
		if !ok || !bytes.Equal(chk, it.buf) {
			it.unfaithful = true
			return nil, false, nil
		}
		return raw, true, nil
	}
	return nil, false, nil
}
