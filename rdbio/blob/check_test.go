package blob_test

import (
	"errors"
	"testing"

	"github.com/rdbz/rdbz/rdbio/blob"
	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

var (
	ziplistOf  = rdbiotest.ZiplistOf
	listpackOf = rdbiotest.ListpackOf
	intsetOf   = rdbiotest.IntsetOf
	zipmapOf   = rdbiotest.ZipmapOf
)

func with(b []byte, f func([]byte)) []byte {
	c := append([]byte{}, b...)
	f(c)
	return c
}

// TestCheckBlob: well-formed blobs pass both checks; each damage is caught
// by the check that looks at it (the header by both, entries by the deep
// one only), as the servers' validators do.
func TestCheckBlob(t *testing.T) {
	zl := ziplistOf("a", "1", "bb", "12")
	lp := listpackOf("f1", "v1", "f2", "v2")
	zm := zipmapOf("f1", "v1", "f2", "v2")
	five := []byte{0xF6} // the immediate integer 5
	tests := []struct {
		name            string
		kind            blob.Kind
		b               []byte
		per             int
		shallow, deepOK bool
	}{
		{"ziplist", blob.Ziplist, zl, 2, true, true},
		{"ziplist, one entry list", blob.Ziplist, ziplistOf("x"), 1, true, true},
		{"ziplist, empty", blob.Ziplist, ziplistOf(), 1, true, true},
		{"ziplist, size in header", blob.Ziplist, with(zl, func(b []byte) { b[0]++ }), 2, false, false},
		{"ziplist, no end byte", blob.Ziplist, with(zl, func(b []byte) { b[len(b)-1] = 0 }), 2, false, false},
		{"ziplist, tail past the end", blob.Ziplist, with(zl, func(b []byte) { b[4] = 200 }), 2, false, false},
		{"ziplist, tail not at the last entry", blob.Ziplist, with(zl, func(b []byte) { b[4] = 10 }), 2, true, false},
		{"ziplist, header count", blob.Ziplist, with(zl, func(b []byte) { b[8] = 3 }), 2, true, false},
		{"ziplist, unknown count", blob.Ziplist, with(zl, func(b []byte) { b[8], b[9] = 0xFF, 0xFF }), 2, true, true},
		{"ziplist, previous length", blob.Ziplist, with(zl, func(b []byte) { b[13] = 2 }), 2, true, false},
		{"ziplist, string past the end", blob.Ziplist, with(zl, func(b []byte) { b[11] = 60 }), 2, true, false},
		{"ziplist, bad encoding", blob.Ziplist, with(zl, func(b []byte) { b[11] = 0xFF }), 2, true, false},
		{"ziplist, odd pairs", blob.Ziplist, ziplistOf("a", "1", "b"), 2, true, false},
		{"ziplist, field twice", blob.Ziplist, ziplistOf("a", "1", "a", "2"), 2, true, false},
		{"ziplist, integer field twice", blob.Ziplist, rdbiotest.ZiplistOfEntries(five, []byte{1, 'x'}, five, []byte{1, 'y'}), 2, true, false},
		{"ziplist, integer and string field", blob.Ziplist, rdbiotest.ZiplistOfEntries(five, []byte{1, 'x'}, []byte{1, '5'}, []byte{1, 'y'}), 2, true, false},
		{"ziplist, value twice", blob.Ziplist, ziplistOf("a", "1", "b", "1"), 2, true, true},
		{"listpack", blob.Listpack, lp, 2, true, true},
		{"listpack, size in header", blob.Listpack, with(lp, func(b []byte) { b[0]-- }), 2, false, false},
		{"listpack, no end byte", blob.Listpack, with(lp, func(b []byte) { b[len(b)-1] = 1 }), 2, false, false},
		{"listpack, header count", blob.Listpack, with(lp, func(b []byte) { b[4] = 5 }), 2, true, false},
		{"listpack, field twice", blob.Listpack, listpackOf("f", "1", "f", "2"), 2, true, false},
		{"listpack, odd triples", blob.Listpack, listpackOf("f", "1", "x", "g"), 3, true, false},
		{"intset", blob.Intset, intsetOf(-3, 1, 7), 1, true, true},
		{"intset, empty", blob.Intset, intsetOf(), 1, false, false},
		{"intset, encoding", blob.Intset, with(intsetOf(1, 2), func(b []byte) { b[0] = 3 }), 1, false, false},
		{"intset, count", blob.Intset, with(intsetOf(1, 2), func(b []byte) { b[4] = 3 }), 1, false, false},
		{"intset, out of order", blob.Intset, intsetOf(2, 1), 1, true, false},
		{"intset, twice", blob.Intset, intsetOf(1, 1), 1, true, false},
		{"zipmap", blob.Zipmap, zm, 2, true, true},
		{"zipmap, unknown count", blob.Zipmap, with(zm, func(b []byte) { b[0] = 254 }), 2, true, true},
		{"zipmap, count", blob.Zipmap, with(zm, func(b []byte) { b[0] = 3 }), 2, true, false},
		{"zipmap, empty", blob.Zipmap, zipmapOf(), 2, true, false},
		{"zipmap, no end byte", blob.Zipmap, with(zm, func(b []byte) { b[len(b)-1] = 0 }), 2, false, false},
		{"zipmap, value past the end", blob.Zipmap, with(zm, func(b []byte) { b[4] = 100 }), 2, true, false},
		{"zipmap, field twice", blob.Zipmap, zipmapOf("f", "1", "f", "2"), 2, true, false},
		{"too short for any header", blob.Ziplist, []byte{1, 2}, 1, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, deep := range []bool{false, true} {
				want := tc.shallow
				if deep {
					want = tc.deepOK
				}
				err := blob.Check(tc.kind, tc.b, deep, tc.per)
				if (err == nil) != want {
					t.Errorf("deep %v: err %v, want ok %v", deep, err, want)
				}
				if err != nil && !errors.Is(err, blob.ErrCorrupt) {
					t.Errorf("deep %v: %v is not blob.ErrCorrupt", deep, err)
				}
			}
		})
	}
}

// FuzzCheckBlob: no blob makes the checks panic, a blob that passes the
// deep check passes the shallow one, and one decoder reads it for every
// use: its entries are walked (Entries) and counted (Count) alike.
func FuzzCheckBlob(f *testing.F) {
	f.Add(byte(0), ziplistOf("a", "b", "c", "d"))
	f.Add(byte(0), rdbiotest.OddZiplist())
	f.Add(byte(1), listpackOf("a", "b"))
	f.Add(byte(2), intsetOf(1, 2, 3))
	f.Add(byte(3), zipmapOf("a", "b"))
	f.Fuzz(func(t *testing.T, k byte, b []byte) {
		kind := blob.Kind(k % 4)
		for per := 1; per <= 3; per++ {
			deep := blob.Check(kind, b, true, per)
			if shallow := blob.Check(kind, b, false, per); deep == nil && shallow != nil {
				t.Fatalf("%s per %d: deep passes, shallow fails: %v", kind, per, shallow)
			}
			if deep != nil {
				continue
			}
			n := int64(0)
			if err := blob.Entries(kind, b, func(blob.Entry) error { n++; return nil }); err != nil {
				t.Fatalf("%s per %d: deep check passes, Entries fails: %v", kind, per, err)
			}
			if kind == blob.Zipmap {
				n /= 2
			}
			if c, ok := blob.Count(kind, b, true); !ok || c != n {
				t.Fatalf("%s per %d: deep check passes, Count %d (%v), %d walked", kind, per, c, ok, n)
			}
		}
	})
}
