package format2

import (
	"bytes"
	"context"
	"errors"
	"io"
	"runtime"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/rdbz/rdbz/listcodec/block"
	"github.com/rdbz/rdbz/listcodec/tstream"
	"github.com/rdbz/rdbz/rdbio"
	"github.com/rdbz/rdbz/rdbio/envelope"
	"github.com/rdbz/rdbz/train"
)

// Defaults (docs/compress.md, "Format 2 defaults"): chosen for size, the
// issue's first target. Against block's (128 KiB, fastest, 1% index),
// 1 MiB blocks at SpeedBetterCompression with a 0.5% index bring
// app-cache-nocompress from 1.064× to 0.991× of whole-file zstd -3 (0.996×
// with the 1% index: at 0.5% its key filters let `rdbz get` decode 3 to 23
// blocks for one key of app-cache at scale 4, at 1% the 3 it needs) and
// dfly-seed-synthetic from 19.6 KB to 7.0 KB, for about 2× the CPU.
// 1 MiB against 512 KiB blocks: 0.991× against 1.000× on
// app-cache-nocompress, 0.975× against 0.989× on mixed-nocompress, within
// 0.3% on the other corpus dumps (lists-events 0.953× against 0.951×).
const (
	// DefaultLevel is the level of a dump that LZF decoding does not
	// grow by LZFExpansion (saved with rdbcompression no, or of values
	// LZF does not shrink): there whole-file zstd -3 sees the same bytes
	// as the blocks, and only SpeedBetterCompression's larger search
	// brings 1 MiB blocks to its size.
	DefaultLevel = zstd.SpeedBetterCompression
	// LZFLevel is the level of a dump whose held T is at least
	// LZFExpansion times the input it came from (saved with rdbcompression
	// yes, Redis's default): decoding LZF is what wins there, and
	// SpeedDefault stays within 0.80× of whole-file zstd -3 on every such
	// corpus dump for about 0.7× the CPU of DefaultLevel (SpeedFastest
	// too, but for lists-plain-nodes, 0.952×, over its 0.95× target).
	LZFLevel     = zstd.SpeedDefault
	LZFExpansion = 1.15
	// BestLevel is where klauspost's encoders need the most memory: its
	// best encoder holds 34 MiB of match tables, and as much again for a
	// dictionary's (measured: compress -11 of mixed-all-types peaked at
	// 168 MiB with one worker). From it on, Compress runs one block
	// worker, trains no dictionary (the tables of a dictionary would
	// double the encoder's) and judges training at EvalLevel, so that it
	// stays within 64 MiB.
	BestLevel = zstd.SpeedBestCompression
	// EvalLevel is the most a dictionary is trained and judged at: the
	// judgement (does it pay?) barely depends on the level, the memory
	// does.
	EvalLevel        = zstd.SpeedBetterCompression
	DefaultBlockSize = 1 << 20
	// ColumnsLevel is the level of format 2.2's streams: split by role,
	// they reach at SpeedDefault 0.59–0.77× of whole-file zstd -3 on the
	// realistic LZF-saved dumps and 0.80–0.90× on the raw ones
	// (listcodec/columns/MEASURED.md), at about half the CPU of
	// SpeedBetterCompression.
	ColumnsLevel = zstd.SpeedDefault
	// ColumnsBlockSize is the block (segment) of format 2.2: 2 MiB of
	// records hold most of the redundancy between keys, within 1.5% of 4
	// MiB segments (app-cache-nocompress 3,393,522 against 3,342,589
	// bytes; lists-events 0.1% smaller), where three 4 MiB segments in
	// flight took compress to 66–79 MiB of peak RSS on the corpus and 2 MiB
	// ones to 46–59.
	ColumnsBlockSize = 2 << 20
	// ColumnsBestBlockSize is the segment from BestLevel on (compress -11
	// to -19), which encodes on one worker at SpeedBetterCompression (see
	// start): 4 MiB segments make it 0.5–2% smaller than 2 MiB ones
	// (godev-raw 34.41 → 33.80 MB, godev-lzf 34.42 → 33.81,
	// app-cache-nocompress ×4 46.63 → 45.72, lists-events-lzf ×8 51.69 →
	// 51.41), so that -19 is not -7's bytes, at up to 1.6× its time and
	// within 59.6 MiB of peak RSS on those dumps and 57.4 on the corpus (two
	// segments in flight with one worker; three with two workers took
	// 66–79 MiB).
	ColumnsBestBlockSize = 4 << 20
	DefaultDictSize      = block.DefaultDictSize
	DefaultIndexShare    = 0.01
	// DefaultSampleBytes is the T sample the dictionary is trained on.
	DefaultSampleBytes = 2 << 20
	// DefaultTrainBytes is how much T is held before training, for a file
	// as for a stream: a second pass over a file to sample all of it cost
	// a whole extra parse (and LZF decode) and gave outputs no smaller on
	// app-cache and lists-events at scale 4 (docs/compress.md).
	DefaultTrainBytes = 8 << 20
	// SampleChunk: a sample is one record, a record over it cut in pieces
	// of this size.
	SampleChunk = 4 << 10
)

// maxColumnWorkers and maxBlockWorkers bound the block workers of 2.2 and
// 2.1 below SpeedBetterCompression, by memory (csink.start).
const (
	maxColumnWorkers = 2
	maxBlockWorkers  = 4
)

// lzfWorkers is how many goroutines decode LZF strings for Compress given
// workers (Options.Workers; 0: GOMAXPROCS): one fewer than the CPUs it
// may use, and at least one, as the reading goroutine (the record walk
// and the split) keeps most of one busy beside the block workers. Two
// decoding goroutines beside two block workers on the 2-core VM held more
// in flight and took more time; 7 runs in turns, one against two: compress
// of godev-lzf 1,079 -> 1,038 ms (CPU 1,978 -> 1,874), lists-events-lzf x8
// 1,810 -> 1,740 (CPU 3,467 -> 3,313), app-cache x4 the same (1,433 ->
// 1,431); with one block worker (level 7, -T 1) the same either way. And
// compress -19 of godev-lzf peaked at 59.5-62.8 MiB, not 62.4-64.9.
func lzfWorkers(workers int) int {
	procs := runtime.GOMAXPROCS(0)
	if workers <= 0 || workers > procs {
		workers = procs
	}
	return max(workers-1, 1)
}

// Options configure Compress. Zero fields take the defaults.
type Options struct {
	// Level is the zstd level; zero chooses DefaultLevel or LZFLevel
	// from the first TrainBytes of T.
	Level     zstd.EncoderLevel
	BlockSize int
	Workers   int // block compression goroutines (block.Options.Workers), and one fewer LZF-string ones (lzfWorkers)
	// Cap bounds every string held: an LZF string longer than it stays LZF
	// in T (rdbio.Options.Cap). Decompress needs a cap at least as large.
	Cap            int
	IgnoreChecksum bool
	// Keep, when set, selects the keys compressed (rdbio.Filter).
	Keep func(*rdbio.Record) bool
	// Dict is a complete zstd dictionary to compress with; nil trains one
	// unless NoDict.
	Dict []byte
	// NoDict compresses the blocks without a dictionary, training none.
	NoDict bool
	// Columns writes format 2.2: each block a column segment
	// (listcodec/columns), of ColumnsBlockSize by default, no dictionary.
	Columns     bool
	DictSize    int
	SampleBytes int64
	TrainBytes  int64
	Seed        int64
	// IndexShare bounds the index's share of the output (block.Options).
	IndexShare float64
	// Phase, when set, is called as the work moves on: "reading" (the
	// part held to train on), "training", "compressing".
	Phase func(name string)
	// Encoder, when set, compresses 2.1's blocks (block.Options.Encoder):
	// made by block.NewEncoder with Dict, BlockSize and Level, all given
	// (not trained, not chosen), and shared by Compress calls running at
	// once; it is not closed.
	Encoder *zstd.Encoder

	every int64 // Estimate: 1 in every this many windows of T compressed
}

func (o Options) withDefaults() Options {
	if o.BlockSize == 0 && o.Columns {
		o.BlockSize = ColumnsBlockSize
		if o.Level >= BestLevel {
			o.BlockSize = ColumnsBestBlockSize
		}
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
		o.Seed = train.DefaultSeed
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
	T                 tstream.TStats
	Block             block.Stats
	Level             zstd.EncoderLevel
	DictID            uint32
	DictBytes         int
	// Envelope is the input's VKCS envelope, recorded in the header
	// (block.Header.Source).
	Envelope envelope.Info
	Note     string
	Elapsed  time.Duration
	// Sampled is, for an Estimate, the bytes of T it compressed (all of T
	// when the estimate is exact).
	Sampled int64
}

// estimateWhole is the T an Estimate compresses whole before it samples:
// a record starts in a sampled window or not at all, so that a dump of a
// few lists longer than a window was a coin toss per list (lists-events,
// 25 MB of T with 8 MiB whole: 10% over).
const estimateWhole = 32 << 20

// Estimate predicts what Compress writes for src without compressing all
// of it: it reads all of src as Compress does, compresses the first
// estimateWhole of T (or the T it holds to train on, if more) and, after
// that, the records that start in one of every `every` windows of T (a
// window is a block's size), and scales the blocks' bytes by the T they
// stand for. Stats.BytesOut is the prediction (exact when
// every record was compressed); the output written to dst is not a file.
func Estimate(ctx context.Context, dst io.Writer, src io.Reader, every int, opt Options) (*Stats, error) {
	opt.every = int64(max(every, 1))
	st, err := Compress(ctx, dst, src, opt)
	if err == nil {
		if c := st.Sampled; c > 0 && c < st.T.TBytes {
			h := st.Block.HeaderBytes
			st.BytesOut = h + int64(float64(st.BytesOut-h)*float64(st.T.TBytes)/float64(c))
		}
	}
	return st, err
}

// Prediction is what an Estimate predicts, as `rdbz analyze` reports it.
type Prediction struct {
	// Bytes is the predicted output; SampledT how much of the dump's T
	// (its records, LZF strings decoded) of TBytes was compressed to
	// predict it (Exact: all of it, Bytes is what compress writes).
	Bytes     int64 `json:"bytes"`
	SampledT  int64 `json:"sampled_t_bytes"`
	TBytes    int64 `json:"t_bytes"`
	Exact     bool  `json:"exact"`
	Level     int   `json:"level"`
	DictBytes int   `json:"dict_bytes"`
}

// Prediction is an Estimate's stats as a Prediction.
func (st *Stats) Prediction() *Prediction {
	return &Prediction{Bytes: st.BytesOut, SampledT: st.Sampled, TBytes: st.T.TBytes,
		Exact: st.Sampled >= st.T.TBytes, Level: ZstdLevel(st.Level), DictBytes: st.DictBytes}
}

// ZstdLevel is the zstd command-line level of an encoder level (the
// inverse of zstd.EncoderLevelFromZstd on the levels it returns).
func ZstdLevel(l zstd.EncoderLevel) int {
	switch l {
	case zstd.SpeedFastest:
		return 1
	case zstd.SpeedDefault:
		return 3
	case zstd.SpeedBetterCompression:
		return 7
	case zstd.SpeedBestCompression:
		return 11
	}
	return int(l)
}

// ErrDict reports a dictionary that cannot be used.
var ErrDict = errors.New("format 2 dictionary")

// Compress writes src, an RDB, to dst in format 2.
func Compress(ctx context.Context, dst io.Writer, src io.Reader, opt Options) (*Stats, error) {
	start := time.Now()
	opt = opt.withDefaults()
	if opt.Columns && opt.Level == 0 {
		opt.Level = ColumnsLevel // nothing to hold T for: no dictionary, no level to choose
	}
	st := &Stats{}
	topt := tstream.Options{Options: rdbio.Options{Cap: opt.Cap, IgnoreChecksum: opt.IgnoreChecksum}, Workers: lzfWorkers(opt.Workers)}
	c := &csink{ctx: ctx, dst: dst, opt: opt, st: st, limit: opt.TrainBytes}
	if opt.Dict != nil {
		if err := checkDict(opt.Dict); err != nil {
			return st, err
		}
		c.dict = opt.Dict
	}
	c.trained = opt.Dict != nil || opt.NoDict || opt.Level >= BestLevel || opt.Columns
	if c.trained && opt.Level != 0 {
		c.limit = 0 // nothing to train on nor a level to choose: no hold
	}
	if c.trained {
		opt.phase("compressing")
	} else {
		opt.phase("reading") // the first TrainBytes of T, held to train on
	}
	c.every = opt.every
	tst, err := tstream.EncodeT(c, src, topt, opt.Keep)
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

// TrainDict trains the dictionary Compress would train on src, an RDB:
// on the first TrainBytes of its T, read from src and no further; nil when
// the blocks compress better without one (judged at opt.Level, or
// DefaultLevel).
func TrainDict(src io.Reader, opt Options) ([]byte, error) {
	opt = opt.withDefaults()
	if opt.Level == 0 {
		opt.Level = DefaultLevel // the gate compresses at it (Compress picks its own later)
	}
	s := &headSampler{sampler: newSampler(opt), limit: opt.TrainBytes}
	_, err := tstream.EncodeT(s, src, tstream.Options{Options: rdbio.Options{Cap: opt.Cap, IgnoreChecksum: opt.IgnoreChecksum}}, nil)
	if err != nil && !errors.Is(err, errEnough) {
		return nil, err
	}
	return buildDict(s.samples(), s.tBytes, opt), nil
}

// errEnough stops TrainDict's read once it has its bytes.
var errEnough = errors.New("format 2: enough T to train on")

// headSampler is a sampler of the first limit bytes of T.
type headSampler struct {
	*sampler
	limit int64
}

func (h *headSampler) Write(p []byte) (int, error) {
	if h.tBytes >= h.limit {
		return 0, errEnough
	}
	return h.sampler.Write(p)
}

// csink takes T from tstream.EncodeT. Until the block Writer starts it holds
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
	every   int64  // Estimate: 1 in every this many windows compressed
	seen    int64  // Estimate: T bytes after the held ones
	skip    bool   // Estimate: the record being read is left out
	source  []byte // the input's envelope record (Envelope)
}

type heldRec struct {
	off, keyOff, keyLen int // keyLen -1: no key
	input               int64
}

// Envelope takes the input's VKCS envelope (tstream.EnvelopeSink), which the
// header records. Under a filter (Options.Keep) the RDB inside is the
// filtered one, shorter than the input's: the record keeps no LZ4 content
// size (it would be the unfiltered RDB's, which decompress --to original
// must not claim), and the input's envelope is reported as it was.
func (c *csink) Envelope(i envelope.Info) {
	if i.Enveloped() {
		rec := i
		if c.opt.Keep != nil {
			rec.LZ4 = rec.LZ4.WithoutContentSize()
		}
		c.st.Envelope, c.source = i, rec.Record()
	}
}

func (c *csink) Begin(key []byte, input int64) error {
	if c.w != nil && c.every > 1 {
		// The first estimateWhole (or TrainBytes) of T whole (a small
		// dump exactly), then one window in every.
		c.skip = c.seen >= max(c.opt.TrainBytes, estimateWhole) && (c.seen/int64(c.opt.BlockSize))%c.every != 0
		if c.skip {
			return nil
		}
	}
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
	if c.w != nil && c.every > 1 {
		c.seen += int64(len(p))
		if c.skip {
			return len(p), nil
		}
		c.st.Sampled += int64(len(p))
	}
	if c.w != nil {
		return c.w.Write(p)
	}
	room := int(c.limit) - len(c.held)
	if len(p) < room {
		c.hold(p)
		return len(p), nil
	}
	c.hold(p[:room])
	if err := c.start(c.dst); err != nil {
		return 0, err
	}
	if _, err := c.Write(p[room:]); err != nil {
		return 0, err
	}
	return len(p), nil
}

// holdJump is where the hold stops doubling and takes its limit at once.
// Allocating the whole limit (8–12 MiB) for every input made each small
// dump's compress zero that much in a process that reuses its heap (the
// split tests spent 44% of their CPU zeroing, most of it here); appending
// without a bound grew it to 40 MiB to hold 8. Doubling from 64 KiB to
// 256 KiB, then the limit, leaves a big dump at most 256 KiB more to
// collect (1 MiB put compress -19 of lists-events 1 MiB nearer the 64 MiB
// bound).
const holdJump = 256 << 10

// hold appends p to the held T, growing it within c.limit.
func (c *csink) hold(p []byte) {
	if need := len(c.held) + len(p); need > cap(c.held) {
		n := max(64<<10, 2*cap(c.held), need)
		if n > holdJump {
			n = int(c.limit)
		}
		held := make([]byte, len(c.held), min(n, int(c.limit)))
		copy(held, c.held)
		c.held = held
	}
	c.held = append(c.held, p...)
}

// start trains (if still needed), opens the block Writer on w and replays
// what is held.
func (c *csink) start(w io.Writer) error {
	if c.opt.Level == 0 {
		c.opt.Level = c.autoLevel()
	}
	level := c.opt.Level
	if c.opt.Columns && level >= BestLevel {
		// Column segments at the best level: one best encoder's 34 MiB
		// of tables beside three segments in flight took compress -19 to
		// 76–78 MiB; SpeedBetterCompression on two workers stays within
		// 64 MiB and was within 2% of best on the dumps but Go source
		// (listcodec/columns/MEASURED.md): the best that fits.
		level = zstd.SpeedBetterCompression
	}
	c.st.Level = level
	workers := c.opt.Workers
	if level >= BestLevel {
		workers, c.trained = 1, true // see BestLevel
	}
	if level >= zstd.SpeedBetterCompression {
		// Two segments encoded at once, each with SpeedBetterCompression's
		// tables, held more than the memory limit on a dump of source
		// files (gen-realdata's godev-lzf: compress -7 peaked at 69 MiB
		// and collected without pause); one block worker peaked at 59 MiB
		// and took less CPU. 2.1's blocks alike: each worker's encoder
		// holds about 9.5 MiB at this level, and --workers 64 took
		// compress to 636 MiB. LZF decoding has goroutines of its own (lzfWorkers).
		workers = 1
	}
	// Below it, the block workers are bounded by memory, not by the CPUs
	// (compress of godev-lzf, whose column segments each worker holds
	// with its encoder: -T 3 peaked at 65 MiB, -T 6 at 98; 2.1's 1 MiB
	// blocks: -T 6 at 59 MiB and 3.6 times as long, collecting without
	// pause, -T 16 at 111 MiB). LZF decoding has goroutines of its own (lzfWorkers).
	if c.opt.Columns {
		workers = min(workers, maxColumnWorkers)
	} else {
		workers = min(workers, maxBlockWorkers)
	}
	if !c.trained {
		c.opt.phase("training")
		s := newSampler(c.opt)
		c.replay(s)
		c.dict = buildDict(s.samples(), s.tBytes, c.opt)
		c.trained = true
		c.opt.phase("compressing")
	}
	c.out = counter{w: w}
	bw, err := block.NewWriter(c.ctx, &c.out, c.dict, block.Options{BlockSize: c.opt.BlockSize, Level: level, Workers: workers,
		IndexShare: c.opt.IndexShare, Source: c.source, State: tstream.TKeyDB, Columns: c.opt.Columns, Encoder: c.opt.Encoder})
	if err != nil {
		return err
	}
	c.w = bw
	if err := c.replay(bw); err != nil {
		return err
	}
	c.st.Sampled += int64(len(c.held))
	c.held, c.recs, c.keys = nil, nil, nil
	return nil
}

// autoLevel chooses the level from how much the held T grew over the
// input it came from (up to the start of the last record held).
func (c *csink) autoLevel() zstd.EncoderLevel {
	if n := len(c.recs); n > 0 {
		last := c.recs[n-1]
		if last.input > 0 && float64(last.off) >= LZFExpansion*float64(last.input) {
			return LZFLevel
		}
	}
	return DefaultLevel
}

// replay sends the held records to s.
func (c *csink) replay(s tstream.TSink) error {
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
// in memory first. The output is a format-2 file whatever its size, as
// zstd always writes a frame: a copy of the input would be an RDB that
// decompress refuses, and would lose an envelope.
func (c *csink) finish() error {
	if c.w == nil {
		var buf bytes.Buffer
		if err := c.start(&buf); err != nil {
			return err
		}
		if err := c.w.Close(); err != nil {
			return err
		}
		c.st.Block = c.w.Stats()
		c.setDict()
		n, err := c.dst.Write(buf.Bytes())
		c.st.BytesOut = int64(n)
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
