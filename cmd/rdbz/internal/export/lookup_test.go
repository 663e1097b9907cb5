package export

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rdbz/rdbz/listcodec"
	"github.com/rdbz/rdbz/listcodec/lookup"
	"github.com/rdbz/rdbz/rdbio"
	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

// TestFindLoads sends keys looked up through a format-2 file's index
// (rdbz get), as RESTORE and as plain commands, to an empty redis-server,
// which then holds each as loading the file gives it: DEBUG DIGEST-VALUE,
// PEXPIRETIME, stream metadata.
func TestFindLoads(t *testing.T) {
	path := rdbiotest.CorpusFile(t, "generated", "mixed-all-types.rdb")
	want, err := rdbiotest.JudgeImport(t, "", path)
	if err != nil {
		t.Skipf("redis-server refuses the file: %v", err)
	}
	lf := openIndexed(t, path)
	hdr, err := lf.Header()
	if err != nil {
		t.Fatal(err)
	}
	type keyOf struct {
		db  uint64
		key string
	}
	var keys []keyOf
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := rdbio.ForEachKey(f, rdbio.Options{}, func(_ *rdbio.Reader, rec *rdbio.Record) error {
		keys = append(keys, keyOf{rec.DB, string(rec.Key)})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for i, k := range keys {
		if i%97 != 0 && !strings.HasPrefix(k.key, "stream") {
			continue
		}
		line := keyLine(want, k.db, k.key)
		if line == "" {
			continue // expired: loading drops it
		}
		for _, restore := range []bool{true, false} {
			got := rdbiotest.Import(t, "", func(w io.Writer) error {
				var b bytes.Buffer
				ew, err := NewWriter(&b, hdr, Options{Restore: restore})
				if err != nil {
					return err
				}
				ok, err := lf.Find(k.db, []byte(k.key), func(r *rdbio.Reader, rec *rdbio.Record) error { return ew.Key(r.Value(), rec) })
				if err == nil && !ok {
					t.Fatalf("%v not found", k)
				}
				if err == nil {
					err = ew.Close()
				}
				if err != nil {
					return err
				}
				_, err = w.Write(b.Bytes())
				return err
			})
			if len(got.Keys) != 1 || got.Keys[0] != line {
				t.Fatalf("restore %v: %v holds %q, the file gives %q", restore, k, got.Keys, line)
			}
		}
	}
}

// openIndexed compresses path into format 2 and opens it for lookups.
func openIndexed(t *testing.T, path string) *lookup.File {
	t.Helper()
	in, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	z := filepath.Join(t.TempDir(), "in.rdbz")
	out, err := os.Create(z)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { out.Close() })
	if _, err := listcodec.Compress(out, in, listcodec.CompressOptions{}); err != nil {
		t.Fatal(err)
	}
	fi, err := out.Stat()
	if err != nil {
		t.Fatal(err)
	}
	lf, err := lookup.Open(out, fi.Size(), rdbio.Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lf.Close() })
	return lf
}

// keyLine is the Loaded.Keys line of a key, "" when there is none.
func keyLine(l *rdbiotest.Loaded, db uint64, key string) string {
	prefix := strconv.FormatUint(db, 10) + " " + strconv.Quote(key) + " "
	for _, line := range l.Keys {
		if strings.HasPrefix(line, prefix) {
			return line
		}
	}
	return ""
}
