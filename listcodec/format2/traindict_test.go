package format2

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

// TestTrainDict: a dictionary from the first TrainBytes of T, the input
// read no further than that (and its window), usable by Compress: on
// a 17 MB dump.
func TestTrainDict(t *testing.T) {
	path := filepath.Join(rdbiotest.Shared(), "corpus", "generated", "app-cache-nocompress.rdb")
	f, err := os.Open(path)
	if err != nil {
		t.Skipf("corpus file absent: %v", err)
	}
	defer f.Close()
	d, err := TrainDict(f, Options{})
	if err != nil || d == nil {
		t.Fatalf("dictionary %d bytes: %v", len(d), err)
	}
	read, _ := f.Seek(0, io.SeekCurrent)
	if fi, _ := f.Stat(); read >= fi.Size() {
		t.Fatalf("read all %d bytes to train on 12 MiB", read)
	}
	if err := checkDict(d); err != nil {
		t.Fatal(err)
	}
}
