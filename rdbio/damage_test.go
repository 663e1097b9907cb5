package rdbio

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

// readAll walks data to the end both ways a command does (summary and
// pass-through) and returns the first error.
func readAll(data []byte) (err error) {
	defer func() {
		if p := recover(); p != nil {
			panic(p) // a panic fails the test with its stack
		}
	}()
	r, err := NewReader(bytes.NewReader(data), Options{})
	if err != nil {
		return err
	}
	if err := walkAll(r); err != nil || len(data) > 1<<20 {
		return err // big files: one walk keeps the test quick
	}
	_, err = Copy(io.Discard, bytes.NewReader(data), Options{})
	return err
}

// damageOffsets is every offset of a small file, a few hundred spread
// over a big one.
func damageOffsets(size int) []int {
	const every = 4 << 10
	if size <= every {
		offs := make([]int, size)
		for i := range offs {
			offs[i] = i
		}
		return offs
	}
	spread := 300
	switch {
	case rdbiotest.Long() && size > 1<<20:
		spread = 150
	case size > 2<<20:
		spread = 20 // each try reads up to the whole file: 150 took 6–10 s on each of the 3.7–17 MB dumps
	case size > 1<<20:
		spread = 60 // 150 took 1.4 s on each 1–2 MB dump
	}
	var offs []int
	for i := 0; i < spread; i++ {
		offs = append(offs, int(int64(size)*int64(i)/int64(spread)))
	}
	return append(offs, size-1, size-8, size-9, size-10)
}

// fileEnd is where the RDB proper ends (bytes after it are ignored by
// loaders), or -1 when the file does not read cleanly.
func fileEnd(data []byte) int64 {
	r, err := NewReader(bytes.NewReader(data), Options{IgnoreChecksum: true})
	if err != nil {
		return -1
	}
	if _, err := Drain(r); err != nil {
		return -1
	}
	return r.Offset()
}

func TestTruncatedAndFlippedFail(t *testing.T) {
	for _, cf := range corpusFiles(t) {
		name := filepath.Base(cf.Path)
		data, err := os.ReadFile(cf.Path)
		if err != nil {
			t.Fatal(err)
		}
		if readAll(data) != nil {
			continue // files that do not read cleanly whole are covered elsewhere
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			end := fileEnd(data)
			offs := damageOffsets(len(data))
			for _, off := range offs {
				if int64(off) < end || end < 0 {
					if err := readAll(data[:off]); err == nil {
						t.Fatalf("truncated at %d of %d: no error", off, len(data))
					}
				}
			}
			withCRC := hasCRC(data)
			flipped := bytes.Clone(data)
			for _, off := range offs {
				flipped[off] ^= 0xFF
				err := readAll(flipped)
				flipped[off] ^= 0xFF
				if withCRC && int64(off) < end && err == nil {
					t.Fatalf("byte %d flipped in a file with a checksum: no error", off)
				}
			}
		})
	}
}

// hasCRC reports whether a file carries a non-zero CRC64 trailer.
func hasCRC(data []byte) bool {
	r, err := NewReader(bytes.NewReader(data), Options{IgnoreChecksum: true})
	if err != nil {
		return false
	}
	eof, err := Drain(r)
	return err == nil && (eof.Checksum == ChecksumOK || eof.Checksum == ChecksumMismatch)
}
