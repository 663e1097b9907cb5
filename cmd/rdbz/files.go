package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
)

// openInput opens a path, or stdin for "-".
func openInput(path string) (io.ReadCloser, error) {
	if path == "" {
		return nil, errors.New("missing input (a path, or - for stdin)")
	}
	if path == "-" {
		return io.NopCloser(os.Stdin), nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open input: %w", err)
	}
	return f, nil
}

// output is a file being written: a temp file beside the target that is
// synced and renamed into place by commit, or removed by abort (also when
// the process is interrupted: see abortOutputs). For "-" it is stdout.
type output struct {
	io.Writer
	f      *os.File
	path   string
	tmp    string
	mu     sync.Mutex
	closed bool
}

// live holds the outputs not yet committed or aborted.
var live struct {
	sync.Mutex
	set map[*output]bool
}

// abortOutputs removes every partial output (before an exit on a signal).
func abortOutputs() {
	live.Lock()
	outs := make([]*output, 0, len(live.set))
	for o := range live.set {
		outs = append(outs, o)
	}
	live.Unlock()
	for _, o := range outs {
		o.abort()
	}
}

// createOutput refuses OUT == IN and an existing OUT without force.
func createOutput(path, inPath string, force bool) (*output, error) {
	if path == "" {
		return nil, errors.New("missing -o OUT (a path, or - for stdout)")
	}
	if path == "-" {
		return &output{Writer: os.Stdout}, nil
	}
	if same, err := samePath(path, inPath); err != nil {
		return nil, err
	} else if same {
		return nil, fmt.Errorf("output %s is the input: refusing to overwrite it", path)
	}
	if _, err := os.Stat(path); err == nil && !force {
		return nil, fmt.Errorf("output %s exists (use -f to overwrite)", path)
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("create output: %w", err)
	}
	o := &output{Writer: f, f: f, path: path, tmp: f.Name()}
	live.Lock()
	if live.set == nil {
		live.set = map[*output]bool{}
	}
	live.set[o] = true
	live.Unlock()
	return o, nil
}

// commit syncs the temp file and renames it into place.
func (o *output) commit() error {
	if o.f == nil {
		return nil
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.release()
	if err := o.f.Sync(); err != nil {
		o.removeLocked()
		return fmt.Errorf("sync output: %w", err)
	}
	if err := o.f.Close(); err != nil {
		o.removeLocked()
		return fmt.Errorf("close output: %w", err)
	}
	o.closed = true
	if err := os.Rename(o.tmp, o.path); err != nil {
		os.Remove(o.tmp)
		return fmt.Errorf("rename output into place: %w", err)
	}
	return nil
}

// abort removes the temp file; a no-op after commit.
func (o *output) abort() {
	if o.f == nil {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.release()
	o.removeLocked()
}

// release forgets a finished output.
func (o *output) release() {
	live.Lock()
	delete(live.set, o)
	live.Unlock()
}

func (o *output) removeLocked() {
	if !o.closed {
		o.f.Close()
		o.closed = true
		os.Remove(o.tmp)
	}
}

func samePath(a, b string) (bool, error) {
	if b == "" || b == "-" {
		return false, nil
	}
	sa, err := os.Stat(a)
	if err != nil {
		return false, nil
	}
	sb, err := os.Stat(b)
	if err != nil {
		return false, nil
	}
	return os.SameFile(sa, sb), nil
}

// isTerminal reports whether f is a terminal (progress goes there only).
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
