package lookup

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/rdbz/rdbz/listcodec"
	"github.com/rdbz/rdbz/listcodec/tstream"
	"github.com/rdbz/rdbz/rdbio"
	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

func TestMain(m *testing.M) { os.Exit(rdbiotest.Main(m)) }

// lookupFiles are corpus files with several dbs, expiries, streams,
// functions, PLAIN list nodes and old encodings.
var lookupFiles = []string{"generated/mixed-all-types.rdb", "generated/lists-plain-nodes.rdb",
	"public/redis__test.rdb", "public/redis-replicator__dump-stream.rdb", "public/redis-replicator__dumpV7.rdb",
	"public/hdt3213-rdb__memory.rdb"}

// compressed writes path as format 2 with blocks of blockSize bytes.
func compressed(t *testing.T, path string, blockSize int) string {
	t.Helper()
	in, err := os.Open(path)
	if err != nil {
		t.Skipf("corpus file: %v", err)
	}
	defer in.Close()
	out := filepath.Join(t.TempDir(), filepath.Base(path)+".rdbz")
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, err := listcodec.Compress(f, in, listcodec.CompressOptions{BlockSize: blockSize})
	if err != nil {
		t.Fatal(err)
	}
	if st.Format2 == nil {
		t.Skipf("%s is kept as it is", path)
	}
	return out
}

// keyOf is one key of a file.
type keyOf struct {
	db  uint64
	key string
}

// keysOf lists the keys of an RDB.
func keysOf(t *testing.T, path string) []keyOf {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []keyOf
	err = rdbio.ForEachKey(f, rdbio.Options{}, func(_ *rdbio.Reader, rec *rdbio.Record) error {
		out = append(out, keyOf{rec.DB, string(rec.Key)})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// rendered is a key record as the tests compare it: its db, key, expiry,
// type and value as stored (Value.Copy): what the source file holds.
func rendered(r *rdbio.Reader, rec *rdbio.Record) ([]byte, error) {
	out := fmt.Appendf(nil, "db %d key %q expire %d type %v\n", rec.DB, rec.Key, rec.Expire, rec.Type)
	var v bytes.Buffer
	err := r.Value().Copy(&v)
	return append(out, v.Bytes()...), err
}

// scanned is the key read from the RDB path.
func scanned(t *testing.T, path string, k keyOf) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []byte
	err = rdbio.ForEachKey(f, rdbio.Options{}, func(r *rdbio.Reader, rec *rdbio.Record) error {
		if out == nil && rec.DB == k.db && string(rec.Key) == k.key {
			var err error
			out, err = rendered(r, rec)
			return err
		}
		return nil
	})
	if err != nil || out == nil {
		t.Fatalf("scan for %v: %v, found %v", k, err, out != nil)
	}
	return out
}

// open opens a format-2 file for lookups, tracing the blocks it decodes.
func open(t *testing.T, path string) (*File, int64) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	fi, _ := f.Stat()
	lf, err := Open(f, fi.Size(), rdbio.Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lf.Close() })
	lf.trace = []int{}
	return lf, fi.Size()
}

// lookedUp renders the key as looked up.
func lookedUp(t *testing.T, lf *File, k keyOf) ([]byte, bool) {
	t.Helper()
	var out []byte
	ok, err := lf.Find(k.db, []byte(k.key), func(r *rdbio.Reader, rec *rdbio.Record) error {
		var err error
		out, err = rendered(r, rec)
		return err
	})
	if err != nil {
		t.Fatalf("find %v: %v", k, err)
	}
	return out, ok
}

// TestFindEveryKey looks up every key of each file in its format-2 form,
// with small blocks (records spanning blocks, expiries in the block
// before) and the default ones: each is found and renders as a scan of
// the RDB renders it; each block decoded is one the index names for the
// key, the one before it, or one its value continues into; keys of the
// wrong db are not found.
func TestFindEveryKey(t *testing.T) {
	for _, name := range lookupFiles {
		path := rdbiotest.CorpusFile(t, name)
		keys := keysOf(t, path)
		for _, bs := range []int{16 << 10, 0} {
			t.Run(fmt.Sprintf("%s/block-%d", filepath.Base(name), bs), func(t *testing.T) {
				lf, _ := open(t, compressed(t, path, bs))
				step := max(1, len(keys)/60) // a sample of the larger files
				for i, k := range keys {
					if i%step != 0 {
						continue
					}
					lf.trace = lf.trace[:0]
					cands, err := lf.bf.Lookup(tstream.TKey(nil, k.db, []byte(k.key)))
					if err != nil {
						t.Fatal(err)
					}
					got, ok := lookedUp(t, lf, k)
					if !ok {
						t.Fatalf("%v not found", k)
					}
					if want := scanned(t, path, k); !bytes.Equal(got, want) {
						t.Fatalf("%v: looked up\n%.300s\nscanned\n%.300s", k, got, want)
					}
					checkTrace(t, lf, lf.trace, cands, k)
					if i%(5*step) != 0 {
						continue
					}
					if _, ok := lookedUp(t, lf, keyOf{k.db + 7, k.key}); ok {
						t.Fatalf("%q found in db %d", k.key, k.db+7)
					}
				}
			})
		}
	}
}

// checkTrace fails unless each block decoded is block 0 or lies in the
// window of a candidate c: from the nearest block before c where a key's
// record starts (the expiry of the key, the db of the records before the
// run's first SELECTDB, read back) to the first block after c where a
// record starts (the key's value continuing into the blocks after c, and
// the first bytes of the record after it).
func checkTrace(t *testing.T, lf *File, trace, cands []int, k keyOf) {
	t.Helper()
	blocks := lf.bf.Blocks()
	window := func(c, b int) bool {
		lo := c
		for lo > 0 && (lo == c || blocks[lo].Keys == 0) {
			lo--
		}
		hi := c + 1
		for hi < len(blocks)-1 && blocks[hi].First < 0 {
			hi++
		}
		return lo <= b && b <= hi
	}
	for _, b := range trace {
		if b != 0 && !slices.ContainsFunc(cands, func(c int) bool { return window(c, b) }) {
			t.Fatalf("%v: decoded block %d; the index names %v (trace %v)", k, b, cands, trace)
		}
	}
}

// TestFindReadsLittle looks up one key of a dump of large lists: it reads
// the header, the index's head and the sections its key needs, and the
// frames of at most three blocks: block 0 (the magic), the key's, and the
// one before (its expiry).
func TestFindReadsLittle(t *testing.T) {
	path := rdbiotest.CorpusFile(t, "generated", "lists-plain-nodes.rdb")
	lf, size := open(t, compressed(t, path, 0))
	opened := lf.BytesRead()
	keys := keysOf(t, path)
	k := keys[len(keys)/2]
	if _, ok := lookedUp(t, lf, k); !ok {
		t.Fatalf("%v not found", k)
	}
	frames := int64(0)
	for _, b := range lf.trace {
		frames += int64(lf.bf.Blocks()[b].Size)
	}
	secs := lf.bf.SectionBytes()
	if got := lf.BytesRead(); got != opened+secs+frames || len(lf.trace) > 3 {
		t.Fatalf("read %d bytes of %d: %d to open it, %d of sections, %d in the frames of blocks %v", got, size, opened, secs, frames, lf.trace)
	}
	t.Logf("read %d of %d bytes (%d header and index), blocks %v", lf.BytesRead(), size, opened, lf.trace)
}

// TestFindFormat20 looks up every key of testdata/small.rdb in its form
// written by rdbz before format 2.1 (2 KiB blocks, the 2.0 index: filters
// inline, no db per block, so the db is read back from the blocks before):
// each is found and renders as a scan renders it, and not in another db.
func TestFindFormat20(t *testing.T) {
	src := "../../testdata/small.rdb"
	lf, _ := open(t, "../../testdata/small-format2.0.rdbz")
	if len(lf.bf.Blocks()) < 4 || lf.bf.Blocks()[0].State != -1 {
		t.Fatalf("not a 2.0 file of several blocks: %d blocks", len(lf.bf.Blocks()))
	}
	findAll(t, lf, src)
	// And the 2.1 file of the same source (zstd blocks, the db per block).
	lf, _ = open(t, "../../testdata/small-format2.1.rdbz")
	if len(lf.bf.Blocks()) < 4 || lf.bf.Header().Columns || lf.bf.Header().Minor != 1 {
		t.Fatalf("not a 2.1 file of several blocks: %d blocks", len(lf.bf.Blocks()))
	}
	findAll(t, lf, src)
}

// findAll looks up every key of src in lf: each is found and renders as a
// scan renders it, and not in another db.
func findAll(t *testing.T, lf *File, src string) {
	t.Helper()
	for _, k := range keysOf(t, src) {
		got, ok := lookedUp(t, lf, k)
		if !ok {
			t.Fatalf("%v not found", k)
		}
		if want := scanned(t, src, k); !bytes.Equal(got, want) {
			t.Fatalf("%v: looked up\n%.300s\nscanned\n%.300s", k, got, want)
		}
		if _, ok := lookedUp(t, lf, keyOf{k.db ^ 1, k.key}); ok {
			t.Fatalf("%v found in db %d", k, k.db^1)
		}
	}
}
