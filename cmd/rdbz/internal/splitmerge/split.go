package splitmerge

import (
	"context"
	"errors"
	"fmt"
	"github.com/klauspost/compress/zstd"
	"io"
	"runtime"

	"github.com/rdbz/rdbz/cmd/rdbz/internal/cluster"
	"github.com/rdbz/rdbz/cmd/rdbz/internal/reshape"
	"github.com/rdbz/rdbz/listcodec"
	"github.com/rdbz/rdbz/listcodec/block"
	"github.com/rdbz/rdbz/listcodec/format2"
)

// SplitOptions configure Split: reshape's, and what the parts are.
type SplitOptions struct {
	reshape.SplitOptions
	// ToRDB writes RDB parts from an rdbz input (false: an rdbz input
	// gives rdbz parts, format 2, and an RDB input RDB parts).
	ToRDB bool
}

// partBlockSize and partLevel are the parts' blocks (format 2.1: zstd
// frames with the input's dictionary): every part has a compressor of its
// own, and 1 MiB blocks at SpeedBetterCompression took split of an rdbz
// file into three parts to 72–76 MiB of peak RSS.
const (
	partBlockSize = 256 << 10
	partLevel     = zstd.SpeedDefault
)

// partTrainBytes is what a format-2 part holds to train its dictionary
// on when the input gives none (format2.Options.TrainBytes).
const partTrainBytes = 1 << 20

// SplitResult is what Split did.
type SplitResult struct {
	*reshape.SplitReport
	Kind listcodec.Kind // the input's
	// Compressed says the parts are format 2; Out is then each part's
	// size (else the RDB sizes of the report).
	Compressed bool
	Out        []int64
	DictBytes  int // the parts' dictionary (0: none)
}

// Split splits src by t into dst (see reshape.Split): the RDB inside an
// rdbz input, and rdbz parts (format 2, with the input's dictionary: that
// of its header for format 2; for format 1, a dictionary trained on the
// input, which must then be a file) unless opt.ToRDB or the input is an
// RDB. dst are not closed. More parts than are written at once
// (rdbPartsPerPass, rdbzPartsPerPass) are written a group at a time, the
// input read once per group; an input read only once (stdin) is refused
// then.
func Split(ctx context.Context, src Source, dst []io.Writer, t *cluster.Table, opt SplitOptions) (*SplitResult, error) {
	res := &SplitResult{SplitReport: &reshape.SplitReport{}}
	o, err := open(src)
	if err != nil {
		return res, err
	}
	defer o.close()
	res.Kind = o.kind
	in := o.input(ctx, opt.Options)
	if o.kind == listcodec.KindRDB || opt.ToRDB {
		res.SplitReport, err = inPasses(ctx, in, dst, t, opt.SplitOptions, rdbPartsPerPass,
			func(lo, hi int) []io.Writer { return dst[lo:hi] }, func(_, _ int, err error) error { return err })
		return res, err
	}
	fo, err := partOptions(o, in, opt, min(len(dst), rdbzPartsPerPass))
	if err != nil {
		return res, err
	}
	res.Compressed, res.DictBytes = true, len(fo.Dict)
	if fo.Encoder, err = block.NewEncoder(fo.Dict, block.Options{BlockSize: fo.BlockSize, Level: fo.Level, Workers: runtime.GOMAXPROCS(0)}); err != nil {
		return res, err
	}
	defer fo.Encoder.Close()
	res.Out = make([]int64, len(dst))
	var parts *compressors
	res.SplitReport, err = inPasses(ctx, in, dst, t, opt.SplitOptions, rdbzPartsPerPass,
		func(lo, hi int) []io.Writer {
			parts = startCompressors(ctx, dst[lo:hi], fo)
			return parts.writers()
		},
		func(lo, _ int, err error) error {
			out, err := parts.finish(err)
			copy(res.Out[lo:], out)
			return err
		})
	return res, err
}

// rdbPartsPerPass and rdbzPartsPerPass are the most parts a split writes
// at once: each part holds its queue and Writer, and an rdbz part a
// compressor of its own, so that split of an rdbz file of source files
// into rdbz parts all at once peaked at 59 MiB of RSS with 3 parts, 87
// with 8, 127 with 16 and 331 with 64, and into RDB parts at 58 MiB with
// 16, 81 with 64. The rdbz parts share one zstd encoder (~3 MiB each
// had its own); with it 4 at once peaked at 57–59 MiB on the realistic
// dumps, 6 at 66.
const (
	rdbPartsPerPass  = 16
	rdbzPartsPerPass = 4
)

// inPasses runs reshape.Split over dst in groups of at most per parts,
// reading the input once per group (after one pass counting every part's
// keys): open gives the writers of the parts lo to hi, done ends them
// with the pass's error and returns the error to report.
// Its report is every part's, from the pass that wrote it.
func inPasses(ctx context.Context, in reshape.Input, dst []io.Writer, t *cluster.Table, opt reshape.SplitOptions, per int,
	open func(lo, hi int) []io.Writer, done func(lo, hi int, err error) error) (*reshape.SplitReport, error) {
	if len(dst) <= per {
		rep, err := reshape.Split(ctx, in, open(0, len(dst)), t, opt)
		return rep, done(0, len(dst), err)
	}
	if in.Once {
		return &reshape.SplitReport{}, fmt.Errorf("%d parts: a split writes %d at a time, reading its input once for each %d; %s can be read only once: name a file",
			len(dst), per, per, in.Name)
	}
	total := &reshape.SplitReport{Parts: make([]reshape.PartReport, len(dst))}
	for lo := 0; lo < len(dst); lo += per {
		hi := min(lo+per, len(dst))
		pass := make([]io.Writer, len(dst))
		copy(pass[lo:hi], open(lo, hi))
		rep, err := reshape.Split(ctx, in, pass, t, opt)
		err = done(lo, hi, err)
		copy(total.Parts[lo:hi], rep.Parts[lo:hi])
		total.Magic, total.Moved, total.Shared, total.Sized, total.Counted = rep.Magic, rep.Moved, rep.Shared, rep.Sized, rep.Counted
		if err != nil {
			return total, err
		}
		opt.Counted = rep.Counted
	}
	return total, nil
}

// partOptions are the format-2 options of the parts: the input's
// dictionary, one block worker per part when parts share the cores.
func partOptions(o *opened, in reshape.Input, opt SplitOptions, n int) (format2.Options, error) {
	fo := format2.Options{Cap: opt.Cap, IgnoreChecksum: opt.IgnoreChecksum, TrainBytes: partTrainBytes,
		Workers: max(1, runtime.GOMAXPROCS(0)/n), BlockSize: partBlockSize, Level: partLevel}
	switch {
	case o.kind == listcodec.KindFormat2:
		fo.Dict = o.dict
	case o.src.Once:
		return fo, errors.New("split of a format-1 rdbz stream into rdbz parts: name the file (its dictionary is trained in a first pass), or --to rdb")
	default:
		phase(opt.Phase, "training")
		r, err := in.Open()
		if err != nil {
			return fo, err
		}
		// Trained as compress trains a file (its defaults, not the parts').
		fo.Dict, err = format2.TrainDict(r, format2.Options{Cap: opt.Cap, IgnoreChecksum: opt.IgnoreChecksum})
		r.Close()
		if err != nil {
			return fo, fmt.Errorf("%s: training the parts' dictionary: %w", o.src.Name, err)
		}
	}
	fo.NoDict = fo.Dict == nil
	return fo, nil
}

func phase(fn func(string), name string) {
	if fn != nil {
		fn(name)
	}
}

// compressors are format2.Compress goroutines, one per part, each reading
// its part's RDB from a pipe.
type compressors struct {
	pipes []*io.PipeWriter
	done  []chan result
}

type result struct {
	n   int64
	err error
}

func startCompressors(ctx context.Context, dst []io.Writer, fo format2.Options) *compressors {
	c := &compressors{}
	for _, d := range dst {
		pr, pw := io.Pipe()
		done := make(chan result, 1)
		c.pipes, c.done = append(c.pipes, pw), append(c.done, done)
		go func(d io.Writer) {
			st, err := format2.Compress(ctx, d, pr, fo)
			pr.CloseWithError(errors.Join(err, io.ErrClosedPipe))
			done <- result{st.BytesOut, err}
		}(d)
	}
	return c
}

// writers are the pipes, for reshape.Split.
func (c *compressors) writers() []io.Writer {
	ws := make([]io.Writer, len(c.pipes))
	for i, p := range c.pipes {
		ws[i] = p
	}
	return ws
}

// finish ends the parts' RDBs (with splitErr, the error that stopped
// Split, if any) and waits for the compressors: their output sizes, and
// the first error.
func (c *compressors) finish(splitErr error) ([]int64, error) {
	out := make([]int64, len(c.pipes))
	err := splitErr
	for i, p := range c.pipes {
		if splitErr != nil {
			p.CloseWithError(splitErr)
		} else {
			p.Close()
		}
		r := <-c.done[i]
		out[i] = r.n
		if r.err != nil && (err == nil || errors.Is(err, io.ErrClosedPipe)) {
			err = fmt.Errorf("compressing part %d: %w", i, r.err)
		}
	}
	return out, err
}
