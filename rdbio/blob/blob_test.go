package blob_test

import (
	"encoding/binary"
	"testing"

	"github.com/rdbz/rdbz/rdbio/blob"
)

// TestBlobCounts covers the count helpers on hand-made blobs, including
// the "unknown count" headers that force a walk.
func TestBlobCounts(t *testing.T) {
	lp := func(count uint16, entries ...[]byte) []byte {
		b := []byte{0, 0, 0, 0, 0, 0}
		for _, e := range entries {
			b = append(b, e...)
			b = append(b, byte(len(e)))
		}
		b = append(b, 0xFF)
		binary.LittleEndian.PutUint32(b, uint32(len(b)))
		binary.LittleEndian.PutUint16(b[4:], count)
		return b
	}
	zl := func(count uint16, entries ...[]byte) []byte {
		b := make([]byte, 10)
		for _, e := range entries {
			b = append(append(b, 0), e...)
		}
		b = append(b, 0xFF)
		binary.LittleEndian.PutUint16(b[8:], count)
		return b
	}
	str6 := func(s string) []byte { return append([]byte{0x80 | byte(len(s))}, s...) }
	zstr := func(s string) []byte { return append([]byte{byte(len(s))}, s...) }
	tests := []struct {
		name  string
		kind  blob.Kind
		blob  []byte
		whole bool
		want  int64
		ok    bool
	}{
		{"listpack header", blob.Listpack, lp(3, []byte{5}, []byte{6}, str6("abc")), true, 3, true},
		{"listpack 65535 walked", blob.Listpack, lp(0xFFFF, []byte{5}, []byte{0xF1, 1, 2}, str6("abc"), []byte{0xC1, 2}), true, 4, true},
		{"listpack 65535 prefix only", blob.Listpack, lp(0xFFFF, []byte{5}), false, 0, false},
		{"listpack bad encoding", blob.Listpack, lp(0xFFFF, []byte{0xF5}), true, 0, false},
		{"ziplist header", blob.Ziplist, zl(2, zstr("a"), []byte{0xF3}), true, 2, true},
		{"ziplist 65535 walked", blob.Ziplist, zl(0xFFFF, zstr("a"), []byte{0xF3}, []byte{0xC0, 1, 0}, []byte{0xFE, 9}), true, 4, true},
		{"intset", blob.Intset, []byte{2, 0, 0, 0, 3, 0, 0, 0, 1, 0, 2, 0, 3, 0}, true, 3, true},
		{"zipmap header", blob.Zipmap, []byte{1, 1, 'k', 1, 0, 'v', 0xFF}, true, 1, true},
		{"zipmap 254 walked", blob.Zipmap, []byte{254, 1, 'k', 1, 0, 'v', 1, 'x', 2, 1, 'a', 'b', 'z', 0xFF}, true, 2, true},
		{"too short", blob.Listpack, []byte{7, 0}, true, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := blob.Count(tc.kind, tc.blob, tc.whole)
			if got != tc.want || ok != tc.ok {
				t.Fatalf("count = %d, %v; want %d, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}
