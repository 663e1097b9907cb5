package listcodec

import (
	"context"
	"errors"
	"io"
	"sync"

	"github.com/rdbz/rdbz/listcodec/format2"
)

// Format2EstimateEvery: a Format2Estimate compresses the first 32 MiB of
// T (format2.Estimate) and then one in every 8 block-sized windows of the
// dump. The first
// 32 MiB alone, scaled, predicted 49.1 MB for the 197 MB lists-events dump
// that compresses to 64.5 MB: its records are not alike from start to end.
const Format2EstimateEvery = 8

// Format2Estimate predicts the size of what `rdbz compress` (format 2,
// its defaults) writes for a dump, from the same pass that reads the dump
// for something else: Tee the dump's reader through it, read the dump to
// its end, then call Result. It runs format 2's own compressor on the
// records of a sample of the dump (Format2EstimateEvery) on another
// goroutine, and scales. The pass goes no faster than tstream.EncodeT's
// (the tee waits for it). Memory: what Compress holds (its training hold
// and pipelines, within compress's bound).
type Format2Estimate struct {
	pw   *io.PipeWriter
	once sync.Once
	done chan struct{}
	st   *format2.Stats
	err  error
	off  bool // the compressor is through: the tee writes no more
}

// NewFormat2Estimate starts an estimate for Compress with opt's cap, check
// of the checksum, workers and filter (opt.Keep: the estimate is that of
// a compress with the same filter; Keep is called on the estimate's own
// goroutine), the format-2 defaults for the rest.
func NewFormat2Estimate(ctx context.Context, opt CompressOptions) *Format2Estimate {
	pr, pw := io.Pipe()
	e := &Format2Estimate{pw: pw, done: make(chan struct{})}
	o := format2.Options{Cap: opt.Cap, IgnoreChecksum: true, Workers: 1, Keep: opt.Keep, Columns: true} // as compress writes
	go func() {
		defer close(e.done)
		e.st, e.err = format2.Estimate(ctx, io.Discard, pr, Format2EstimateEvery, o)
		pr.CloseWithError(errEstimateDone) // the tee's next write fails: it stops
	}()
	return e
}

var errEstimateDone = errors.New("format 2 estimate: done")

// Tee returns a reader of src that also feeds the estimate what it reads.
func (e *Format2Estimate) Tee(src io.Reader) io.Reader { return &teeReader{src: src, e: e} }

type teeReader struct {
	src io.Reader
	e   *Format2Estimate
}

func (t *teeReader) Read(p []byte) (int, error) {
	n, err := t.src.Read(p)
	if n > 0 && !t.e.off {
		if _, werr := t.e.pw.Write(p[:n]); werr != nil {
			t.e.off = true
		}
	}
	if err != nil {
		t.e.close()
	}
	return n, err
}

func (e *Format2Estimate) close() {
	e.once.Do(func() { e.pw.Close() })
}

// Result waits for the estimate.
func (e *Format2Estimate) Result() (*format2.Prediction, error) {
	e.close()
	<-e.done
	if e.err != nil {
		return nil, e.err
	}
	return e.st.Prediction(), nil
}

// Close stops the estimate without a result.
func (e *Format2Estimate) Close() {
	e.close()
	<-e.done
}
