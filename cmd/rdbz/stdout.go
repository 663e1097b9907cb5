package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
)

// report writes a command's report to stdout and returns the first write
// error (a full disk, a closed stdout), so that a lost report is an exit 1
// rather than a silent success.
func report(print func(w io.Writer)) error {
	ew := &errWriter{w: os.Stdout}
	print(ew)
	if ew.err != nil {
		return fmt.Errorf("write report: %w", ew.err)
	}
	return nil
}

// reportJSON writes v as indented JSON to stdout.
func reportJSON(v any) error {
	var err error
	if rerr := report(func(w io.Writer) {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		err = enc.Encode(v)
	}); rerr != nil {
		return rerr
	}
	return err
}

// errWriter passes writes on until one fails, and keeps that error.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}
