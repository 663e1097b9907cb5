package main

import (
	"context"
	"errors"
	"io"

	"github.com/rdbz/rdbz/listcodec"
)

// source is one input of a command: a file (or stdin), what it is
// (listcodec.Peek, the one place a format is told), and the RDB it holds
// once rdb opened it.
type source struct {
	path string // as given; "-" is stdin
	file io.ReadCloser
	kind listcodec.Kind
	r    io.Reader        // the input from its first byte
	in   *listcodec.Input // the RDB it holds (rdb)
	out  string           // where the command writes, for its summary
}

// openSource opens an input and tells what it is; wrap, when set, is
// put around the file (progress counts the bytes read).
func openSource(path string, wrap func(io.Reader) io.Reader) (*source, error) {
	f, err := openInput(path)
	if err != nil {
		return nil, err
	}
	var r io.Reader = f
	if wrap != nil {
		r = wrap(f)
	}
	kind, r, err := listcodec.Peek(r)
	if err != nil {
		f.Close()
		return nil, named(path, err)
	}
	return &source{path: path, file: f, kind: kind, r: r}, nil
}

// rdb is the RDB the input holds (listcodec.Open): an RDB as it is, an
// rdbz file decoded back into its source. A caller that stops reading at
// the RDB's end checks the rest with finish. Decoding a compressed input
// fills a heap (expectBigHeap).
func (s *source) rdb(ctx context.Context, opt listcodec.DecompressOptions) (io.Reader, error) {
	if s.kind != listcodec.KindRDB && hugeHeap != hugeNever {
		expectBigHeap()
	}
	in, err := listcodec.Open(ctx, s.r, opt)
	if err != nil {
		return nil, named(s.path, err)
	}
	s.in = in
	return in, nil
}

// finish reads what is left of an rdbz input after its RDB (the index and
// footer) and reports what was wrong with it, the file named.
func (s *source) finish() error {
	if s.in == nil {
		return nil
	}
	return named(s.path, s.in.Finish())
}

// cause is err, or the root of it when decoding an rdbz input failed.
func (s *source) cause(err error) error {
	if s.in == nil {
		return err
	}
	return s.in.Cause(err)
}

// fail names the input in err, or in the root of it (cause).
func (s *source) fail(err error) error { return named(s.path, s.cause(err)) }

// close stops the decoding, if any, and closes the file.
func (s *source) close() {
	if s.in != nil {
		s.in.Close()
	}
	s.file.Close()
}

// namedError is an error of an input, named as zstd and gzip name it:
// "dump.rdb: what went wrong".
type namedError struct {
	path string
	err  error
}

func (e *namedError) Error() string {
	if e.path == "-" {
		return "(stdin): " + e.err.Error()
	}
	return e.path + ": " + e.err.Error()
}
func (e *namedError) Unwrap() error { return e.err }

// named names the input path in err (nil stays nil; an error naming it
// already is left as it is).
func named(path string, err error) error {
	var ne *namedError
	if err == nil || (errors.As(err, &ne) && ne.path == path) {
		return err
	}
	return &namedError{path: path, err: err}
}
