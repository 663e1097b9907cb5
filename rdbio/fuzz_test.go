package rdbio

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// FuzzReader feeds arbitrary bytes to the reader: it must never panic, and
// whatever it copies without error must come out byte-identical. Seeds: the
// small corpus files and testdata.
func FuzzReader(f *testing.F) {
	seeds, _ := filepath.Glob("../testdata/*.rdb")
	for _, dir := range []string{"public", "generated"} {
		m, _ := filepath.Glob(filepath.Join(corpusDir, dir, "*.rdb"))
		seeds = append(seeds, m...)
	}
	for _, p := range seeds {
		if st, err := os.Stat(p); err == nil && st.Size() <= 64<<10 {
			if data, err := os.ReadFile(p); err == nil {
				f.Add(data)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := NewReader(bytes.NewReader(data), Options{Cap: 1 << 20})
		if err == nil {
			walkAll(r)
		}
		var out bytes.Buffer
		if _, err := Copy(&out, bytes.NewReader(data), Options{Cap: 1 << 20}); err == nil {
			if !bytes.Equal(out.Bytes(), data) {
				t.Fatalf("copy succeeded but differs: %d bytes in, %d out", len(data), out.Len())
			}
		}
	})
}
