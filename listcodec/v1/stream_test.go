package v1

import (
	"bytes"
	"os"
	"testing"

	"github.com/rdbz/rdbz/listcodec/internal/codectest"
	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

// TestStreamModeGenerated: compressing from a stream (no first pass, as
// from stdin) and from a file (a first pass trains the dictionary) both
// round-trip, through a real redis-server too, on the generated files, and
// stream mode's output is within 5% of file mode's. It trains two
// dictionaries per file, on the generated files of at most 2 MiB, only
// with RDBZ_LONG=1 (docs/testing.md).
func TestStreamModeGenerated(t *testing.T) {
	if !rdbiotest.Long() {
		// Format 1's two modes, written only with --format 1 (format 2
		// holds the same prefix from a file and a stream).
		t.Skip("format 1's stream against file mode: RDBZ_LONG=1 runs it")
	}
	for _, cf := range rdbiotest.Generated(t, 2<<20) {
		t.Run(cf.Name, func(t *testing.T) {
			in, err := os.ReadFile(cf.Path)
			if err != nil {
				t.Fatal(err)
			}
			var stream bytes.Buffer
			st, err := Compress(&stream, bytes.NewReader(in), CompressOptions{Flow: Flow{Workers: 2}})
			if err != nil {
				t.Fatalf("stream compress: %v", err)
			}
			file, _, err := compressFile(t, cf.Path, CompressOptions{Flow: Flow{Workers: 2}})
			if err != nil {
				t.Fatalf("file compress: %v", err)
			}
			ratio := float64(stream.Len()) / float64(len(file))
			t.Logf("input %d, file mode %d, stream mode %d (%.3f); %+v", len(in), len(file), stream.Len(), ratio, *st)
			if ratio > 1.05 {
				t.Errorf("stream mode output is %.1f%% larger than file mode", (ratio-1)*100)
			}
			want, err := rdbiotest.Digest(t, cf.Path)
			if err != nil {
				t.Fatal(err)
			}
			// Both modes' outputs, trained as compress trains by default,
			// come back byte-identical and load with the original's digest.
			for mode, comp := range map[string][]byte{"stream": stream.Bytes(), "file": file} {
				if !bytes.Equal(decompressBytes(t, comp, ToOriginal), in) {
					t.Fatalf("%s mode: decompress --to original differs from the input", mode)
				}
				codectest.JudgeDecompressed(t, want, decompressedOf(t, comp), ToLZF, ToRaw)
			}
		})
	}
}
