package analyze

import (
	"bytes"
	"encoding/csv"
	"io"
	"slices"
	"strconv"
	"testing"
)

func TestGlobMatch(t *testing.T) {
	for _, tc := range []struct {
		pattern, key string
		want         bool
	}{
		{"*", "", true},
		{"*", "a/b:c", true},
		{"user:*", "user:1/2", true},
		{"user:*", "users:1", false},
		{"h?llo", "hello", true},
		{"h?llo", "hllo", false},
		{"h[ae]llo", "hallo", true},
		{"h[ae]llo", "hillo", false},
		{"h[^e]llo", "hallo", true},
		{"h[^e]llo", "hello", false},
		{"h[a-c]llo", "hbllo", true},
		{"h[a-c]llo", "hdllo", false},
		{`h\*llo`, "h*llo", true},
		{`h\*llo`, "hello", false},
		{"*:*:x", "a:b:c:x", true},
		{"*:*:x", "a:x", false},
		{"a*", "b", false},
	} {
		if got := globMatch([]byte(tc.pattern), []byte(tc.key)); got != tc.want {
			t.Errorf("globMatch(%q, %q) = %v", tc.pattern, tc.key, got)
		}
	}
}

// TestKeyCSV: on the generated corpus, the export has a row per key whose
// memory adds up to the analysis's, and a filtered export holds exactly the
// rows of the full one that the filter selects.
func TestKeyCSV(t *testing.T) {
	for _, cf := range corpusFiles(t) {
		if cf.Folder != "generated" || cf.Name != "mixed-all-types.rdb" {
			continue
		}
		full, a := exportKeys(t, cf.Path, KeyFilter{})
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
		f := KeyFilter{Match: "*:large*", Types: []string{"hash", "zset"}, DBs: []uint64{0, 5}, MinBytes: 100}
		got, _ := exportKeys(t, cf.Path, f)
		var want [][]string
		for _, r := range full {
			b, _ := strconv.ParseInt(r[4], 10, 64)
			db, _ := strconv.ParseUint(r[0], 10, 64)
			if f.Selects(&KeyRow{DB: db, Key: []byte(r[1]), Type: r[2], Bytes: b}) {
				want = append(want, r)
			}
		}
		if len(want) == 0 || len(want) == len(full) {
			t.Fatalf("the filter selects %d of %d rows: not a test of it", len(want), len(full))
		}
		if !equalRows(got, want) {
			t.Fatalf("filtered export %q, want %q", got, want)
		}
	}
}

// exportKeys runs Analyze with a KeyCSV and returns its rows (header apart).
func exportKeys(t *testing.T, path string, f KeyFilter) ([][]string, *Analysis) {
	t.Helper()
	var buf bytes.Buffer
	kc, err := NewKeyCSV(&buf, f, false)
	if err != nil {
		t.Fatal(err)
	}
	a, err := Analyze(openReader(t, path), Options{Keys: kc})
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
