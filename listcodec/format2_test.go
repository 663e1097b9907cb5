package listcodec

import (
	"bytes"
	"errors"
	"io"
	"os"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/rdbz/rdbz/listcodec/format2"
	"github.com/rdbz/rdbz/listcodec/internal/codectest"
	"github.com/rdbz/rdbz/rdbio"
	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

// TestFormat2Corpus: every corpus file → format 2 → decompress --to
// original is the file byte for byte, never larger than it; for every file
// redis 7.0 loads, --to raw and --to lzf load with the original's digest.
// Written as compress writes by default (2.2) at the fastest level, and in
// 2.1 with the fixed test dictionary; RDBZ_LONG=1 adds the generated dumps
// over 5 MB.
func TestFormat2Corpus(t *testing.T) {
	for _, cf := range rdbiotest.Files(t) {
		if cf.Folder == "generated" && !rdbiotest.Long() {
			if fi, err := os.Stat(cf.Path); err == nil && fi.Size() > rdbiotest.MediumBytes {
				continue
			}
		}
		t.Run(cf.Name, func(t *testing.T) {
			in, err := os.ReadFile(cf.Path)
			if err != nil {
				t.Fatal(err)
			}
			// As compress writes by default (2.2, column segments), at the
			// fastest level; then 2.1 (with a dictionary) byte for byte.
			opt := CompressOptions{Flow: Flow{Workers: 2}, Level: zstd.SpeedFastest}
			comp, _, err := compressFile(t, cf.Path, opt)
			if err == nil {
				checkFormat21(t, cf.Path, in)
			}
			if errors.Is(err, rdbio.ErrChecksum) || cf.CorruptByDesign() && err != nil {
				t.Logf("refused as copy refuses it: %v", err)
				return
			}
			if err != nil {
				t.Fatalf("compress: %v", err)
			}
			// Always format 2, as zstd always writes a frame: at worst
			// the input, the dictionary it was given, its framing and
			// index (1%).
			if len(comp) > len(in)+len(in)/100+1024 {
				t.Errorf("%d bytes out for %d in", len(comp), len(in))
			}
			if !format2.IsFormat2(comp) {
				t.Errorf("not format 2")
			}
			if back := decompressBytes(t, comp, ToOriginal); !bytes.Equal(back, in) {
				t.Fatalf("decompress --to original differs from the input (%d vs %d bytes)", len(back), len(in))
			}
			judgeCorpusFile(t, cf, comp)
		})
	}
}

// checkFormat21 compresses the file in format 2.1 (a dictionary turns the
// column segments off) and fails unless it decompresses to in.
func checkFormat21(t *testing.T, path string, in []byte) {
	t.Helper()
	opt := CompressOptions{Flow: Flow{Workers: 2}, Dict: codectest.FixedDict(t), Level: zstd.SpeedFastest}
	comp, _, err := compressFile(t, path, opt)
	if err != nil {
		t.Fatalf("compress 2.1: %v", err)
	}
	if back := decompressBytes(t, comp, ToOriginal); !bytes.Equal(back, in) {
		t.Fatalf("2.1: decompress --to original differs from the input (%d vs %d bytes)", len(back), len(in))
	}
}

// TestFormat2Stream: a stream (no sampling pass: the first TrainBytes of T
// held and trained on) comes out within 3% of file mode, and both
// decompress to the source; stdin-like input also decompresses from a
// stream.
func TestFormat2Stream(t *testing.T) {
	for _, cf := range rdbiotest.Generated(t, rdbiotest.MediumBytes) {
		if cf.Name != "mixed-all-types.rdb" && cf.Name != "lists-logs.rdb" {
			continue
		}
		t.Run(cf.Name, func(t *testing.T) {
			in, err := os.ReadFile(cf.Path)
			if err != nil {
				t.Fatal(err)
			}
			opt := CompressOptions{Flow: Flow{Workers: 2}, TrainBytes: 1 << 20}
			file, _, err := compressFile(t, cf.Path, opt)
			if err != nil {
				t.Fatal(err)
			}
			var stream bytes.Buffer
			if _, err := Compress(&stream, io.MultiReader(bytes.NewReader(in)), opt); err != nil {
				t.Fatal(err)
			}
			t.Logf("file %d, stream %d bytes", len(file), stream.Len())
			if float64(stream.Len()) > 1.03*float64(len(file)) {
				t.Errorf("stream mode %d bytes, over 1.03 × file mode's %d", stream.Len(), len(file))
			}
			for _, comp := range [][]byte{file, stream.Bytes()} {
				var out bytes.Buffer
				if _, err := Decompress(&out, io.MultiReader(bytes.NewReader(comp)), DecompressOptions{}); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(out.Bytes(), in) {
					t.Fatal("decompress --to original differs from the input")
				}
			}
		})
	}
}

// TestOriginal: Original gives the source RDB of format 2, format 1 and
// ordinary inputs.
func TestOpen(t *testing.T) {
	src, err := os.ReadFile("../testdata/small.rdb")
	if err != nil {
		t.Fatal(err)
	}
	two, _, err := compressFile(t, "../testdata/small.rdb", CompressOptions{Dict: codectest.FixedDict(t)})
	if err != nil {
		t.Fatal(err)
	}
	one, err := os.ReadFile("../testdata/small-format1.rdbz")
	if err != nil {
		t.Fatal(err)
	}
	// Written by rdbz before format 2.1 (its 2.0 index, filters inline).
	two0, err := os.ReadFile("../testdata/small-format2.0.rdbz")
	if err != nil {
		t.Fatal(err)
	}
	// Written by rdbz before format 2.2 (its 2.1 blocks: zstd frames).
	two1, err := os.ReadFile("../testdata/small-format2.1.rdbz")
	if err != nil {
		t.Fatal(err)
	}
	// Written by rdbz before its column segments' version 2 (fields).
	two2v1, err := os.ReadFile("../testdata/small-format2.2-v1.rdbz")
	if err != nil {
		t.Fatal(err)
	}
	for name, in := range map[string][]byte{"format 2": two, "format 2.0": two0, "format 2.1": two1, "format 2.2 v1": two2v1, "format 1": one, "rdb": src} {
		r, err := Open(t.Context(), bytes.NewReader(in), DecompressOptions{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(r)
		if err == nil {
			err = r.Finish()
		}
		r.Close()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if want := map[string]Kind{"format 2": KindFormat2, "format 2.0": KindFormat2, "format 2.1": KindFormat2, "format 2.2 v1": KindFormat2, "format 1": KindFormat1, "rdb": KindRDB}[name]; r.Kind != want {
			t.Errorf("%s: kind %v, want %v", name, r.Kind, want)
		}
		if name != "format 1" && !bytes.Equal(got, src) {
			t.Errorf("%s: not the source", name)
		}
		if name == "format 1" {
			if _, err := rdbio.Copy(io.Discard, bytes.NewReader(got), rdbio.Options{}); err != nil {
				t.Errorf("format 1: %v", err)
			}
		}
	}
	// A format-2 file cut short, even in its footer only, is an error,
	// not a shorter RDB: for a reader that stops at the RDB's end, of
	// Finish.
	for _, cut := range []int{1, 5, 17} {
		r, err := Open(t.Context(), bytes.NewReader(two[:len(two)-cut]), DecompressOptions{})
		if err != nil {
			t.Fatal(err)
		}
		rr, err := rdbio.NewReader(r, rdbio.Options{})
		if err == nil {
			_, err = rdbio.Drain(rr)
		}
		if err == nil {
			err = r.Finish()
		}
		r.Close()
		if err == nil {
			t.Errorf("format-2 file less its last %d bytes read without error", cut)
		}
	}
}
