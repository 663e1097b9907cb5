package listcodec

import (
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
	SampleBytes int64   // file mode: node bytes sampled uniformly over the file (default 8 MiB)
	TrainBytes  int64   // stream mode: node bytes held before training (default 4 MiB)
	Seed        int64   // same input and seed, same dictionary
	Stream      bool    // train from the first nodes even when the input is a file
	MinGain     float64 // the dictionary must beat the stored node bytes by this share (default 0.05)
}

func (o TrainOptions) withDefaults() TrainOptions {
	if o.DictSize <= 0 {
		o.DictSize = train.DefaultDictSize
	}
	if o.SampleBytes <= 0 {
		o.SampleBytes = 8 << 20
	}
	if o.TrainBytes <= 0 {
		o.TrainBytes = 4 << 20
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
	lzfUndecoded int64
}

func newNodeSampler(limit, seed int64) *nodeSampler {
	return &nodeSampler{s: train.NewSampler(limit, seed), limit: limit}
}

// add samples one node item's decoded bytes.
func (n *nodeSampler) add(it *item) error {
	raw, err := n.decode(it.node.enc, it.buf, it.node.ulen)
	if err != nil {
		return nodeError(it, "LZF node", err)
	}
	if raw == nil {
		return nil
	}
	n.stored += int64(len(it.hdr) + len(it.buf))
	n.raw += int64(len(raw))
	n.s.Add(raw)
	return nil
}

func (n *nodeSampler) decode(enc rdbio.Enc, data []byte, ulen uint64) ([]byte, error) {
	switch enc {
	case rdbio.EncRaw:
		return data, nil
	case rdbio.EncLZF:
		raw, err := LZFDecode(n.scratch[:0], data, int(ulen))
		n.scratch = raw
		return raw, err
	}
	return nil, nil
}

// full reports whether the stream-mode training budget is reached.
func (n *nodeSampler) full() bool {
	_, b := n.s.Seen()
	return b >= n.limit
}

// build trains a dictionary on the sample and returns it, or nil and the
// reason when compression would not pay: the dictionary, judged on a
// held-out part of the sample, must beat the nodes' stored size by MinGain.
func (n *nodeSampler) build(opt CompressOptions) (*Dict, string, error) {
	samples := n.s.Samples()
	if len(samples) == 0 {
		return nil, "no list nodes to train on: nothing compressed", nil
	}
	trainSet, evalSet := train.HeldOut(samples, 0.9, opt.Train.Seed)
	if len(evalSet) == 0 {
		evalSet = trainSet
	}
	p := train.Params{DictSize: opt.Train.DictSize, Seed: opt.Train.Seed, Level: opt.Level}
	b, err := train.Build(samples, p)
	if errors.Is(err, train.ErrTooFewSamples) {
		return nil, "too little list data to train a dictionary: nothing compressed", nil
	}
	if err != nil {
		return nil, "", fmt.Errorf("train dictionary: %w", err)
	}
	d, err := ParseDict(b)
	if err != nil {
		return nil, "", fmt.Errorf("trained dictionary: %w", err)
	}
	ev, err := train.Evaluate(b, evalSet, opt.Level)
	if err != nil {
		return nil, "", fmt.Errorf("evaluate dictionary: %w", err)
	}
	// What the held-out nodes cost as stored, scaled from all nodes seen.
	storedEval := float64(ev.Raw) * float64(n.stored) / float64(max(n.raw, 1))
	best := float64(min(ev.WithDict, ev.NoDict))
	if best > storedEval*(1-opt.Train.MinGain) {
		return nil, fmt.Sprintf("zstd saves under %.0f%% of the stored list nodes (%.0f -> %.0f bytes on the sample): copied unchanged",
			opt.Train.MinGain*100, storedEval, best), nil
	}
	return d, "", nil
}

// trainFromFile samples nodes uniformly over the whole file (a first
// pass), trains, and rewinds the file.
func trainFromFile(f seekFile, opt CompressOptions) (*Dict, string, error) {
	r, err := rdbio.NewReader(f, rdbio.Options{Cap: opt.Cap, IgnoreChecksum: opt.IgnoreChecksum})
	if err != nil {
		return nil, "", err
	}
	ns := newNodeSampler(opt.Train.SampleBytes, opt.Train.Seed)
	if err := sampleNodes(r, ns); err != nil {
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

// sampleNodes adds every list node of r to ns.
func sampleNodes(r *rdbio.Reader, ns *nodeSampler) error {
	it := &item{}
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) || errors.Is(err, rdbio.ErrUnsupported) {
			return nil
		}
		if err != nil {
			return err
		}
		if rec.Kind != rdbio.KindKey || !rdbio.IsList(rec.Type) {
			continue
		}
		if _, err := r.Nodes(); err != nil {
			return err
		}
		for {
			n, err := r.NextNode()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return err
			}
			if n.Data == nil {
				continue
			}
			it.hdr, it.buf = n.Raw, n.Data
			it.node = nodeIn{enc: n.Enc, ulen: n.ULen, key: rec.Key, offset: n.Offset}
			if err := ns.add(it); err != nil {
				return err
			}
		}
	}
}
