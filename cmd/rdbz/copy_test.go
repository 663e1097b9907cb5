package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rdbz/rdbz/cmd/rdbz/internal/outfile"
)

// copy to a regular file goes through the kernel (copyChecked): the
// output is still the input byte for byte, bytes after the trailer
// included, and over an existing file with -f.
func TestCopyInKernel(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile(small)
	if err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(dir, "in.rdb")
	data = append(data, "bytes after the trailer\n"...)
	if err := os.WriteFile(in, data, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.rdb")
	if err := os.WriteFile(out, []byte("an older, longer file that -f replaces: "+strings.Repeat("x", 1<<16)), 0o644); err != nil {
		t.Fatal(err)
	}
	mustRun(t, "copy", "-q", "-f", "-o", out, in)
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, data) {
		t.Fatalf("copy wrote %d bytes, not the input's %d", len(got), len(data))
	}
}

// copyChecked fails, and so commits nothing, when the walk fails or reads
// another length than the kernel copied.
func TestCopyCheckedRefuses(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.rdb")
	if err := os.WriteFile(in, bytes.Repeat([]byte("r"), 1000), 0o644); err != nil {
		t.Fatal(err)
	}
	walks := map[string]func() (int64, error){
		"short": func() (int64, error) { return 999, nil },
		"error": func() (int64, error) { return 10, io.ErrUnexpectedEOF },
	}
	for name, walk := range walks {
		f, err := os.Open(in)
		if err != nil {
			t.Fatal(err)
		}
		out, err := outfile.Create(filepath.Join(dir, name), outfile.Options{})
		if err != nil {
			t.Fatal(err)
		}
		_, err = copyChecked(out, f, walk)
		f.Close()
		out.Abort()
		if err == nil {
			t.Errorf("%s: copyChecked succeeded", name)
		}
	}
	// The same walk with the right length passes.
	f, _ := os.Open(in)
	defer f.Close()
	out, err := outfile.Create(filepath.Join(dir, "ok"), outfile.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer out.Abort()
	if _, err := copyChecked(out, f, func() (int64, error) { return 1000, nil }); err != nil {
		t.Errorf("a walk of the whole file: %v", err)
	}
}
