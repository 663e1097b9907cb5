package format2

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/rdbz/rdbz/listcodec/block"
	"github.com/rdbz/rdbz/rdbio"
)

// Defaults (docs/compress.md, "Format 2 defaults"): chosen for size, the
// issue's first target. Against block's (128 KiB, fastest, 1% index),
// 512 KiB blocks at SpeedBetterCompression with a 0.5% index bring
// app-cache-nocompress from 1.064× to 1.00× of whole-file zstd -3 and
// dfly-seed-synthetic from 19.6 KB to under 8 KB, for about 2× the CPU.
const (
	DefaultLevel      = zstd.SpeedBetterCompression
	DefaultBlockSize  = 512 << 10
	DefaultDictSize   = block.DefaultDictSize
	DefaultIndexShare = 0.005
	// DefaultSampleBytes is the T sample the dictionary is trained on.
	DefaultSampleBytes = 2 << 20
	// DefaultTrainBytes is how much T a stream holds before training.
	DefaultTrainBytes = 12 << 20
	// SampleChunk: a sample is one record, a record over it cut in pieces
	// of this size.
	SampleChunk = 4 << 10
	// smallInput: an input file under this size is compressed in memory
	// first, and copied unchanged when format 2 would not make it smaller.
	smallInput = 1 << 20
)

// Options configure Compress. Zero fields take the defaults.
type Options struct {
	Level     zstd.EncoderLevel
	BlockSize int
	Workers   int // block compression goroutines (block.Options.Workers)
	// Cap bounds every string held: an LZF string longer than it stays LZF
	// in T (rdbio.Options.Cap). Decompress needs a cap at least as large.
	Cap            int
	IgnoreChecksum bool
	// Keep, when set, selects the keys compressed (rdbio.Options.Keep).
	Keep func(*rdbio.Record) bool
	// Dict is a complete zstd dictionary to compress with; nil trains one.
	Dict        []byte
	DictSize    int
	SampleBytes int64
	TrainBytes  int64
	// Stream trains on the first TrainBytes of T even when src is a file.
	Stream bool
	Seed   int64
	// IndexShare bounds the index's share of the output (block.Options).
	IndexShare float64
	// Phase, when set, is called as the work moves on: "sampling",
	// "training", "compressing".
	Phase func(name string)
}

func (o Options) withDefaults() Options {
	if o.Level == 0 {
		o.Level = DefaultLevel
	}
	if o.BlockSize == 0 {
		o.BlockSize = DefaultBlockSize
	}
	if o.DictSize == 0 {
		o.DictSize = DefaultDictSize
	}
	if o.SampleBytes == 0 {
		o.SampleBytes = DefaultSampleBytes
	}
	if o.TrainBytes == 0 {
		o.TrainBytes = DefaultTrainBytes
	}
	if o.IndexShare == 0 {
		o.IndexShare = DefaultIndexShare
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	return o
}

func (o *Options) phase(name string) {
	if o.Phase != nil {
		o.Phase(name)
	}
}

// Stats sum up a Compress.
type Stats struct {
	BytesIn, BytesOut int64
	T                 rdbio.TStats
	Block             block.Stats
	DictID            uint32
	DictBytes         int
	// Copied: the input was written unchanged (format 2 would not have
	// made it smaller); Note says why.
	Copied  bool
	Note    string
	Elapsed time.Duration
}

// ErrDict reports a dictionary that cannot be used.
var ErrDict = errors.New("format 2 dictionary")

type seekFile interface {
	io.ReadSeeker
	Stat() (os.FileInfo, error)
}

// Compress writes src, an RDB, to dst in format 2.
func Compress(ctx context.Context, dst io.Writer, src io.Reader, opt Options) (*Stats, error) {
	start := time.Now()
	opt = opt.withDefaults()
	st := &Stats{}
	ropt := rdbio.Options{Cap: opt.Cap, IgnoreChecksum: opt.IgnoreChecksum, Keep: opt.Keep}
	c := &csink{ctx: ctx, dst: dst, opt: opt, st: st, limit: opt.TrainBytes}
	if opt.Dict != nil {
		if err := checkDict(opt.Dict); err != nil {
			return st, err
		}
		c.dict, c.trained = opt.Dict, true
	}
	if f, ok := src.(seekFile); ok && !opt.Stream && isRegular(f) {
		size := fileSize(f)
		if c.dict == nil {
			opt.phase("sampling")
			s := newSampler(opt)
			if _, err := rdbio.EncodeT(s, f, ropt); err != nil {
				return st, err
			}
			opt.phase("training")
			c.dict = buildDict(s.samples(), s.tBytes, opt)
			c.trained = true
			if _, err := f.Seek(0, io.SeekStart); err != nil {
				return st, err
			}
		}
		if size >= smallInput {
			c.limit = 0 // start writing at once
		}
	}
	opt.phase("compressing")
	tst, err := rdbio.EncodeT(c, src, ropt)
	st.T = tst
	st.BytesIn = tst.InBytes
	if err == nil {
		err = c.finish()
	} else {
		c.abort()
	}
	st.Elapsed = time.Since(start)
	return st, err
}

func isRegular(f seekFile) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode().IsRegular()
}

func fileSize(f seekFile) int64 {
	fi, err := f.Stat()
	if err != nil {
		return 0
	}
	return fi.Size()
}

// csink takes T from rdbio.EncodeT. Until the block Writer starts it holds
// T (at most limit bytes, plus the record being read when the limit is
// reached, which then goes on): a stream trains its dictionary on what is
// held; an input that ends while held is compressed in memory and copied
// unchanged if that is not smaller.
type csink struct {
	ctx     context.Context
	dst     io.Writer
	opt     Options
	st      *Stats
	limit   int64
	dict    []byte
	trained bool
	w       *block.Writer
	held    []byte
	recs    []heldRec
	keys    []byte
	out     counter
}

type heldRec struct {
	off, keyOff, keyLen int // keyLen -1: no key
	input               int64
}

func (c *csink) Begin(key []byte, input int64) error {
	if c.w != nil {
		return c.w.Begin(key, input)
	}
	r := heldRec{off: len(c.held), keyOff: len(c.keys), keyLen: -1, input: input}
	if key != nil {
		r.keyLen = len(key)
		c.keys = append(c.keys, key...)
	}
	c.recs = append(c.recs, r)
	return nil
}

func (c *csink) Write(p []byte) (int, error) {
	if c.w != nil {
		return c.w.Write(p)
	}
	c.held = append(c.held, p...)
	if int64(len(c.held)) >= c.limit {
		if err := c.start(c.dst); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// start trains (if still needed), opens the block Writer on w and replays
// what is held.
func (c *csink) start(w io.Writer) error {
	if !c.trained {
		c.opt.phase("training")
		s := newSampler(c.opt)
		c.replay(s)
		c.dict = buildDict(s.samples(), s.tBytes, c.opt)
		c.trained = true
		c.opt.phase("compressing")
	}
	c.out = counter{w: w}
	bw, err := block.NewWriter(c.ctx, &c.out, c.dict, block.Options{BlockSize: c.opt.BlockSize, Level: c.opt.Level, Workers: c.opt.Workers, IndexShare: c.opt.IndexShare})
	if err != nil {
		return err
	}
	c.w = bw
	if err := c.replay(bw); err != nil {
		return err
	}
	c.held, c.recs, c.keys = nil, nil, nil
	return nil
}

// replay sends the held records to s.
func (c *csink) replay(s rdbio.TSink) error {
	for i, r := range c.recs {
		var key []byte
		if r.keyLen >= 0 {
			key = c.keys[r.keyOff : r.keyOff+r.keyLen]
		}
		end := len(c.held)
		if i+1 < len(c.recs) {
			end = c.recs[i+1].off
		}
		if err := s.Begin(key, r.input); err != nil {
			return err
		}
		if _, err := s.Write(c.held[r.off:end]); err != nil {
			return err
		}
	}
	return nil
}

// finish closes the Writer; an input that ended while held is compressed
// in memory and copied unchanged if that is not smaller.
func (c *csink) finish() error {
	if c.w == nil {
		t := c.held
		var buf bytes.Buffer
		if err := c.start(&buf); err != nil {
			return err
		}
		if err := c.w.Close(); err != nil {
			return err
		}
		c.st.Block = c.w.Stats()
		if int64(buf.Len()) < c.st.BytesIn {
			c.setDict()
			n, err := c.dst.Write(buf.Bytes())
			c.st.BytesOut = int64(n)
			return err
		}
		// Not smaller: the input as it was (an ordinary RDB, which every
		// reader of rdbz files reads as it is).
		cw := &counter{w: c.dst}
		_, err := rdbio.DecodeT(cw, bytes.NewReader(t), rdbio.TargetOriginal, rdbio.Options{Cap: c.opt.Cap, IgnoreChecksum: true})
		c.st.BytesOut, c.st.Copied = cw.n, true
		c.st.Note = fmt.Sprintf("format 2 would not be smaller (%d bytes for %d): input copied unchanged", buf.Len(), c.st.BytesIn)
		return err
	}
	err := c.w.Close()
	c.st.Block = c.w.Stats()
	c.st.BytesOut = c.out.n
	c.setDict()
	return err
}

func (c *csink) setDict() {
	if c.dict != nil {
		c.st.DictID, c.st.DictBytes = dictID(c.dict), len(c.dict)
	}
}

func (c *csink) abort() {
	if c.w != nil {
		c.w.Close()
	}
}

// counter counts the bytes read from r or written to w.
type counter struct {
	r io.Reader
	w io.Writer
	n int64
}

func (c *counter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func (c *counter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
