package analyze

import (
	"fmt"
	"testing"

	"github.com/rdbz/rdbz/rdbio"
)

// TestKeySetFindsDuplicates: keys met twice are found whether both are in
// the table (named) or one was spilled to disk (by offset), in any db, and
// the same key in two dbs is not a duplicate.
func TestKeySetFindsDuplicates(t *testing.T) {
	for _, tc := range []struct {
		name      string
		max       int // table slots
		keys      int
		dupAt     int // the key index written again at the end, -1 for none
		wantNamed bool
	}{
		{"none, in memory", maxKeySlots, 5000, -1, false},
		{"none, spilled", 1024, 5000, -1, false},
		{"in memory", maxKeySlots, 5000, 17, true},
		{"across spilled runs", 1024, 5000, 17, false},
		{"within the last run", 1024, 5000, 4995, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newKeySet(tc.max)
			off := int64(0)
			for i := 0; i < tc.keys; i++ {
				s.add(0, fmt.Appendf(nil, "key:%d", i), off)
				s.add(1, fmt.Appendf(nil, "key:%d", i), off+1) // other db: not a duplicate
				off += 10
			}
			if tc.dupAt >= 0 {
				s.add(0, fmt.Appendf(nil, "key:%d", tc.dupAt), off)
			}
			if err := s.Finish(); err != nil {
				t.Fatal(err)
			}
			if tc.dupAt < 0 {
				if s.count != 0 {
					t.Fatalf("%d duplicates found, first %+v", s.count, s.first)
				}
				return
			}
			if s.count == 0 {
				t.Fatal("duplicate not found")
			}
			d := s.first
			if d.off != off || d.firstOff != int64(tc.dupAt*10) || d.db != 0 {
				t.Fatalf("found %+v, want offset %d first at %d", d, off, tc.dupAt*10)
			}
			if named := d.key != nil; named != tc.wantNamed || named && string(d.key) != fmt.Sprintf("key:%d", tc.dupAt) {
				t.Fatalf("key %q, named %v, want %v", d.key, named, tc.wantNamed)
			}
		})
	}
}

// TestEmptyKeysSkipped: an empty collection is not added (servers skip
// it), an empty stream is (servers keep it), nor a key whose TTL is past.
func TestEmptyKeysSkipped(t *testing.T) {
	for _, tc := range []struct {
		family string
		expire int64
		dup    bool
	}{
		{"hash", -1, false}, {"list", -1, false}, {"stream", -1, true}, {"string", -1, true}, {"stream", 5, false},
	} {
		ig := newIntegrity(10, 1<<20)
		rec := &rdbio.Record{Key: []byte("k"), Expire: tc.expire, Offset: 9}
		ig.key(rec, tc.family, rdbio.ValueInfo{Known: true})
		ig.key(&rdbio.Record{Key: []byte("k"), Expire: -1, Offset: 20}, "string", rdbio.ValueInfo{Known: true, Elements: 1})
		ig.finish()
		if got := ig.keys.count > 0; got != tc.dup {
			t.Errorf("%s (expire %d) then a string: duplicate %v, want %v", tc.family, tc.expire, got, tc.dup)
		}
	}
}
