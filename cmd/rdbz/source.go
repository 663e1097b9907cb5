package main

import (
	"context"
	"errors"
	"io"
	"os"

	"github.com/rdbz/rdbz/listcodec"
	"github.com/rdbz/rdbz/rdbio/ahead"
)

// source is one input of a command: a file (or stdin), what it is
// (listcodec.Peek, the one place a format is told), and the RDB it holds
// once rdb opened it.
type source struct {
	path  string // as given; "-" is stdin
	file  io.ReadCloser
	ahead *ahead.Reader // reading file ahead (openWalked), or nil
	kind  listcodec.Kind
	r     io.Reader        // the input from its first byte
	in    *listcodec.Input // the RDB it holds (rdb)
	out   string           // where the command writes, for its summary
}

// openSource opens an input and tells what it is; wrap, when set, is
// put around the file (progress counts the bytes read).
func openSource(path string, wrap func(io.Reader) io.Reader) (*source, error) {
	return openSourceWith(path, wrap, false)
}

// openWalked is openSource for a command that reads its input once, in
// order, and never touches the file itself (info, test, analyze, train):
// a regular file of aheadMin bytes or more is read ahead (rdbio/ahead),
// its read system calls on the other CPU.
func openWalked(path string, wrap func(io.Reader) io.Reader) (*source, error) {
	return openSourceWith(path, wrap, true)
}

// Reading ahead: in chunks of the record walk's window (rdbio's 256 KiB),
// four of them; from 8 MiB on, below which the goroutine and its 1 MiB
// are not worth it. (On app-cache x4, 166 MB of small keys, in turns:
// info 0.096 -> 0.083 s, test 0.091 -> 0.080, train 0.338 -> 0.317;
// lists-events x8, 203 MB of large values, info 0.053 -> 0.054, where
// the walk outruns the reads and ahead goes direct.)
const (
	aheadMin    = 8 << 20
	aheadChunk  = 256 << 10
	aheadChunks = 4
)

// largeFile reports whether f is a regular file of aheadMin bytes or more
// (the file opened, not whatever its path names by now).
func largeFile(f io.Reader) bool {
	of, ok := f.(*os.File)
	if !ok {
		return false
	}
	fi, err := of.Stat()
	return err == nil && fi.Mode().IsRegular() && fi.Size() >= aheadMin
}

func openSourceWith(path string, wrap func(io.Reader) io.Reader, readAhead bool) (*source, error) {
	f, err := openInput(path)
	if err != nil {
		return nil, err
	}
	s := &source{path: path, file: f}
	var r io.Reader = f
	if readAhead && largeFile(f) {
		s.ahead = ahead.New(f, aheadChunk, aheadChunks)
		r = s.ahead
	}
	if wrap != nil {
		r = wrap(r)
	}
	if s.kind, s.r, err = listcodec.Peek(r); err != nil {
		s.close()
		return nil, named(path, err)
	}
	return s, nil
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
	if s.ahead != nil {
		s.ahead.Close()
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
