package format2

import (
	"bytes"
	"context"
	"os"
	"testing"

	"github.com/rdbz/rdbz/rdbio"
	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

// TestCorpusOriginal: every corpus file → Compress → Decompress --to
// original is the file byte for byte.
func TestCorpusOriginal(t *testing.T) {
	for _, f := range rdbiotest.Files(t) {
		src, err := os.ReadFile(f.Path)
		if err != nil {
			t.Fatal(err)
		}
		in, err := os.Open(f.Path)
		if err != nil {
			t.Fatal(err)
		}
		var z bytes.Buffer
		st, err := Compress(context.Background(), &z, in, Options{})
		in.Close()
		if err != nil {
			t.Logf("%s: compress: %v", f.Name, err)
			continue
		}
		if int64(z.Len()) > int64(len(src)) {
			t.Errorf("%s: %d bytes out for %d in", f.Name, z.Len(), len(src))
		}
		if f.Folder == "generated" {
			t.Logf("%s: %d -> %d (dict %d) %v", f.Name, len(src), z.Len(), st.DictBytes, st.Elapsed)
		}
		var out bytes.Buffer
		if IsFormat2(z.Bytes()) {
			if _, err := Decompress(context.Background(), &out, bytes.NewReader(z.Bytes()), DecompressOptions{To: rdbio.TargetOriginal}); err != nil {
				t.Errorf("%s: decompress: %v", f.Name, err)
				continue
			}
		} else {
			out = z
		}
		if !bytes.Equal(out.Bytes(), src) {
			t.Errorf("%s: original differs", f.Name)
		}
	}
}
