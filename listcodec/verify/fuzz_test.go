package verify

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/rdbz/rdbz/listcodec"
	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

// FuzzVerify compares arbitrary bytes with themselves: never a panic or an
// allocation by a claimed count, and when both sides read without error,
// the same input holds the same data. Seeds: testdata and the corpus files
// up to 64 KiB.
func FuzzVerify(f *testing.F) {
	seeds, _ := filepath.Glob("../../testdata/*.rdb")
	for _, dir := range []string{"public", "generated"} {
		m, _ := filepath.Glob(filepath.Join(rdbiotest.Shared(), "corpus", dir, "*.rdb"))
		seeds = append(seeds, m...)
	}
	for _, p := range seeds {
		if st, err := os.Stat(p); err == nil && st.Size() <= 64<<10 {
			if data, err := os.ReadFile(p); err == nil {
				f.Add(data)
			}
		}
	}
	opt := Options{Flow: listcodec.Flow{Workers: 1, Cap: 1 << 20, QueueBytes: 1 << 20, IgnoreChecksum: true}, DecodeCap: 1 << 20}
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := Verify(bytes.NewReader(data), bytes.NewReader(data), opt)
		if err == nil && res.Diff != nil {
			t.Fatalf("an input differs from itself: %s", res.Diff)
		}
	})
}
