package analyze

import (
	"bytes"
	"encoding/csv"
	"io"
	"os"
	"slices"
	"strconv"
	"testing"

	"github.com/rdbz/rdbz/cmd/rdbz/internal/filter"
	"github.com/rdbz/rdbz/rdbio"
)

// TestKeyCSV: on the generated corpus, the export has a row per key whose
// memory adds up to the analysis's, and an export of a filtered read (the
// Reader's Keep: name, db, type) with a row filter (bytes) holds exactly
// the rows of the full one that both select.
func TestKeyCSV(t *testing.T) {
	for _, cf := range corpusFiles(t) {
		if cf.Folder != "generated" || cf.Name != "mixed-all-types.rdb" {
			continue
		}
		full, a := exportKeys(t, cf.Path, KeyFilter{}, nil)
		if int64(len(full)) != a.Keys {
			t.Fatalf("%d rows, %d keys", len(full), a.Keys)
		}
		var mem int64
		for _, r := range full {
			n, err := strconv.ParseInt(r[5], 10, 64)
			if err != nil || n <= 0 {
				t.Fatalf("row %q: memory %q", r, r[5])
			}
			mem += n
		}
		if mem != a.Memory.Bytes {
			t.Fatalf("rows add up to %d, analysis says %d", mem, a.Memory.Bytes)
		}
		keep, err := filter.New(filter.Options{Match: []string{"*:large*"}, Types: []string{"hash", "zset"}, DBs: []uint64{0, 5}})
		if err != nil {
			t.Fatal(err)
		}
		f := KeyFilter{MinBytes: 100}
		got, fa := exportKeys(t, cf.Path, f, keep.Keep)
		glob := filter.MustCompile("*:large*")
		var want [][]string
		for _, r := range full {
			b, _ := strconv.ParseInt(r[4], 10, 64)
			if glob.Match([]byte(r[1])) && (r[2] == "hash" || r[2] == "zset") && (r[0] == "0" || r[0] == "5") && b >= 100 {
				want = append(want, r)
			}
		}
		t.Logf("%d of %d rows, %d keys left out", len(got), len(full), fa.LeftOut)
		if fa.LeftOut == 0 || fa.Keys+fa.LeftOut != a.Keys {
			t.Errorf("filtered analysis: %d keys, %d left out, of %d", fa.Keys, fa.LeftOut, a.Keys)
		}
		if len(want) == 0 || len(want) == len(full) {
			t.Fatalf("the filter selects %d of %d rows: not a test of it", len(want), len(full))
		}
		if !equalRows(got, want) {
			t.Fatalf("filtered export %q, want %q", got, want)
		}
	}
}

// exportKeys runs Analyze, its reads filtered by keep (nil: none), with a
// KeyCSV and returns its rows (header apart).
func exportKeys(t *testing.T, path string, f KeyFilter, keep func(*rdbio.Record) bool) ([][]string, *Analysis) {
	t.Helper()
	var buf bytes.Buffer
	kc, err := NewKeyCSV(&buf, f, false)
	if err != nil {
		t.Fatal(err)
	}
	in, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	r, err := rdbio.NewReader(in, rdbio.Options{})
	if err != nil {
		t.Fatal(err)
	}
	a, err := Analyze(r, Options{Keys: kc, Keep: keep})
	if err != nil {
		t.Fatal(err)
	}
	if err := kc.Flush(); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil && err != io.EOF {
		t.Fatal(err)
	}
	if len(rows) == 0 || !equalRows(rows[:1], [][]string{KeyCSVHeader}) {
		t.Fatalf("header %q", rows)
	}
	return rows[1:], a
}

func equalRows(a, b [][]string) bool {
	return slices.EqualFunc(a, b, func(x, y []string) bool { return slices.Equal(x, y) })
}
