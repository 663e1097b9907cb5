package rdbio

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestCopyCorpusByteIdentical(t *testing.T) {
	for _, cf := range corpusFiles(t) {
		name := filepath.Base(cf.Path)
		t.Run(name, func(t *testing.T) {
			in, err := os.ReadFile(cf.Path)
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			_, err = Copy(&out, bytes.NewReader(in), Options{})
			if errors.Is(err, ErrChecksum) {
				// A stored CRC that does not match is refused by default;
				// told to ignore it, the copy keeps it as it was.
				t.Logf("checksum mismatch refused: %v", err)
				out.Reset()
				_, err = Copy(&out, bytes.NewReader(in), Options{IgnoreChecksum: true})
			}
			if err != nil {
				if cf.CorruptByDesign() {
					t.Logf("corrupt by design, refused: %v", err)
					return
				}
				t.Fatalf("copy: %v", err)
			}
			if !bytes.Equal(out.Bytes(), in) {
				t.Fatalf("output differs: %d bytes in, %d out, first difference at %d", len(in), out.Len(), firstDiff(in, out.Bytes()))
			}
		})
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
