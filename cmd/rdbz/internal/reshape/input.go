package reshape

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/rdbz/rdbz/rdbio"
)

// ErrDuplicate is wrapped by the error of a key held twice where the
// output can hold it once.
var ErrDuplicate = errors.New("duplicate key")

// Input is one input of Split or Merge: an RDB stream that can be opened
// once per pass.
type Input struct {
	// Name names the input in messages (its path).
	Name string
	// Open opens the RDB stream from its start. The same input must give
	// the same bytes each time.
	Open func() (io.ReadCloser, error)
	// Once says the input can be read only once (stdin): Split then makes
	// one pass (no RESIZEDB, no key names in errors found at the end),
	// and Merge refuses it.
	Once bool
}

// A Finisher is an input stream with more to check once its RDB was read
// to the end: an rdbz file's index and footer. Split and Merge call Finish
// after each pass that reached the RDB's end.
type Finisher interface {
	Finish() error
}

// finish checks the rest of src when it is a Finisher.
func finish(src io.Reader) error {
	if f, ok := src.(Finisher); ok {
		return f.Finish()
	}
	return nil
}

// inputError names the input in an error.
func inputError(in Input, err error) error {
	if err == nil || in.Name == "" {
		return err
	}
	return fmt.Errorf("%s: %w", in.Name, err)
}

// eachRecord reads the input once through a Filter of keep, calling fn
// with every record before the EOF (values skipped unless fn reads them),
// and returns the Filter at the end (its Header, what it learnt).
func eachRecord(ctx context.Context, in Input, opt rdbio.Options, keep func(*rdbio.Record) bool, fn func(*rdbio.Filter, *rdbio.Record) error) (*rdbio.Filter, error) {
	src, err := in.Open()
	if err != nil {
		return nil, err
	}
	defer src.Close()
	rr, err := rdbio.NewReader(src, opt)
	if err != nil {
		return nil, inputError(in, err)
	}
	r := rdbio.NewFilter(rr, keep)
	for {
		if err := ctx.Err(); err != nil {
			return r, err
		}
		rec, err := r.Next()
		if err != nil {
			return r, inputError(in, unwalkable(err))
		}
		if rec.Kind == rdbio.KindEOF {
			return r, inputError(in, finish(src))
		}
		if err := fn(r, rec); err != nil {
			return r, inputError(in, err)
		}
	}
}

// errFound stops eachRecord at the key keyAt looks for.
var errFound = errors.New("found")

// keyAt reads the input again up to the key record at offset off and
// returns its key.
func keyAt(ctx context.Context, in Input, opt rdbio.Options, keep func(*rdbio.Record) bool, off int64) ([]byte, error) {
	var key []byte
	_, err := eachRecord(ctx, in, opt, keep, func(_ *rdbio.Filter, rec *rdbio.Record) error {
		if rec.Offset == off && rec.Kind == rdbio.KindKey {
			key = append([]byte{}, rec.Key...)
			return errFound
		}
		return nil
	})
	if errors.Is(err, errFound) {
		return key, nil
	}
	if err == nil {
		err = fmt.Errorf("no key record at offset %d", off)
	}
	return nil, err
}
