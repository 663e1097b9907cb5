package format2

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

// TestTrainDict: a dictionary from the first TrainBytes of T, the input
// read no further than that (and its window), usable by Compress, or none
// when the gate finds it does not pay (app-cache-nocompress, 17 MB: its
// 8 MiB of T save less than the dictionary's bytes): Compress decides the
// same on the same bytes.
func TestTrainDict(t *testing.T) {
	path := filepath.Join(rdbiotest.Shared(), "corpus", "generated", "app-cache-nocompress.rdb")
	f, err := os.Open(path)
	if err != nil {
		t.Skipf("corpus file absent: %v", err)
	}
	defer f.Close()
	d, err := TrainDict(f, Options{})
	if err != nil {
		t.Fatalf("dictionary %d bytes: %v", len(d), err)
	}
	read, _ := f.Seek(0, io.SeekCurrent)
	if fi, _ := f.Stat(); read >= fi.Size() {
		t.Fatalf("read all %d bytes to train on 12 MiB", read)
	}
	if d != nil {
		if err := checkDict(d); err != nil {
			t.Fatal(err)
		}
	}
	var out counter
	out.w = io.Discard
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	st, err := Compress(t.Context(), &out, f, Options{})
	if err != nil || (st.DictID != 0) != (d != nil) {
		t.Fatalf("Compress: %v, dictionary %d, TrainDict's %d bytes", err, st.DictID, len(d))
	}
}
