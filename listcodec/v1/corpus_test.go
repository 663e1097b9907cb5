package v1

import (
	"bytes"
	"errors"
	"io"
	"os"
	"testing"

	"github.com/rdbz/rdbz/listcodec/internal/codectest"
	"github.com/rdbz/rdbz/rdbio"
	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

// compressFile compresses a corpus file in file mode (sampling pass).
func compressFile(t *testing.T, path string, opt CompressOptions) ([]byte, *Stats, error) {
	return codectest.CompressFile(t, path, func(w io.Writer, r io.Reader) (*Stats, error) { return Compress(w, r, opt) })
}

// decompressedOf is decompressBytes of comp, for codectest's judges.
func decompressedOf(t *testing.T, comp []byte) func(Form) []byte {
	return func(to Form) []byte { return decompressBytes(t, comp, to) }
}

// decompressBytes is Decompress of in --to to. A compressed file may keep a
// source's wrong CRC when it was copied unchanged; the tests below check
// CRCs where they matter.
func decompressBytes(t *testing.T, in []byte, to Form) []byte {
	t.Helper()
	return codectest.Decompressed(t, to, func(w io.Writer) error {
		_, err := Decompress(w, bytes.NewReader(in), DecompressOptions{To: to, Flow: Flow{Options: rdbio.Options{IgnoreChecksum: true}, Workers: 2}})
		return err
	})
}

// TestCorpusRoundTrip: for every corpus file, decompress --to original of
// compress (with the fixed test dictionary, so every list node is
// transcoded) is byte-identical, and for every file redis 7.0 loads,
// decompress --to lzf and --to raw load with the original's digest.
func TestCorpusRoundTrip(t *testing.T) {
	for _, cf := range rdbiotest.Sweep(t) {
		t.Run(cf.Name, func(t *testing.T) {
			in, err := os.ReadFile(cf.Path)
			if err != nil {
				t.Fatal(err)
			}
			opt := CompressOptions{Flow: Flow{Workers: 2}, Verify: true, Dict: codectest.FixedDict(t), MinSaving: NoMinSaving}
			comp, st, err := compressFile(t, cf.Path, opt)
			badCRC := errors.Is(err, rdbio.ErrChecksum)
			if badCRC {
				// Hand-edited fixtures whose stored CRC is wrong: refused by
				// default; with the check skipped they round-trip, and the
				// output carries a correct CRC instead.
				t.Logf("checksum mismatch refused: %v", err)
				opt.IgnoreChecksum = true
				comp, st, err = compressFile(t, cf.Path, opt)
				in = in[:len(in)-8]
			}
			if err != nil {
				if cf.CorruptByDesign() {
					t.Logf("corrupt by design: compress refuses it: %v", err)
					return
				}
				t.Fatalf("compress: %v", err)
			}
			t.Logf("%+v", *st)
			back := decompressBytes(t, comp, ToOriginal)
			if badCRC {
				back = back[:max(len(back)-8, 0)]
			}
			if !bytes.Equal(back, in) {
				t.Fatalf("decompress --to original differs from the input (%d vs %d bytes)", len(back), len(in))
			}
			if rdbiotest.Long() {
				// Format 1 is written only with --format 1: its outputs
				// are judged by a server in the long run; format 2's in
				// every run (TestFormat2Corpus).
				codectest.JudgeCorpusFile(t, cf, decompressedOf(t, comp), ToLZF, ToRaw)
			}
		})
	}
}
