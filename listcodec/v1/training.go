package v1

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/klauspost/compress/zstd"
	"github.com/rdbz/rdbz/listcodec/format"
	"github.com/rdbz/rdbz/listcodec/node"
	"github.com/rdbz/rdbz/rdbio"
	"github.com/rdbz/rdbz/rdbio/lzf"
	"github.com/rdbz/rdbz/train"
)

// TrainOptions configure how Compress trains a dictionary when it is given
// none (and how `rdbz train` does: the same rules, see BuildDict). A zero
// field means its default (DefaultTrainOptions); a value other than the
// default, "none" included, is a distinct value: Seed is a pointer so that
// seed 0 can be given.
type TrainOptions struct {
	DictSize    int    // largest dictionary size; 0 = DefaultDictSize
	SampleBytes int64  // file mode: node bytes sampled uniformly over the file; 0 = DefaultSampleBytes
	TrainBytes  int64  // stream mode: node bytes held before training; 0 = DefaultTrainBytes
	Seed        *int64 // same input and seed, same dictionary; nil = train.DefaultSeed
	Tries       int    // shuffle seeds tried (train.Params.Tries); 0 = DefaultTries
	ID          uint32 // dictionary ID; 0 derives one from the content (train.Params.ID)
	Stream      bool   // train from the first nodes even when the input is a file; false = file mode for files
	// MinGain is the share of the sampled nodes' stored size the trained
	// dictionary must save, or the input is copied unchanged; 0 =
	// DefaultMinGain, -Inf: none (the what-if's forced dictionary).
	MinGain float64
}

// noMinGain as TrainOptions.MinGain keeps a dictionary whatever it saves.
var noMinGain = math.Inf(-1)

// seed is the training seed: Seed, or train.DefaultSeed when nil.
func (o TrainOptions) seed() int64 {
	if o.Seed == nil {
		return train.DefaultSeed
	}
	return *o.Seed
}

// withDefaults fills the zero fields from DefaultTrainOptions.
func (o TrainOptions) withDefaults() TrainOptions {
	d := DefaultTrainOptions()
	if o.DictSize <= 0 {
		o.DictSize = d.DictSize
	}
	if o.SampleBytes <= 0 {
		o.SampleBytes = d.SampleBytes
	}
	if o.TrainBytes <= 0 {
		o.TrainBytes = d.TrainBytes
	}
	if o.Tries <= 0 {
		o.Tries = d.Tries
	}
	if o.MinGain == 0 {
		o.MinGain = d.MinGain
	}
	return o
}

// NodeSample is one sampled list node: its decoded bytes, and what it
// costs as stored in the input (string prefix and payload), against which
// the gate weighs its compressed size.
type NodeSample struct {
	Data   []byte
	Stored int64
}

// nodeSampleMeta is what a kept NodeSample costs the sample budget beyond
// its bytes.
const nodeSampleMeta = 8

// nodeSampler keeps a bounded sample of decoded node strings and what the
// nodes it saw cost as stored.
type nodeSampler struct {
	s           *train.Sampler[NodeSample]
	limit       int64
	stored, raw int64 // all nodes seen
	scratch     []byte
}

// newNodeSampler keeps a uniform sample of up to budget bytes; full
// reports when limit node bytes have been seen (a stream holds them
// meanwhile).
func newNodeSampler(budget, limit, seed int64) *nodeSampler {
	return &nodeSampler{s: train.NewSampler[NodeSample](budget, seed), limit: limit}
}

// add samples one node item's decoded bytes. An LZF node is decoded only
// if the sample keeps it (its decoded length is in its header): on an LZF
// dump, decoding every node made the sampling pass 4× slower. A damaged
// node that is not sampled fails later, when compress decodes it.
func (n *nodeSampler) add(it *item) error {
	var size int64
	switch it.node.enc {
	case rdbio.EncRaw:
		size = int64(len(it.buf))
	case rdbio.EncLZF:
		size = int64(it.node.ulen)
	default:
		return nil
	}
	stored := int64(len(it.hdr) + len(it.buf))
	n.stored += stored
	n.raw += size
	var err error
	n.s.Add(size+nodeSampleMeta, func() NodeSample {
		var raw []byte
		raw, err = n.decode(it.node.enc, it.buf, it.node.ulen)
		return NodeSample{Data: bytes.Clone(raw), Stored: stored}
	})
	if err != nil {
		return nodeError(it, "LZF node", err)
	}
	return nil
}

func (n *nodeSampler) decode(enc rdbio.Enc, data []byte, ulen uint64) ([]byte, error) {
	raw, err := decodeNode(n.scratch, &rdbio.Node{Enc: enc, Data: data, ULen: ulen})
	if enc == rdbio.EncLZF {
		n.scratch = raw
	}
	return raw, err
}

// full reports whether the stream-mode training budget is reached: limit
// bytes of nodes seen.
func (n *nodeSampler) full() bool {
	_, b := n.s.Seen()
	return b >= n.limit
}

// build trains a dictionary on the sample (BuildDict) and returns it, or
// nil and the reason when compression would not pay: on a held-out part of
// the sample, with each node stored compressed only where that saves
// MinSaving (as compress decides), the nodes must come out MinGain smaller
// than stored, and what the nodes seen save must exceed the dictionary's
// own size.
func (n *nodeSampler) build(opt CompressOptions) (*node.Dict, string, error) {
	samples := n.s.Samples()
	if len(samples) == 0 {
		return nil, "no list nodes to train on: nothing compressed", nil
	}
	opt.phase("training")
	d, err := BuildDict(samples, n.raw, opt.Train, opt.Level)
	if errors.Is(err, train.ErrTooFewSamples) {
		return nil, "too little list data to train a dictionary: nothing compressed", nil
	}
	var te *trainerError
	if errors.As(err, &te) {
		// A sample the trainer cannot use is no reason to fail: the
		// file is copied as it is, and the summary says why.
		return nil, fmt.Sprintf("no dictionary could be trained (%v): nothing compressed", te.err), nil
	}
	if err != nil {
		return nil, "", err
	}
	before, after, err := gateSizes(d, samples, opt)
	if err != nil {
		return nil, "", err
	}
	if float64(after) > float64(before)*(1-opt.Train.MinGain) {
		return nil, fmt.Sprintf("zstd saves under %.0f%% of the stored list nodes (%d -> %d bytes on the sample): copied unchanged",
			opt.Train.MinGain*100, before, after), nil
	}
	// The dictionary is written into the file: the nodes seen must save
	// more than it costs.
	if saved := float64(n.stored) * float64(before-after) / float64(before); saved <= float64(len(d.Bytes)) {
		return nil, fmt.Sprintf("the %d-byte dictionary would cost more than the ~%.0f bytes it saves: copied unchanged",
			len(d.Bytes), saved), nil
	}
	return d, "", nil
}

// BuildDict trains the dictionary that Compress would train from these
// node samples (rawBytes: the decoded bytes of all the nodes they were
// drawn from, which caps the dictionary at a tenth of them) for the given
// level. `rdbz train` and Compress both build through it, so the same
// sample and options give the same dictionary. An error wraps
// train.ErrTooFewSamples when the samples cannot train one.
func BuildDict(samples []NodeSample, rawBytes int64, opt TrainOptions, level zstd.EncoderLevel) (*node.Dict, error) {
	opt = opt.withDefaults()
	data := make([][]byte, len(samples))
	for i, s := range samples {
		data[i] = s.Data
	}
	p := train.Params{DictSize: dictSizeFor(opt.DictSize, rawBytes), Seed: opt.seed(), Tries: opt.Tries, ID: opt.ID, Level: level}
	b, err := trainDict(data, p)
	if err != nil {
		return nil, err
	}
	d, err := node.ParseDict(b)
	if err != nil {
		return nil, fmt.Errorf("trained dictionary: %w", err)
	}
	return d, nil
}

// dictSizeFor shrinks the dictionary for little list data: zstd's own
// advice is a dictionary of about a tenth (or less) of the data it serves.
func dictSizeFor(want int, rawBytes int64) int {
	const floor = 4 << 10
	if want <= 0 {
		want = train.DefaultDictSize
	}
	return int(max(min(int64(want), rawBytes/10), floor))
}

// trainerError is a failure of the trainer itself (not of its input).
type trainerError struct{ err error }

func (e *trainerError) Error() string { return e.err.Error() }
func (e *trainerError) Unwrap() error { return e.err }

// trainDict runs the trainer; a failure of its own (a panic included)
// comes back as a *trainerError.
func trainDict(samples [][]byte, p train.Params) (dict []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &trainerError{fmt.Errorf("trainer failed: %v", r)}
		}
	}()
	res, err := train.Train(samples, p)
	if err != nil && !errors.Is(err, train.ErrTooFewSamples) {
		err = &trainerError{err}
	}
	return res.Dict, err
}

// gateSizes compresses a held-out tenth of the samples (all of them when
// there are few) as compress would and returns their stored and resulting
// node bytes.
func gateSizes(d *node.Dict, samples []NodeSample, opt CompressOptions) (before, after int64, err error) {
	codec, err := node.NewCodec([]*node.Dict{d}, d, opt.Level)
	if err != nil {
		return 0, 0, err
	}
	defer codec.Close()
	var frame, head []byte
	step := 1
	if len(samples) >= 50 {
		step = 10
	}
	for i := 0; i < len(samples); i += step {
		s := samples[i]
		frame = codec.Compress(frame[:0], s.Data)
		head = rdbio.AppendStringHead(head[:0], rdbio.EncZstd, 0, uint64(len(frame)), uint64(len(s.Data)))
		c := int64(len(head) + len(frame))
		before += s.Stored
		if c < s.Stored && float64(s.Stored-c) >= opt.MinSaving*float64(s.Stored) {
			after += c
		} else {
			after += s.Stored
		}
	}
	return before, after, nil
}

// trainFromFile samples nodes uniformly over the whole file (a first
// pass), trains, and rewinds the file.
func trainFromFile(ctx context.Context, f seekFile, opt CompressOptions) (*node.Dict, string, error) {
	if err := refuseCompressed(f, opt.Flow); err != nil {
		return nil, "", err
	}
	ns := newNodeSampler(opt.Train.SampleBytes, opt.Train.SampleBytes, opt.Train.seed())
	if err := ns.addAll(ctx, f, opt.Options, opt.Keep, false); err != nil {
		return nil, "", fmt.Errorf("sampling pass: %w", err)
	}
	d, note, err := ns.build(opt)
	if err != nil {
		return nil, "", err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, "", fmt.Errorf("rewind input: %w", err)
	}
	return d, note, nil
}

// refuseCompressed fails when the file's first record is rdbz's marker
// (FORMAT.md puts it first), and rewinds the file.
func refuseCompressed(f seekFile, flow Flow) error {
	r, err := rdbio.NewReader(f, flow.Options)
	if err == nil {
		if rec, err := r.Next(); err == nil && rec.Kind == rdbio.KindAux && string(rec.Name) == format.AuxFormat {
			return errAlreadyCompressed(rec)
		}
	}
	_, err = f.Seek(0, io.SeekStart)
	return err
}

// addAll samples the list nodes of an RDB stream (of the keys keep keeps,
// nil: all): all of them, or only until the sample budget is reached when
// untilFull.
func (n *nodeSampler) addAll(ctx context.Context, src io.Reader, ropt rdbio.Options, keep func(*rdbio.Record) bool, untilFull bool) error {
	it := &item{}
	return rdbio.ForEachKeptNode(src, ropt, keep, func(key []byte, node *rdbio.Node) (bool, error) {
		if err := ctx.Err(); err != nil {
			return false, err
		}
		if node.Data == nil || decodesOverCap(node, ropt.CapBytes()) {
			return true, nil // over the cap: never compressed
		}
		it.hdr, it.buf = node.Raw, node.Data
		it.node = nodeIn{enc: node.Enc, ulen: node.ULen, key: key, offset: node.Offset}
		if err := n.add(it); err != nil {
			return false, err
		}
		return !untilFull || !n.full(), nil
	})
}

// NodeSampler collects the sample of list nodes that training uses, the way
// Compress collects it: a bounded, uniform, reproducible (per seed) sample
// of the decoded node strings, and what the nodes cost as stored.
type NodeSampler struct {
	ns  *nodeSampler
	opt TrainOptions
}

// NewNodeSampler returns a sampler with opt's budget (SampleBytes) and seed.
func NewNodeSampler(opt TrainOptions) *NodeSampler {
	opt = opt.withDefaults()
	return &NodeSampler{ns: newNodeSampler(opt.SampleBytes, opt.SampleBytes, opt.seed()), opt: opt}
}

// AddAll samples the list nodes of an RDB stream: all of them, or, when
// untilFull (a stream that cannot be read twice), only until the nodes seen
// fill the budget. Cancelling ctx stops it with ctx's error.
func (s *NodeSampler) AddAll(ctx context.Context, src io.Reader, ropt rdbio.Options, untilFull bool) error {
	return s.ns.addAll(ctx, src, ropt, nil, untilFull)
}

// Samples returns the nodes kept, in input order.
func (s *NodeSampler) Samples() []NodeSample { return s.ns.s.Samples() }

// Seen returns how many node bytes were decoded to be offered.
func (s *NodeSampler) Seen() int64 { return s.ns.raw }

// Dict builds the dictionary from samples (all of Samples, or a part of
// them) with the sampler's options, as Compress would.
func (s *NodeSampler) Dict(samples []NodeSample, level zstd.EncoderLevel) (*node.Dict, error) {
	return BuildDict(samples, s.ns.raw, s.opt, level)
}

// decodeNode returns a node's bytes: raw as stored, or LZF decoded into
// dst. Integer-encoded and zstd nodes give nil.
func decodeNode(dst []byte, n *rdbio.Node) ([]byte, error) {
	switch n.Enc {
	case rdbio.EncRaw:
		return n.Data, nil
	case rdbio.EncLZF:
		return lzf.Decode(dst[:0], n.Data, int(n.ULen))
	}
	return nil, nil
}

// HeldOutDict trains, as Dict does, on nine tenths of samples (chosen by the
// sampler's seed) and returns that dictionary and the other tenth, on which
// it can be judged fairly (EvaluateDict).
func (s *NodeSampler) HeldOutDict(samples []NodeSample, level zstd.EncoderLevel) (*node.Dict, []NodeSample, error) {
	trainSet, evalSet := train.HeldOut(samples, 0.9, s.opt.seed())
	d, err := s.Dict(trainSet, level)
	return d, evalSet, err
}

// DictEval is what a dictionary makes of node samples, each compressed
// alone: their bytes raw, LZF-compressed as Redis saves them, and as zstd
// frames without and with the dictionary.
type DictEval struct {
	Samples                    int
	Raw, LZF, NoDict, WithDict int64
}

// EvaluateDict compresses each sample alone at the given level (see
// train.Evaluate) and as Redis would save it with LZF.
func EvaluateDict(d *node.Dict, samples []NodeSample, level zstd.EncoderLevel) (DictEval, error) {
	data := make([][]byte, len(samples))
	for i, s := range samples {
		data[i] = s.Data
	}
	st, err := train.Evaluate(d.Bytes, data, level)
	if err != nil {
		return DictEval{}, err
	}
	ev := DictEval{Samples: st.Samples, Raw: st.Raw, NoDict: st.NoDict, WithDict: st.WithDict}
	var enc lzf.Encoder
	var buf []byte
	for _, b := range data {
		var ok bool
		if buf, ok = enc.RedisSave(buf, b); ok {
			ev.LZF += int64(len(buf))
		} else {
			ev.LZF += int64(len(b))
		}
	}
	return ev, nil
}
