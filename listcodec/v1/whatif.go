package v1

import (
	"bytes"
	"fmt"
	"math"
	"time"

	"github.com/rdbz/rdbz/listcodec/format2"
	"github.com/rdbz/rdbz/listcodec/node"
	"github.com/rdbz/rdbz/rdbio"
	"github.com/rdbz/rdbz/rdbio/lzf"
	"github.com/rdbz/rdbz/train"
)

// WhatIf predicts, from one pass over a file, the size of the file Compress
// would write from it, and what the file's list nodes would take stored
// raw, as Redis saves them with LZF, and as zstd frames without and with a
// dictionary. Feed it every list node with Node, then call Estimate.
//
// It reuses Compress's own parts, so that the prediction follows their
// rules as they are: the sampler Compress's file mode trains on (same
// budget and seed: the same dictionary), the training and the gate
// (nodeSampler.build), and the worker's per-node decision (faithful LZF,
// MinSaving). What it cannot do in one pass is compress every node with a
// dictionary trained at the end, so it compresses a second, independent
// uniform sample of the nodes (as stored, up to the sample budget) and
// scales its result by stored bytes; when that sample holds every node the
// prediction is exact.
//
// Memory: the two samples (at most 2 × Train.SampleBytes) plus what
// training takes.
type WhatIf struct {
	opt    CompressOptions
	ns     *nodeSampler            // Compress's training sample
	est    *train.Sampler[estNode] // the estimation sample
	it     item
	nodes  int64
	stored int64 // all node strings as stored (prefix and payload)
	raw    int64 // all node strings stored raw
	// eligible nodes: captured, stored raw or LZF (the nodes Compress may
	// re-encode)
	eligible        int64
	eligStored      int64
	eligDecoded     int64
	decoded         int64 // all nodes' decoded payloads
	interiorDecoded int64
}

// estSeed makes the estimation sample independent of the training one.
const estSeed = 0x657374696d617465

// NewWhatIf returns a WhatIf for Compress run with opt (the options of
// `rdbz compress` with its flags; defaults are applied as Compress does).
func NewWhatIf(opt CompressOptions) *WhatIf {
	opt = opt.WithDefaults()
	return &WhatIf{
		opt: opt,
		ns:  newNodeSampler(opt.Train.SampleBytes, opt.Train.SampleBytes, opt.Train.seed()),
		est: train.NewSampler[estNode](opt.Train.SampleBytes, opt.Train.seed()^estSeed),
	}
}

// estNode is one node of the estimation sample, as stored.
type estNode struct {
	enc       rdbio.Enc
	flags     byte
	interior  bool // neither the first nor the last node of its list
	container uint64
	ulen      uint64
	hdr, buf  []byte // the node's prefix bytes (n.Raw) and its payload
}

// estNodeMeta is what a kept estNode costs the sample budget beyond its
// bytes.
const estNodeMeta = 16

// Node takes one list node as rdbio's Reader returns it, with its key,
// index in the list and the list's node count. It does not keep n.
func (w *WhatIf) Node(key []byte, n *rdbio.Node, index, count uint64) error {
	stored := int64(len(n.Raw)) + int64(n.Size)
	w.nodes++
	w.stored += stored
	if n.Enc == rdbio.EncInt {
		w.raw += stored
		w.decoded += int64(n.Size)
		return nil
	}
	w.raw += rawNodeSize(n.Container, n.ULen)
	w.decoded += int64(n.ULen)
	interior := index > 0 && index+1 < count
	if interior {
		w.interiorDecoded += int64(n.ULen)
	}
	if n.Data == nil || decodesOverCap(n, w.opt.Cap) {
		return nil // over the cap: Compress leaves it as it is
	}
	it := &w.it
	it.hdr, it.buf = n.Raw, n.Data
	it.node = nodeIn{container: n.Container, enc: n.Enc, flags: n.Flags, ulen: n.ULen, key: key, offset: n.Offset}
	if err := w.ns.add(it); err != nil { // exactly as Compress's sampling pass
		return err
	}
	if n.Enc != rdbio.EncRaw && n.Enc != rdbio.EncLZF {
		return nil
	}
	w.eligible++
	w.eligStored += stored
	w.eligDecoded += int64(n.ULen)
	w.est.Add(estNodeMeta+stored, func() estNode {
		return estNode{enc: n.Enc, flags: n.Flags, interior: interior, container: n.Container, ulen: n.ULen,
			hdr: bytes.Clone(n.Raw), buf: bytes.Clone(n.Data)}
	})
	return nil
}

// rawNodeSize is a node string's size stored raw: container length,
// string length, payload.
func rawNodeSize(container, ulen uint64) int64 {
	var b [20]byte
	n := len(rdbio.AppendLen(b[:0], ulen)) + int(ulen)
	if container != 0 {
		n += len(rdbio.AppendLen(b[:0], container))
	}
	return int64(n)
}

// WhatIfReport is what Estimate predicts. Node sizes count node strings as
// stored in the file (container length, string prefix, payload); nodes
// Compress leaves alone (over the capture cap, integer-encoded) count as
// stored in every variant.
type WhatIfReport struct {
	// RdbzCompressBytes is the size of the file `rdbz compress` would
	// write with these settings: FileBytes when it would copy the input
	// unchanged (the dictionary does not pay) or refuse it (already
	// compressed).
	RdbzCompressBytes int64 `json:"rdbz_compress_bytes"`
	FileBytes         int64 `json:"file_bytes"`
	// Format2 is what compress writes by default, format 2, predicted by
	// compressing the dump's start (SetFormat2); RdbzCompressBytes is then
	// its Bytes, and the node estimates below are format 1's
	// (`compress --format 1`).
	Format2 *format2.Prediction `json:"format2,omitempty"`
	// Format1Bytes is `compress --format 1`'s size, when Format2 is set.
	Format1Bytes int64 `json:"rdbz_compress_format1_bytes,omitempty"`
	// Unchanged says Compress would copy the input as it is; Note why.
	Unchanged bool   `json:"compress_copies_unchanged"`
	Note      string `json:"note,omitempty"`
	// Exact says the estimation sample held every eligible node, so that
	// the node sizes below are computed, not scaled.
	Exact bool `json:"exact"`
	// DictID and DictBytes describe the dictionary rdbz trains (also when
	// Compress would not use it).
	DictID    uint32        `json:"dict_id,omitempty"`
	DictBytes int           `json:"dict_bytes"`
	Nodes     NodeEstimates `json:"list_nodes"`
	// Dragonfly is the in-memory estimate for Dragonfly's
	// dictionary-compressed lists.
	Dragonfly    DragonflyMemory `json:"dragonfly_memory"`
	Sample       SampleInfo      `json:"sample"`
	Settings     WhatIfSettings  `json:"settings"`
	TrainSeconds float64         `json:"train_seconds"`
}

// NodeEstimates are the bytes of all list node strings under each encoding.
type NodeEstimates struct {
	Nodes int64 `json:"nodes"`
	// Eligible nodes are the ones Compress may re-encode: captured
	// (within the cap) and stored raw or LZF.
	Eligible int64 `json:"eligible_nodes"`
	Stored   int64 `json:"stored_bytes"`
	Raw      int64 `json:"raw_bytes"` // every node raw (rdbcompression no)
	LZF      int64 `json:"lzf_bytes"` // as Redis saves with rdbcompression yes
	// Zstd is one frame per node without a dictionary; ZstdDict with
	// rdbz's trained dictionary, the dictionary's size included.
	Zstd     int64 `json:"zstd_bytes"`
	ZstdDict int64 `json:"zstd_dict_bytes"`
	// Rdbz is what Compress writes for the nodes (its per-node rules: a
	// node is re-encoded only when that saves MinSaving of its stored
	// size, LZF nodes only when rdbz reproduces their LZF bytes), without
	// the dictionary and marker records.
	Rdbz int64 `json:"rdbz_bytes"`
}

// DragonflyMemory estimates list node memory in Dragonfly with its zstd
// dictionary mode: interior nodes (neither the first nor the last of
// their list) of at least 256 bytes are kept compressed only when that
// saves 30% and 32 bytes (qlist.cc CompressNodeWithDict). rdbz's
// dictionary stands in for Dragonfly's own.
type DragonflyMemory struct {
	DecodedBytes    int64   `json:"decoded_bytes"`
	EstimatedBytes  int64   `json:"estimated_bytes"`
	CompressedShare float64 `json:"compressed_node_share"` // of sampled interior nodes
}

// SampleInfo says what the estimation sample held.
type SampleInfo struct {
	Nodes       int   `json:"nodes"`
	StoredBytes int64 `json:"stored_bytes"`
	TrainNodes  int   `json:"train_nodes"` // the training sample's nodes
	TrainBytes  int64 `json:"train_bytes"` // and the bytes it holds
}

// WhatIfSettings are the Compress options the prediction is for.
type WhatIfSettings struct {
	Level       int     `json:"level"`
	MinSaving   float64 `json:"min_saving"`
	DictSize    int     `json:"dict_size"`
	SampleBytes int64   `json:"sample_bytes"`
	Seed        int64   `json:"seed"`
	MinGain     float64 `json:"min_gain"`
	Cap         int     `json:"cap"`
}

// EstimateInput is what the pass that fed a WhatIf found about the input
// as a whole.
type EstimateInput struct {
	Bytes int64 // the whole input's size
	// Compressed: the input is rdbz-compressed already (Compress refuses it).
	Compressed bool
	// ChecksumDisabled: the input's CRC64 trailer is 0.
	ChecksumDisabled bool
}

// Estimate trains the dictionary Compress would train, compresses the
// estimation sample and predicts. It reports one phase, "training", to the
// options' Phase.
func (w *WhatIf) Estimate(in EstimateInput) (*WhatIfReport, error) {
	fileBytes, compressed := in.Bytes, in.Compressed
	w.opt.phase("training")
	o := w.opt
	o.Phase = nil // reported above, once
	rep := &WhatIfReport{FileBytes: fileBytes, RdbzCompressBytes: fileBytes,
		Settings: WhatIfSettings{Level: format2.ZstdLevel(o.Level), MinSaving: o.MinSaving, DictSize: o.Train.DictSize,
			SampleBytes: o.Train.SampleBytes, Seed: o.Train.seed(), MinGain: o.Train.MinGain, Cap: o.Cap}}
	rep.Nodes = NodeEstimates{Nodes: w.nodes, Eligible: w.eligible, Stored: w.stored, Raw: w.raw}
	tn, tb := w.ns.s.Kept()
	rep.Sample.TrainNodes, rep.Sample.TrainBytes = tn, tb
	if compressed {
		rep.Unchanged = true
		rep.Note = "the input is rdbz-compressed already: rdbz compress refuses it (decompress first)"
	}
	var dict *node.Dict
	if !compressed { // (its nodes are zstd already: nothing to train on)
		start := time.Now()
		d, note, err := w.ns.build(o)
		if err != nil {
			return nil, fmt.Errorf("what-if: %w", err)
		}
		if d == nil {
			rep.Unchanged, rep.Note = true, note
			// Train anyway, the gate forced open, to show what the
			// dictionary would have given.
			forced := o
			forced.Train.MinGain = noMinGain
			if d, _, err = w.ns.build(forced); err != nil {
				return nil, fmt.Errorf("what-if: %w", err)
			}
		}
		dict = d
		rep.TrainSeconds = time.Since(start).Seconds()
	}
	if dict != nil {
		rep.DictID, rep.DictBytes = dict.ID, len(dict.Bytes)
	}
	if err := w.evaluate(rep, dict); err != nil {
		return nil, err
	}
	aux := len(formatAux())
	if in.ChecksumDisabled {
		aux += len(sourceCRCAux())
	}
	switch {
	case !rep.Unchanged:
		aux += len(dictAux(dict, false))
		rep.RdbzCompressBytes = fileBytes - w.stored + rep.Nodes.Rdbz + int64(aux)
	case !compressed:
		// No dictionary pays: a format-1 file of the nodes as they were.
		rep.RdbzCompressBytes = fileBytes + int64(aux)
	}
	return rep, nil
}

// sums of the estimation sample under each variant.
type sampleSums struct {
	stored, decoded                float64
	lzf, zstd, dict, rdbz          float64
	dflyDecoded, dflyMem           float64
	dflyInterior, dflyInteriorComp int
}

// evaluate compresses the estimation sample and scales it to all
// eligible nodes.
func (w *WhatIf) evaluate(rep *WhatIfReport, dict *node.Dict) error {
	plain, err := node.NewCodec(nil, nil, w.opt.Level)
	if err != nil {
		return err
	}
	defer plain.Close()
	var wk *worker
	if dict != nil {
		codec, err := node.NewCodec([]*node.Dict{dict}, dict, w.opt.Level)
		if err != nil {
			return err
		}
		defer codec.Close()
		wk = &worker{opt: &w.opt, codec: codec}
	}
	var (
		s                 sampleSums
		lzfEnc            lzf.Encoder
		dec, zb, fb, head []byte
		it                item
	)
	samples := w.est.Samples()
	for _, t := range samples {
		enc, flags, container, ulen, hdr, buf := t.enc, t.flags, t.container, t.ulen, t.hdr, t.buf
		stored := float64(len(hdr) + len(buf))
		raw := buf
		if enc == rdbio.EncLZF {
			if dec, err = lzf.Decode(dec[:0], buf, int(ulen)); err != nil {
				return fmt.Errorf("what-if: LZF node: %w", err)
			}
			raw = dec
		}
		cont := 0
		if container != 0 {
			cont = len(rdbio.AppendLen(head[:0], container))
		}
		size := func(e rdbio.Enc, n int) float64 {
			head = rdbio.AppendStringHead(head[:0], e, 0, uint64(n), ulen)
			return float64(cont + len(head) + n)
		}
		s.stored += stored
		s.decoded += float64(ulen)
		if z, ok := lzfEnc.RedisSave(zb[:0], raw); ok {
			s.lzf += size(rdbio.EncLZF, len(z))
			zb = z
		} else {
			s.lzf += size(rdbio.EncRaw, len(raw))
		}
		fb = plain.Compress(fb[:0], raw)
		s.zstd += size(rdbio.EncZstd, len(fb))
		if wk == nil {
			continue
		}
		fb = wk.codec.Compress(fb[:0], raw)
		s.dict += size(rdbio.EncZstd, len(fb))
		if t.interior {
			s.dflyInterior++
			s.dflyDecoded += float64(ulen)
			if ulen >= 256 && uint64(len(fb))+32 < ulen && uint64(len(fb)) <= ulen*7/10 {
				s.dflyMem += float64(len(fb))
				s.dflyInteriorComp++
			} else {
				s.dflyMem += float64(ulen)
			}
		}
		// Compress's own decision for this node.
		it = item{hdr: hdr, buf: buf, out: it.out[:0],
			node: nodeIn{container: container, enc: enc, flags: flags, ulen: ulen}}
		if err := wk.compress(&it); err != nil {
			return fmt.Errorf("what-if: %w", err)
		}
		if it.changed {
			head = rdbio.AppendStringHead(head[:0], rdbio.EncZstd, it.outFlags, uint64(len(it.out)), ulen)
			s.rdbz += float64(cont + len(head) + len(it.out))
		} else {
			s.rdbz += stored
		}
	}
	keptN, keptB := w.est.Kept()
	seenN, _ := w.est.Seen()
	rep.Sample.Nodes, rep.Sample.StoredBytes = keptN, keptB-int64(keptN*estNodeMeta)
	rep.Exact = int64(keptN) == seenN
	other := w.stored - w.eligStored // nodes Compress leaves alone
	scale := func(v float64) int64 {
		if s.stored == 0 {
			return other + w.eligStored
		}
		return other + int64(math.Round(v*float64(w.eligStored)/s.stored))
	}
	n := &rep.Nodes
	n.LZF, n.Zstd = scale(s.lzf), scale(s.zstd)
	n.Rdbz = scale(s.stored)
	if wk != nil {
		n.ZstdDict = scale(s.dict) + int64(len(dict.Bytes))
		n.Rdbz = scale(s.rdbz)
	}
	df := &rep.Dragonfly
	df.DecodedBytes, df.EstimatedBytes = w.decoded, w.decoded
	if s.dflyDecoded > 0 {
		// Interior nodes shrink by the sample's ratio; the rest stay.
		mem := float64(w.interiorDecoded) * s.dflyMem / s.dflyDecoded
		df.EstimatedBytes = w.decoded - w.interiorDecoded + int64(math.Round(mem))
		df.CompressedShare = float64(s.dflyInteriorComp) / float64(s.dflyInterior)
	}
	return nil
}

// SetFormat2 puts a format-2 prediction into the report: what compress
// writes by default.
func (r *WhatIfReport) SetFormat2(p *format2.Prediction) {
	r.Format2, r.Format1Bytes = p, r.RdbzCompressBytes
	r.RdbzCompressBytes = p.Bytes // format 2 is always written
	r.Unchanged, r.Note = false, ""
}
