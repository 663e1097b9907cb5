package rdbio

import (
	"bytes"
	"testing"

	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

// FuzzReader feeds arbitrary bytes to the reader: it must never panic, and
// whatever it copies without error must come out byte-identical. Seeds: the
// small corpus files and testdata.
func FuzzReader(f *testing.F) {
	rdbiotest.FuzzSeeds(f, "../testdata")
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
