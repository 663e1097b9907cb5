package listcodec

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/rdbz/rdbz/rdbio"
	"github.com/rdbz/rdbz/train"
)

// TrainOptions configure how Compress trains a dictionary when it is given
// none.
type TrainOptions struct {
	DictSize    int     // dictionary size (default train.DefaultDictSize)
	SampleBytes int64   // file mode: node bytes sampled uniformly over the file (default 2 MiB)
	TrainBytes  int64   // stream mode: node bytes held before training (default 16 MiB)
	Seed        int64   // same input and seed, same dictionary
	Stream      bool    // train from the first nodes even when the input is a file
	MinGain     float64 // the dictionary must beat the stored node bytes by this share (default 0.05)
}

func (o TrainOptions) withDefaults() TrainOptions {
	if o.DictSize <= 0 {
		o.DictSize = train.DefaultDictSize
	}
	if o.SampleBytes <= 0 {
		o.SampleBytes = 2 << 20
	}
	if o.TrainBytes <= 0 {
		o.TrainBytes = 16 << 20
	}
	if o.MinGain == 0 {
		o.MinGain = 0.05
	}
	return o
}

// nodeSampler keeps a bounded sample of decoded node strings and what the
// nodes it saw cost as stored.
type nodeSampler struct {
	s            *train.Sampler
	limit        int64
	stored, raw  int64 // all nodes seen
	scratch      []byte
	tagged       []byte
	lzfUndecoded int64
}

func newNodeSampler(limit, seed int64) *nodeSampler {
	return &nodeSampler{s: train.NewSampler(limit, seed), limit: limit}
}

// add samples one node item's decoded bytes. Each kept sample carries
// the node's stored size in its first 8 bytes (see split), so that the gate
// can weigh compressed against stored node by node.
func (n *nodeSampler) add(it *item) error {
	raw, err := n.decode(it.node.enc, it.buf, it.node.ulen)
	if err != nil {
		return nodeError(it, "LZF node", err)
	}
	if raw == nil {
		return nil
	}
	stored := int64(len(it.hdr) + len(it.buf))
	n.stored += stored
	n.raw += int64(len(raw))
	n.tagged = binary.LittleEndian.AppendUint64(n.tagged[:0], uint64(stored))
	n.tagged = append(n.tagged, raw...)
	n.s.Add(n.tagged)
	return nil
}

// split returns the samples' node bytes and stored sizes.
func (n *nodeSampler) split() ([][]byte, []int64) {
	tagged := n.s.Samples()
	raw := make([][]byte, len(tagged))
	stored := make([]int64, len(tagged))
	for i, t := range tagged {
		stored[i] = int64(binary.LittleEndian.Uint64(t))
		raw[i] = t[8:]
	}
	return raw, stored
}

func (n *nodeSampler) decode(enc rdbio.Enc, data []byte, ulen uint64) ([]byte, error) {
	raw, err := DecodeNode(n.scratch, &rdbio.Node{Enc: enc, Data: data, ULen: ulen})
	if enc == rdbio.EncLZF {
		n.scratch = raw
	}
	return raw, err
}

// full reports whether the stream-mode training budget is reached.
func (n *nodeSampler) full() bool {
	_, b := n.s.Seen()
	return b >= n.limit
}

// build trains a dictionary on the sample and returns it, or nil and the
// reason when compression would not pay: on a held-out part of the sample,
// with each node stored compressed only where that saves MinSaving (as
// compress decides), the nodes must come out MinGain smaller than stored.
func (n *nodeSampler) build(opt CompressOptions) (*Dict, string, error) {
	samples, stored := n.split()
	if len(samples) == 0 {
		return nil, "no list nodes to train on: nothing compressed", nil
	}
	p := train.Params{DictSize: dictSizeFor(opt.Train.DictSize, n.raw), Seed: opt.Train.Seed, Level: opt.Level}
	b, err := buildDict(samples, p)
	if errors.Is(err, train.ErrTooFewSamples) {
		return nil, "too little list data to train a dictionary: nothing compressed", nil
	}
	if err != nil {
		// A sample the trainer cannot use is no reason to fail: the
		// file is copied as it is, and the summary says why.
		return nil, fmt.Sprintf("no dictionary could be trained (%v): nothing compressed", err), nil
	}
	d, err := ParseDict(b)
	if err != nil {
		return nil, "", fmt.Errorf("trained dictionary: %w", err)
	}
	before, after, err := gateSizes(d, samples, stored, opt)
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

// dictSizeFor shrinks the dictionary for little list data: zstd's own
// advice is a dictionary of about a tenth (or less) of the data it serves.
func dictSizeFor(want int, rawBytes int64) int {
	const floor = 4 << 10
	if want <= 0 {
		want = train.DefaultDictSize
	}
	return int(max(min(int64(want), rawBytes/10), floor))
}

// buildDict runs the trainer, turning a panic into an error.
func buildDict(samples [][]byte, p train.Params) (dict []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("trainer failed: %v", r)
		}
	}()
	return train.Build(samples, p)
}

// gateSizes compresses a held-out tenth of the samples (all of them when
// there are few) as compress would and returns their stored and resulting
// node bytes.
func gateSizes(d *Dict, samples [][]byte, stored []int64, opt CompressOptions) (before, after int64, err error) {
	codec, err := NewCodec([]*Dict{d}, d, opt.Level)
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
		frame = codec.Compress(frame[:0], samples[i])
		head = rdbio.AppendStringHead(head[:0], rdbio.EncZstd, 0, uint64(len(frame)), uint64(len(samples[i])))
		c := int64(len(head) + len(frame))
		before += stored[i]
		if c < stored[i] && float64(stored[i]-c) >= opt.MinSaving*float64(stored[i]) {
			after += c
		} else {
			after += stored[i]
		}
	}
	return before, after, nil
}

// trainFromFile samples nodes uniformly over the whole file (a first
// pass), trains, and rewinds the file.
func trainFromFile(f seekFile, opt CompressOptions) (*Dict, string, error) {
	ns := newNodeSampler(opt.Train.SampleBytes, opt.Train.Seed)
	it := &item{}
	err := rdbio.ForEachNode(f, rdbio.Options{Cap: opt.Cap, IgnoreChecksum: opt.IgnoreChecksum}, func(key []byte, n *rdbio.Node) (bool, error) {
		if n.Data == nil {
			return true, nil // over the cap: never compressed
		}
		it.hdr, it.buf = n.Raw, n.Data
		it.node = nodeIn{enc: n.Enc, ulen: n.ULen, key: key, offset: n.Offset}
		return true, ns.add(it)
	})
	if err != nil {
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

// DecodeNode returns a node's bytes: raw as stored, or LZF decoded into
// dst. Integer-encoded and zstd nodes give nil.
func DecodeNode(dst []byte, n *rdbio.Node) ([]byte, error) {
	switch n.Enc {
	case rdbio.EncRaw:
		return n.Data, nil
	case rdbio.EncLZF:
		return rdbio.LZFDecode(dst[:0], n.Data, int(n.ULen))
	}
	return nil, nil
}

// ForEachAux calls fn with the name and value of each AUX record until fn
// returns false or the stream ends.
func ForEachAux(src io.Reader, fn func(name, value []byte) bool) error {
	r, err := rdbio.NewReader(src, rdbio.Options{})
	if err != nil {
		return err
	}
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if rec.Kind == rdbio.KindAux && !fn(rec.Name, rec.Value) {
			return nil
		}
	}
}
