package analyze

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rdbz/rdbz/rdbio"
	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

// corpusDir is the shared corpus beside the checkout.
var corpusDir = filepath.Join(rdbiotest.Shared(), "corpus")

// corpusFiles lists every corpus file (skipping when the corpus is absent).
func corpusFiles(t testing.TB) []rdbiotest.File { return rdbiotest.Sweep(t) }

// openReader opens a file for reading with default options; the file is
// closed when the test ends.
func openReader(t testing.TB, path string) *rdbio.Reader {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	r, err := rdbio.NewReader(f, rdbio.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}
