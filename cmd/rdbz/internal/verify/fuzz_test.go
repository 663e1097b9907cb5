package verify

import (
	"bytes"
	"testing"

	"github.com/rdbz/rdbz/listcodec"
	"github.com/rdbz/rdbz/rdbio"
	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

// FuzzVerify compares arbitrary bytes with themselves: never a panic or an
// allocation by a claimed count, and when both sides read without error,
// the same input holds the same data. Seeds: testdata and the corpus files
// up to 64 KiB.
func FuzzVerify(f *testing.F) {
	rdbiotest.FuzzSeeds(f, "../../../../testdata")
	opt := Options{Flow: listcodec.Flow{Options: rdbio.Options{Cap: 1 << 20, IgnoreChecksum: true}, Workers: 1, QueueBytes: 1 << 20}, DecodeCap: 1 << 20}
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := Verify(bytes.NewReader(data), bytes.NewReader(data), opt)
		if err == nil && res.Diff != nil {
			t.Fatalf("an input differs from itself: %s", res.Diff)
		}
	})
}
