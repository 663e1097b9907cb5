package splitmerge

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/rdbz/rdbz/cmd/rdbz/internal/convert"
	"github.com/rdbz/rdbz/cmd/rdbz/internal/reshape"
)

// MergeOptions configure Merge: reshape's, and the server to merge for.
type MergeOptions struct {
	reshape.MergeOptions
	// Target, when set, converts every input for that server
	// (rdbio/convert) before it is merged; the output's magic is then one
	// the target reads. Drop names what the conversion may leave out
	// (convert.Options.Drop); anything else it cannot carry is refused.
	Target string
	Drop   map[string]bool
	// Now is the time convert judges field expiries by, the same in both
	// passes (zero: the clock's when Merge starts).
	Now time.Time
}

// MergeResult is what Merge did.
type MergeResult struct {
	*reshape.MergeReport
	// Converted are the conversion reports of each input (--target), from
	// the pass that wrote the output.
	Converted []*convert.Report
}

// Merge merges the sources into dst (see reshape.Merge): the RDB inside
// each rdbz source, each converted for opt.Target first when set.
func Merge(ctx context.Context, srcs []Source, dst io.Writer, opt MergeOptions) (*MergeResult, error) {
	res := &MergeResult{MergeReport: &reshape.MergeReport{}, Converted: make([]*convert.Report, len(srcs))}
	if opt.Now.IsZero() {
		opt.Now = time.Now()
	}
	ins := make([]reshape.Input, len(srcs))
	for i, s := range srcs {
		if s.Once {
			return res, fmt.Errorf("%s: merge reads each input twice: name a file, not a stream", s.Name)
		}
		o, err := open(s)
		if err != nil {
			return res, err
		}
		ins[i] = o.input(ctx, opt.Options)
		if opt.Target != "" {
			ins[i] = converted(ctx, ins[i], opt, &res.Converted[i])
		}
	}
	var err error
	res.MergeReport, err = reshape.Merge(ctx, ins, dst, opt.MergeOptions)
	return res, err
}

// converted is the input converted for opt.Target, through a pipe; rep
// gets the report of the last conversion.
func converted(ctx context.Context, in reshape.Input, opt MergeOptions, rep **convert.Report) reshape.Input {
	copt := convert.Options{Options: decodeOptions(opt.Options), Target: opt.Target, Now: opt.Now, Drop: opt.Drop}
	open := in.Open
	in.Open = func() (io.ReadCloser, error) {
		src, err := open()
		if err != nil {
			return nil, err
		}
		pr, pw := io.Pipe()
		done := make(chan struct{})
		go func() {
			defer close(done)
			r, err := convert.Convert(ctx, pw, src, copt)
			*rep = r
			if err != nil {
				err = fmt.Errorf("converting for %s: %w", opt.Target, err)
			}
			pw.CloseWithError(err)
		}()
		return &conversion{PipeReader: pr, done: done, src: src}, nil
	}
	return in
}

// conversion is an input being converted: closing it stops the
// conversion, then closes the input.
type conversion struct {
	*io.PipeReader
	done chan struct{}
	src  io.Closer
}

func (c *conversion) Close() error {
	c.PipeReader.CloseWithError(errors.Join(context.Canceled, io.ErrClosedPipe))
	<-c.done
	return c.src.Close()
}
