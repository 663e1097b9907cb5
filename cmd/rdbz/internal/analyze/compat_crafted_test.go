package analyze

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/rdbz/rdbz/rdbio"
	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

// craftedFile builds a small RDB file (REDIS00 + version, no checksum)
// from records.
type craftedFile struct {
	b []byte
}

func newCrafted(version string) *craftedFile {
	return &craftedFile{b: append([]byte("REDIS00"+version), rdbio.OpSelectDB, 0)}
}

func (c *craftedFile) str(s []byte) { c.b = append(rdbio.AppendLen(c.b, uint64(len(s))), s...) }

// key adds a key of type t whose value is one string (a blob, or a
// string value); expireMs 0 means none.
func (c *craftedFile) key(t byte, key string, value []byte, expireMs int64) *craftedFile {
	if expireMs != 0 {
		c.b = binary.LittleEndian.AppendUint64(append(c.b, rdbio.OpExpireMs), uint64(expireMs))
	}
	c.b = append(c.b, t)
	c.str([]byte(key))
	c.str(value)
	return c
}

func (c *craftedFile) db(n byte) *craftedFile {
	c.b = append(c.b, rdbio.OpSelectDB, n)
	return c
}

func (c *craftedFile) bytes() []byte { return append(c.b, rdbio.OpEOF, 0, 0, 0, 0, 0, 0, 0, 0) }

// craftedFiles are files that tell the servers' checks apart where the
// corpus does not: a check only some versions make, one no version makes
// by default, duplicate keys that are not duplicates for the server. Their
// verdicts are recorded beside the corpus's, as "crafted/NAME".
func craftedFiles() map[string][]byte {
	zl, lp := rdbiotest.ZiplistOf, rdbiotest.ListpackOf
	badCount := zl("f", "1", "g", "2")
	badCount[8] = 3
	lpBadSize := lp("f", "1")
	lpBadSize[0]++
	return map[string][]byte{
		// deep ziplist checks: 7.0 and later, not 6.2
		"hash-ziplist-dup-field.rdb": newCrafted("09").key(rdbio.TypeHashZiplist, "h", zl("f", "1", "f", "2"), 0).bytes(),
		"hash-ziplist-bad-count.rdb": newCrafted("09").key(rdbio.TypeHashZiplist, "h", badCount, 0).bytes(),
		"zset-ziplist-dup.rdb":       newCrafted("09").key(rdbio.TypeZsetZiplist, "z", zl("a", "1", "a", "2"), 0).bytes(),
		// zipmaps: deep everywhere
		"zipmap-dup-field.rdb": newCrafted("09").key(rdbio.TypeHashZipmap, "m", rdbiotest.ZipmapOf("f", "1", "f", "2"), 0).bytes(),
		// intsets and listpacks: shallow by default
		"intset-out-of-order.rdb": newCrafted("09").key(rdbio.TypeSetIntset, "s", rdbiotest.IntsetOf(5, 1), 0).bytes(),
		"intset-bad-size.rdb":     newCrafted("09").key(rdbio.TypeSetIntset, "s", rdbiotest.IntsetOf(1, 5)[:10], 0).bytes(),
		"hash-listpack-dup.rdb":   newCrafted("10").key(rdbio.TypeHashListpack, "h", lp("f", "1", "f", "2"), 0).bytes(),
		"hash-listpack-size.rdb":  newCrafted("10").key(rdbio.TypeHashListpack, "h", lpBadSize, 0).bytes(),
		// duplicate keys
		"dup-key.rdb":               newCrafted("09").key(0, "k", []byte("a"), 0).key(0, "k", []byte("b"), 0).bytes(),
		"dup-key-other-db.rdb":      newCrafted("09").key(0, "k", []byte("a"), 0).db(1).key(0, "k", []byte("b"), 0).bytes(),
		"dup-key-expired-first.rdb": newCrafted("09").key(0, "k", []byte("a"), 1000).key(0, "k", []byte("b"), 0).bytes(),
		"dup-key-empty-first.rdb":   newCrafted("09").key(rdbio.TypeHashZiplist, "k", zl(), 0).key(0, "k", []byte("b"), 0).bytes(),
	}
}

// writeCrafted writes the crafted files to a temporary folder and lists
// them as corpus files named "crafted/NAME".
func writeCrafted(t *testing.T) []rdbiotest.File {
	dir := t.TempDir()
	var out []rdbiotest.File
	for name, b := range craftedFiles() {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		out = append(out, rdbiotest.File{Path: p, Name: "crafted/" + name, Folder: "crafted"})
	}
	return out
}

// TestWriteCrafted writes the crafted files to RDBZ_CRAFTED_DIR, to load
// them by hand.
func TestWriteCrafted(t *testing.T) {
	dir := os.Getenv("RDBZ_CRAFTED_DIR")
	if dir == "" {
		t.Skip("RDBZ_CRAFTED_DIR=DIR writes the crafted files there")
	}
	for name, b := range craftedFiles() {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestDuplicateKeyAcrossSpills: a key written again after the key table
// was spilled to disk is still found, by offset.
func TestDuplicateKeyAcrossSpills(t *testing.T) {
	c := newCrafted("09")
	n := maxKeySlots // more keys than one table holds
	firstOff := int64(len(c.b))
	for i := 0; i < n; i++ {
		c.key(0, fmt.Sprintf("k%d", i), []byte("v"), 0)
	}
	dupOff := int64(len(c.b))
	c.key(0, "k0", []byte("again"), 0)
	p := filepath.Join(t.TempDir(), "many.rdb")
	if err := os.WriteFile(p, c.bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	a := analyzePath(t, p)
	for _, v := range a.Compat {
		if v.Server != "redis-7.0" {
			continue
		}
		want := fmt.Sprintf("duplicate key at offset %d (first written at offset %d)", dupOff, firstOff)
		if v.Loads || len(v.Causes) != 1 || v.Causes[0].Cause != want || v.Causes[0].Offset != dupOff {
			t.Fatalf("verdict %+v, want the cause %q", v, want)
		}
	}
}
