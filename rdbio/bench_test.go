package rdbio

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

// benchFile is RDBZ_BENCH_FILE, or the corpus' lists-events.rdb. For the
// numbers in the README: ../shared/tools/gen-corpus OUT 20 --only lists-events
// and RDBZ_BENCH_FILE=OUT/lists-events.rdb.
func benchFile(b *testing.B) string {
	if p := os.Getenv("RDBZ_BENCH_FILE"); p != "" {
		return p
	}
	p := filepath.Join(corpusDir, "generated", "lists-events.rdb")
	if _, err := os.Stat(p); err != nil {
		b.Skipf("no benchmark file: set RDBZ_BENCH_FILE or provide %s", p)
	}
	return p
}

// BenchmarkPassThrough compares rdbio.Copy with a plain io.Copy of the same
// file, both from the file into io.Discard, in the same run.
func BenchmarkPassThrough(b *testing.B) {
	path := benchFile(b)
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	run := func(b *testing.B, copyFn func(io.Writer, io.Reader) error) {
		b.SetBytes(st.Size())
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			f, err := os.Open(path)
			if err != nil {
				b.Fatal(err)
			}
			if err := copyFn(io.Discard, f); err != nil {
				b.Fatal(err)
			}
			f.Close()
		}
	}
	b.Run("rdbio.Copy", func(b *testing.B) {
		run(b, func(w io.Writer, r io.Reader) error { _, err := Copy(w, r, Options{}); return err })
	})
	b.Run("io.Copy", func(b *testing.B) {
		run(b, func(w io.Writer, r io.Reader) error { _, err := io.Copy(w, r); return err })
	})
	b.Run("rdbio.walk", func(b *testing.B) {
		run(b, func(_ io.Writer, f io.Reader) error {
			r, err := NewReader(f, Options{})
			if err == nil {
				err = walkAll(r)
			}
			return err
		})
	})
}
