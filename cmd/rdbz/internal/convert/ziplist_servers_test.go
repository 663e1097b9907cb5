package convert

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/rdbz/rdbz/rdbio"
	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

// TestOddZiplistMatchesServers: a quicklist (type 14) whose node is a
// ziplist redis reads but does not write (rdbiotest.OddZiplist: header
// count 65535, string encodings 0x81, 0xBF and a 14-bit length for 5
// bytes) loads into redis 6.2 and 7.0, deep-checked, with the digest of the
// same list written canonically: the servers read the entries rdbio/blob
// reads. Converted for each, it keeps that digest, and rdbio counts its
// elements.
func TestOddZiplistMatchesServers(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	odd := rdbiotest.QuicklistFile("list", rdbiotest.OddZiplist())
	oddPath := write("odd.rdb", odd)
	canonPath := write("canonical.rdb", rdbiotest.QuicklistFile("list", rdbiotest.ZiplistOf(rdbiotest.OddZiplistEntries...)))
	if n := firstKeyElements(t, odd); n != int64(len(rdbiotest.OddZiplistEntries)) {
		t.Fatalf("rdbio counts %d elements, want %d", n, len(rdbiotest.OddZiplistEntries))
	}
	for _, s := range []struct{ target, bin string }{
		{"redis-6.2", rdbiotest.ServerBinary(t, "redis-server-6.2.16")},
		{"redis-7.0", ""},
	} {
		want, err := rdbiotest.Judge(t, s.bin, canonPath)
		if err != nil {
			t.Fatalf("%s: the canonical list: %v", s.target, err)
		}
		got, err := rdbiotest.Judge(t, s.bin, oddPath)
		if err != nil || got.Summary != want.Summary {
			t.Fatalf("%s loads the odd ziplist as %v (%v), the canonical one as %s", s.target, got, err, want.Summary)
		}
		var out bytes.Buffer
		if _, err := Convert(t.Context(), &out, bytes.NewReader(odd), Options{Target: s.target}); err != nil {
			t.Fatalf("convert for %s: %v", s.target, err)
		}
		conv, err := rdbiotest.Judge(t, s.bin, write(s.target+".rdb", out.Bytes()))
		if err != nil || conv.Summary != want.Summary {
			t.Fatalf("%s loads the conversion as %v (%v), want %s", s.target, conv, err, want.Summary)
		}
		if n := firstKeyElements(t, out.Bytes()); n != int64(len(rdbiotest.OddZiplistEntries)) {
			t.Errorf("%s: rdbio counts %d elements in the conversion", s.target, n)
		}
	}
}

// firstKeyElements is the element count of the first key of an RDB file.
func firstKeyElements(t *testing.T, b []byte) int64 {
	t.Helper()
	r, err := rdbio.NewReader(bytes.NewReader(b), rdbio.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for {
		rec, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		if rec.Kind == rdbio.KindKey {
			info, err := r.Value().Count(nil)
			if err != nil || !info.Known {
				t.Fatalf("Value.Count: %+v, %v", info, err)
			}
			return info.Elements
		}
	}
}
