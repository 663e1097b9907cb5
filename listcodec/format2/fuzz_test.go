package format2

import (
	"bytes"
	"context"
	"io"
	"os"
	"testing"

	"github.com/rdbz/rdbz/rdbio"
)

// FuzzDecompress: any input to Decompress, any target, gives an RDB or an
// error, never a panic or a hang, within the caps. Seeds: small.rdb in
// format 2, whole and with its dictionary left out.
func FuzzDecompress(f *testing.F) {
	src, err := os.ReadFile("../../testdata/small.rdb")
	if err != nil {
		f.Fatal(err)
	}
	for _, o := range []Options{{}, {DictSize: 4 << 10}, {BlockSize: 1 << 10}} {
		var z bytes.Buffer
		if _, err := Compress(context.Background(), &z, bytes.NewReader(src), o); err != nil {
			f.Fatal(err)
		}
		f.Add(z.Bytes(), uint8(0))
	}
	f.Fuzz(func(t *testing.T, in []byte, to uint8) {
		opt := DecompressOptions{To: rdbio.Target(to % 3), Workers: 1, Cap: 1 << 20}
		st, err := Decompress(context.Background(), io.Discard, bytes.NewReader(in), opt)
		if err == nil && st.BytesOut < 10 {
			t.Fatalf("an RDB of %d bytes", st.BytesOut)
		}
	})
}
