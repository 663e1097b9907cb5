package rdbio

import (
	"bytes"
	"errors"
	"fmt"
	"io"
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

// TestCheckAsCopy: Check reads what Copy reads and fails as Copy fails:
// on every corpus file, whole, with bytes after its trailer (an AOF
// tail), cut short at eight places, and with one byte changed at eight
// places, the same byte count (on success) and the same error.
func TestCheckAsCopy(t *testing.T) {
	for _, cf := range corpusFiles(t) {
		in, err := os.ReadFile(cf.Path)
		if err != nil {
			t.Fatal(err)
		}
		inputs := [][]byte{in, append(bytes.Clone(in), "*1\r\n$4\r\nPING\r\n"...)} // bytes after the trailer
		for i := 1; i <= 8; i++ {
			at := len(in) * i / 9
			inputs = append(inputs, in[:at])
			flipped := bytes.Clone(in)
			flipped[at] ^= 0x41
			inputs = append(inputs, flipped)
		}
		for i, b := range inputs {
			for _, opt := range []Options{{}, {IgnoreChecksum: true}} {
				wantN, wantErr := Copy(io.Discard, bytes.NewReader(b), opt)
				gotN, gotErr := Check(bytes.NewReader(b), opt)
				if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || wantErr == nil && gotN != wantN {
					t.Fatalf("%s input %d %+v: Check %d, %v; Copy %d, %v", filepath.Base(cf.Path), i, opt, gotN, gotErr, wantN, wantErr)
				}
			}
		}
	}
}
