package listcodec

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

// TestStreamModeGenerated: compressing from a stream (no first pass, as
// from stdin) round-trips through a real redis-server on the generated
// files, and its output is within 5% of what file mode gives. It trains two
// dictionaries per file: by default on the files of at most MediumBytes,
// with RDBZ_LONG=1 on every generated file (docs/testing.md).
func TestStreamModeGenerated(t *testing.T) {
	if testing.Short() {
		t.Skip("trains two dictionaries per file; skipped with -short")
	}
	for _, cf := range rdbiotest.Generated(t, rdbiotest.MediumBytes) {
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
			t.Logf("input %d, file mode %d, stream mode %d (%.3f); %s", len(in), len(file), stream.Len(), ratio, st.Summary("stream"))
			if ratio > 1.05 {
				t.Errorf("stream mode output is %.1f%% larger than file mode", (ratio-1)*100)
			}
			want, err := rdbiotest.Digest(t, cf.Path)
			if err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(t.TempDir(), "back.rdb")
			if err := os.WriteFile(p, decompressBytes(t, stream.Bytes(), ToLZF), 0o644); err != nil {
				t.Fatal(err)
			}
			if got, err := rdbiotest.Digest(t, p); err != nil || got != want {
				t.Fatalf("stream-mode round trip: oracle %q (%v), want %q", got, err, want)
			}
		})
	}
}
