package columns

import (
	"os"
	"testing"

	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

// TestCorpusRoundTrip: Join(Split(T)) is T on every corpus file, in
// segments of 1 MiB and of 64 KiB (files over 4 MiB need RDBZ_LONG=1).
func TestCorpusRoundTrip(t *testing.T) {
	for _, f := range rdbiotest.Files(t) {
		st, err := os.Stat(f.Path)
		if err != nil {
			t.Fatal(err)
		}
		if st.Size() > 4<<20 && !rdbiotest.Long() {
			continue
		}
		tf := readTOrSkip(t, f.Path)
		if tf == nil {
			continue
		}
		roundTrip(t, f.Name, tf, 1<<20)
		roundTrip(t, f.Name, tf, 64<<10)
	}
}
