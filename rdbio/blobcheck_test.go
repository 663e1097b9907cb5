package rdbio

import (
	"errors"
	"testing"

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
		kind            Blob
		b               []byte
		per             int
		shallow, deepOK bool
	}{
		{"ziplist", BlobZiplist, zl, 2, true, true},
		{"ziplist, one entry list", BlobZiplist, ziplistOf("x"), 1, true, true},
		{"ziplist, empty", BlobZiplist, ziplistOf(), 1, true, true},
		{"ziplist, size in header", BlobZiplist, with(zl, func(b []byte) { b[0]++ }), 2, false, false},
		{"ziplist, no end byte", BlobZiplist, with(zl, func(b []byte) { b[len(b)-1] = 0 }), 2, false, false},
		{"ziplist, tail past the end", BlobZiplist, with(zl, func(b []byte) { b[4] = 200 }), 2, false, false},
		{"ziplist, tail not at the last entry", BlobZiplist, with(zl, func(b []byte) { b[4] = 10 }), 2, true, false},
		{"ziplist, header count", BlobZiplist, with(zl, func(b []byte) { b[8] = 3 }), 2, true, false},
		{"ziplist, unknown count", BlobZiplist, with(zl, func(b []byte) { b[8], b[9] = 0xFF, 0xFF }), 2, true, true},
		{"ziplist, previous length", BlobZiplist, with(zl, func(b []byte) { b[13] = 2 }), 2, true, false},
		{"ziplist, string past the end", BlobZiplist, with(zl, func(b []byte) { b[11] = 60 }), 2, true, false},
		{"ziplist, bad encoding", BlobZiplist, with(zl, func(b []byte) { b[11] = 0xFF }), 2, true, false},
		{"ziplist, odd pairs", BlobZiplist, ziplistOf("a", "1", "b"), 2, true, false},
		{"ziplist, field twice", BlobZiplist, ziplistOf("a", "1", "a", "2"), 2, true, false},
		{"ziplist, integer field twice", BlobZiplist, rdbiotest.ZiplistOfEntries(five, []byte{1, 'x'}, five, []byte{1, 'y'}), 2, true, false},
		{"ziplist, integer and string field", BlobZiplist, rdbiotest.ZiplistOfEntries(five, []byte{1, 'x'}, []byte{1, '5'}, []byte{1, 'y'}), 2, true, false},
		{"ziplist, value twice", BlobZiplist, ziplistOf("a", "1", "b", "1"), 2, true, true},
		{"listpack", BlobListpack, lp, 2, true, true},
		{"listpack, size in header", BlobListpack, with(lp, func(b []byte) { b[0]-- }), 2, false, false},
		{"listpack, no end byte", BlobListpack, with(lp, func(b []byte) { b[len(b)-1] = 1 }), 2, false, false},
		{"listpack, header count", BlobListpack, with(lp, func(b []byte) { b[4] = 5 }), 2, true, false},
		{"listpack, field twice", BlobListpack, listpackOf("f", "1", "f", "2"), 2, true, false},
		{"listpack, odd triples", BlobListpack, listpackOf("f", "1", "x", "g"), 3, true, false},
		{"intset", BlobIntset, intsetOf(-3, 1, 7), 1, true, true},
		{"intset, empty", BlobIntset, intsetOf(), 1, false, false},
		{"intset, encoding", BlobIntset, with(intsetOf(1, 2), func(b []byte) { b[0] = 3 }), 1, false, false},
		{"intset, count", BlobIntset, with(intsetOf(1, 2), func(b []byte) { b[4] = 3 }), 1, false, false},
		{"intset, out of order", BlobIntset, intsetOf(2, 1), 1, true, false},
		{"intset, twice", BlobIntset, intsetOf(1, 1), 1, true, false},
		{"zipmap", BlobZipmap, zm, 2, true, true},
		{"zipmap, unknown count", BlobZipmap, with(zm, func(b []byte) { b[0] = 254 }), 2, true, true},
		{"zipmap, count", BlobZipmap, with(zm, func(b []byte) { b[0] = 3 }), 2, true, false},
		{"zipmap, empty", BlobZipmap, zipmapOf(), 2, true, false},
		{"zipmap, no end byte", BlobZipmap, with(zm, func(b []byte) { b[len(b)-1] = 0 }), 2, false, false},
		{"zipmap, value past the end", BlobZipmap, with(zm, func(b []byte) { b[4] = 100 }), 2, true, false},
		{"zipmap, field twice", BlobZipmap, zipmapOf("f", "1", "f", "2"), 2, true, false},
		{"too short for any header", BlobZiplist, []byte{1, 2}, 1, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, deep := range []bool{false, true} {
				want := tc.shallow
				if deep {
					want = tc.deepOK
				}
				err := CheckBlob(tc.kind, tc.b, deep, tc.per)
				if (err == nil) != want {
					t.Errorf("deep %v: err %v, want ok %v", deep, err, want)
				}
				if err != nil && !errors.Is(err, ErrCorrupt) {
					t.Errorf("deep %v: %v is not ErrCorrupt", deep, err)
				}
			}
		})
	}
}

// TestDecodeValueBlob: a value's string, raw, LZF or integer, gives its
// blob; a truncated or over-long one is an error.
func TestDecodeValueBlob(t *testing.T) {
	blob := ziplistOf("hello", "world", "hello", "again")
	raw := AppendStringHead(nil, EncRaw, 0, uint64(len(blob)), uint64(len(blob)))
	raw = append(raw, blob...)
	comp := lzfCompressForTest(blob)
	lz := append(AppendStringHead(nil, EncLZF, 0, uint64(len(comp)), uint64(len(blob))), comp...)
	for name, v := range map[string][]byte{"raw": raw, "lzf": lz, "raw after 8 bytes": append(make([]byte, 8), raw...)} {
		skip := 0
		if len(v) > len(raw) && v[0] == 0 && name != "lzf" {
			skip = 8
		}
		got, err := DecodeValueBlob(nil, v, skip, 1<<20)
		if err != nil || string(got) != string(blob) {
			t.Errorf("%s: %q, %v", name, got, err)
		}
	}
	if got, err := DecodeValueBlob(nil, []byte{0xC0, 7}, 0, 1<<20); err != nil || string(got) != "7" {
		t.Errorf("integer: %q, %v", got, err)
	}
	if _, err := DecodeValueBlob(nil, raw[:len(raw)-1], 0, 1<<20); !errors.Is(err, ErrCorrupt) {
		t.Errorf("truncated: %v", err)
	}
	if _, err := DecodeValueBlob(nil, lz, 0, 10); !errors.Is(err, ErrTooLarge) {
		t.Errorf("over the limit: %v", err)
	}
	short := append(AppendStringHead(nil, EncLZF, 0, uint64(len(comp)), uint64(len(blob)+5)), comp...)
	if _, err := DecodeValueBlob(nil, short, 0, 1<<20); !errors.Is(err, ErrCorrupt) {
		t.Errorf("LZF data shorter than it claims: %v", err)
	}
}

// FuzzCheckBlob: no blob makes the checks panic, and a blob that passes the
// deep check passes the shallow one.
func FuzzCheckBlob(f *testing.F) {
	f.Add(byte(0), ziplistOf("a", "b", "c", "d"))
	f.Add(byte(1), listpackOf("a", "b"))
	f.Add(byte(2), intsetOf(1, 2, 3))
	f.Add(byte(3), zipmapOf("a", "b"))
	f.Fuzz(func(t *testing.T, k byte, b []byte) {
		kind := Blob(k % 4)
		for per := 1; per <= 3; per++ {
			deep := CheckBlob(kind, b, true, per)
			if shallow := CheckBlob(kind, b, false, per); deep == nil && shallow != nil {
				t.Fatalf("%s per %d: deep passes, shallow fails: %v", kind, per, shallow)
			}
		}
	})
}
