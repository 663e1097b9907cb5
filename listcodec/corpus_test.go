package listcodec

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/rdbz/rdbz/listcodec/node"
	"github.com/rdbz/rdbz/rdbio"
	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

// compressFile compresses a corpus file in file mode (sampling pass).
func compressFile(t *testing.T, path string, opt CompressOptions) ([]byte, *Stats, error) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out bytes.Buffer
	st, err := Compress(&out, f, opt)
	return out.Bytes(), st, err
}

func decompressBytes(t *testing.T, in []byte, to Form) []byte {
	t.Helper()
	var out bytes.Buffer
	// A compressed file may keep a source's wrong CRC when it was copied
	// unchanged; the tests below check CRCs where they matter.
	flow := Flow{Options: rdbio.Options{IgnoreChecksum: true}, Workers: 2}
	if _, err := Decompress(&out, bytes.NewReader(in), DecompressOptions{To: to, Flow: flow}); err != nil {
		t.Fatalf("decompress --to %d: %v", to, err)
	}
	return out.Bytes()
}

// fixedDict is testdata/test.dict (testdata/make-test-dict.sh), for the
// tests whose subject is not the dictionary: they need not train one.
var fixedDict = sync.OnceValues(func() (*node.Dict, error) { return node.ReadDictFile("../testdata/test.dict") })

func testDictFile(t *testing.T) *node.Dict {
	t.Helper()
	d, err := fixedDict()
	if err != nil {
		t.Fatal(err)
	}
	return d
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
			opt := CompressOptions{Flow: Flow{Workers: 2}, Verify: true, Dict: testDictFile(t), MinSaving: NoMinSaving}
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
				judgeCorpusFile(t, cf, comp)
			}
		})
	}
}

// judgeCorpusFile fails unless, for a corpus file redis loads, redis loads
// decompress --to lzf and --to raw of comp with the file's digest.
func judgeCorpusFile(t *testing.T, cf rdbiotest.File, comp []byte) {
	t.Helper()
	if !cf.RedisLoads() {
		return
	}
	want, err := rdbiotest.Digest(t, cf.Path)
	if err != nil {
		t.Fatalf("oracle on the original: %v", err)
	}
	judgeDecompressed(t, comp, want, ToLZF, ToRaw)
}

// judgeDecompressed fails unless redis loads decompress --to each target
// of comp with the oracle summary want.
func judgeDecompressed(t *testing.T, comp []byte, want string, targets ...Form) {
	t.Helper()
	for _, to := range targets {
		p := filepath.Join(t.TempDir(), "out.rdb")
		if err := os.WriteFile(p, decompressBytes(t, comp, to), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := rdbiotest.Digest(t, p)
		if err != nil {
			t.Fatalf("redis refuses decompress --to %d: %v", to, err)
		}
		if got != want {
			t.Fatalf("decompress --to %d: oracle says\n%s\nwant\n%s", to, got, want)
		}
	}
}
