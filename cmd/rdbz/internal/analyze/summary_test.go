package analyze

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/rdbz/rdbz/rdbio"
	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

// TestSummaryKeysMatchManifest checks that the key records counted equal
// the manifest's file_keys (a real redis-server loading the file as a
// replica) for every file redis 7.0 loads.
func TestSummaryKeysMatchManifest(t *testing.T) {
	for _, cf := range corpusFiles(t) {
		name := filepath.Base(cf.Path)
		t.Run(name, func(t *testing.T) {
			r := openReader(t, cf.Path)
			s, err := Summarize(r, nil)
			loads := cf.Fields["redis70_loads"]
			if loads == "" {
				loads = "yes" // generated files are all saved by redis 7.0
			}
			if loads != "yes" {
				t.Logf("redis 7.0 refuses it (%s); rdbz: keys=%d err=%v", loads, s.Keys, err)
				return
			}
			if err != nil && !errors.Is(err, rdbio.ErrChecksum) {
				t.Fatalf("summarize: %v", err)
			}
			want, err := strconv.Atoi(cf.Fields["file_keys"])
			if err != nil {
				t.Fatalf("manifest file_keys %q: %v", cf.Fields["file_keys"], err)
			}
			if cf.CorruptByDesign() {
				// redis' corrupt_empty_keys files hold empty collections
				// that a loading server drops; rdbz counts key records.
				if s.Keys < int64(want) {
					t.Fatalf("keys = %d, fewer than manifest file_keys = %d", s.Keys, want)
				}
				t.Logf("corrupt by design: %d key records, redis keeps %d", s.Keys, want)
				return
			}
			if s.Keys != int64(want) {
				t.Fatalf("keys = %d, manifest file_keys = %d", s.Keys, want)
			}
		})
	}
}

// TestSummaryCountsByDBAndType: keys counted in the database and under
// the type of each record, where records go back and forth between
// databases and types (the Summary keeps the entries last used).
func TestSummaryCountsByDBAndType(t *testing.T) {
	c := newCrafted("10")
	want := map[uint64]int64{}
	wantTypes := map[string]int64{}
	for i := range 12 {
		db := byte(i % 3 % 2) // 0 1 0 0 1 0 ...
		c.db(db)
		want[uint64(db)]++
		if i%2 == 0 {
			c.key(rdbio.TypeString, fmt.Sprint("s", i), []byte("v"), 0)
			wantTypes[rdbio.Type(rdbio.TypeString).String()]++
		} else {
			c.key(rdbio.TypeSetIntset, fmt.Sprint("i", i), rdbiotest.IntsetOf(1, 2), 0)
			wantTypes[rdbio.Type(rdbio.TypeSetIntset).String()]++
		}
	}
	r, err := rdbio.NewReader(bytes.NewReader(c.bytes()), rdbio.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := Summarize(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[uint64]int64{}
	for _, d := range s.DBs {
		if _, dup := got[d.DB]; dup {
			t.Errorf("db %d listed twice", d.DB)
		}
		got[d.DB] = d.Keys
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("keys by db %v, want %v", got, want)
	}
	gotTypes := map[string]int64{}
	for name, ts := range s.Types {
		gotTypes[name] = ts.Keys
	}
	if fmt.Sprint(gotTypes) != fmt.Sprint(wantTypes) {
		t.Errorf("keys by type %v, want %v", gotTypes, wantTypes)
	}
}
