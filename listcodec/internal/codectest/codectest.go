// Package codectest holds what the tests of listcodec (format 2, and
// reading both formats) and listcodec/v1 (format 1) share: the
// repository's test files, compressing a corpus file, and redis's
// judgement of what decompress writes.
package codectest

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/rdbz/rdbz/listcodec/node"
	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

// Testdata is the path of the repository's testdata/name.
func Testdata(name string) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "testdata", name)
}

// fixedDict is testdata/test.dict, read once.
var fixedDict = sync.OnceValues(func() (*node.Dict, error) { return node.ReadDictFile(Testdata("test.dict")) })

// FixedDict is testdata/test.dict (testdata/make-test-dict.sh), for the
// tests whose subject is not the dictionary: they need not train one.
func FixedDict(tb testing.TB) *node.Dict {
	tb.Helper()
	d, err := fixedDict()
	if err != nil {
		tb.Fatal(err)
	}
	return d
}

// SmallRDB is testdata/small.rdb.
func SmallRDB(tb testing.TB) []byte {
	tb.Helper()
	b, err := os.ReadFile(Testdata("small.rdb"))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// CompressFile compresses the file at path with compress, given the file
// itself (a format that trains in a first pass over a file does), and
// returns what it wrote, its stats and its error.
func CompressFile[S any](t *testing.T, path string, compress func(dst io.Writer, src io.Reader) (S, error)) ([]byte, S, error) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out bytes.Buffer
	st, err := compress(&out, f)
	return out.Bytes(), st, err
}

// Decompressed is what decompress writes, failing the test on its error
// (to: the form it writes, for the message).
func Decompressed(t *testing.T, to any, decompress func(dst io.Writer) error) []byte {
	t.Helper()
	var out bytes.Buffer
	if err := decompress(&out); err != nil {
		t.Fatalf("decompress --to %v: %v", to, err)
	}
	return out.Bytes()
}

// JudgeCorpusFile fails unless, for a corpus file redis loads, redis loads
// what decompress gives for each form with the file's digest.
func JudgeCorpusFile[F any](t *testing.T, cf rdbiotest.File, decompress func(F) []byte, forms ...F) {
	t.Helper()
	if !cf.RedisLoads() {
		return
	}
	want, err := rdbiotest.Digest(t, cf.Path)
	if err != nil {
		t.Fatalf("oracle on the original: %v", err)
	}
	JudgeDecompressed(t, want, decompress, forms...)
}

// JudgeDecompressed fails unless redis loads what decompress gives for
// each form with the oracle summary want.
func JudgeDecompressed[F any](t *testing.T, want string, decompress func(F) []byte, forms ...F) {
	t.Helper()
	for _, to := range forms {
		p := filepath.Join(t.TempDir(), "out.rdb")
		if err := os.WriteFile(p, decompress(to), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := rdbiotest.Digest(t, p)
		if err != nil {
			t.Fatalf("redis refuses decompress --to %v: %v", to, err)
		}
		if got != want {
			t.Fatalf("decompress --to %v: oracle says\n%s\nwant\n%s", to, got, want)
		}
	}
}
