package format2

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

// countReader counts the bytes read through it.
type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

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
	cr := &countReader{r: f}
	d, err := TrainDict(cr, Options{})
	if err != nil || d == nil {
		t.Fatalf("dictionary %d bytes: %v", len(d), err)
	}
	if fi, _ := f.Stat(); cr.n >= fi.Size() {
		t.Fatalf("read all %d bytes to train on 12 MiB", cr.n)
	}
	if err := checkDict(d); err != nil {
		t.Fatal(err)
	}
}
