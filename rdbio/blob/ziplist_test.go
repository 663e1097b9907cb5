package blob_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"slices"
	"testing"

	"github.com/rdbz/rdbz/rdbio/blob"
	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

// TestZiplistReadAsRedis: a ziplist that redis reads but does not write
// (header count 65535, string encoding bytes 0x81 and 0xBF, a 14-bit length
// for a short string) is counted, walked, checked and re-encoded alike, as
// the servers read it (redis src/ziplist.c masks a string's encoding byte
// with 0xC0); rdbio/convert's TestOddZiplistMatchesServers has redis 6.2
// and 7.0 load it.
func TestZiplistReadAsRedis(t *testing.T) {
	zl := rdbiotest.OddZiplist()
	want := rdbiotest.OddZiplistEntries
	if n, ok := blob.Count(blob.Ziplist, zl, true); !ok || n != int64(len(want)) {
		t.Errorf("Count = %d, %v; want %d", n, ok, len(want))
	}
	if _, ok := blob.Count(blob.Ziplist, zl[:blob.HeadSize+1], false); ok {
		t.Error("Count of a prefix with header count 65535 told a count")
	}
	if got := blobTexts(t, blob.Ziplist, zl); !slices.Equal(got, want) {
		t.Errorf("Entries = %q, want %q", got, want)
	}
	for _, deep := range []bool{false, true} {
		if err := blob.Check(blob.Ziplist, zl, deep, 1); err != nil {
			t.Errorf("Check(deep %v): %v", deep, err)
		}
	}
	// Re-encoded: the entries the servers read, in the encodings they write.
	canon := blob.NewZiplistWriter(1 << 10)
	lp := blob.NewListpackWriter(1 << 10)
	for _, w := range []blob.EntryWriter{canon, lp} {
		if err := blob.Recode(w, blob.Ziplist, zl); err != nil || w.Len() != len(want) {
			t.Fatalf("Recode into %T: %v, %d entries", w, err, w.Len())
		}
	}
	if got := blobTexts(t, blob.Listpack, lp.Bytes()); !slices.Equal(got, want) {
		t.Errorf("as a listpack: %q, want %q", got, want)
	}
	for _, s := range want {
		if err := canon.AppendString([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	c := canon.Bytes()
	if got := blobTexts(t, blob.Ziplist, c); !slices.Equal(got, append(slices.Clone(want), want...)) {
		t.Errorf("re-encoded ziplist: %q", got)
	}
	if canon := rdbiotest.ZiplistOf(append(slices.Clone(want), want...)...); !bytes.Equal(c, canon) {
		t.Errorf("re-encoded ziplist\n% x, want the canonical one\n% x", c, canon)
	}
}

// TestZiplistDecoderRefuses: what ziplist.c's zipEntrySafe refuses, the one
// decoder refuses, for every use.
func TestZiplistDecoderRefuses(t *testing.T) {
	ok := rdbiotest.ZiplistOfEntries([]byte{0x81, 0, 0, 0, 3, 'a', 'b', 'c'})
	cases := map[string][]byte{
		"encoding byte 0xC1":                           rdbiotest.ZiplistOfEntries([]byte{0xC1, 0, 0}),
		"32-bit length past the end":                   rdbiotest.ZiplistOfEntries([]byte{0x81, 0, 0, 1, 0, 'a'}),
		"14-bit length past the end":                   rdbiotest.ZiplistOfEntries([]byte{0x7F, 0xFF, 'a'}),
		"previous-entry length before the first entry": with(ok, func(b []byte) { b[10] = 1 }),
		"cut in the header":                            ok[:blob.HeadSize+3],
	}
	for name, zl := range cases {
		binary.LittleEndian.PutUint16(zl[8:], 0xFFFF)
		if _, ok := blob.Count(blob.Ziplist, zl, true); ok {
			t.Errorf("%s: counted", name)
		}
		if err := blob.Entries(blob.Ziplist, zl, func(blob.Entry) error { return nil }); !errors.Is(err, blob.ErrCorrupt) {
			t.Errorf("%s: Entries: %v", name, err)
		}
		if err := blob.Check(blob.Ziplist, zl, true, 1); !errors.Is(err, blob.ErrCorrupt) {
			t.Errorf("%s: deep Check passed", name)
		}
		if err := blob.Recode(blob.NewListpackWriter(1<<10), blob.Ziplist, zl); !errors.Is(err, blob.ErrCorrupt) {
			t.Errorf("%s: Recode: %v", name, err)
		}
	}
}
