package main

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

// TestAnalyzeSeveral: several inputs give one combined report with a row
// per file (text and JSON) whose totals are the single reports' sums, and
// a --keys export with a file column.
func TestAnalyzeSeveral(t *testing.T) {
	files := rdbiotest.Generated(t, 4<<20)[:2]
	a, b := files[0].Path, files[1].Path
	out, stderr, code := run(t, nil, "analyze", "--json", a, b)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var comb struct {
		Files []struct {
			File   string `json:"file"`
			Keys   int64  `json:"keys"`
			Memory int64  `json:"memory"`
		} `json:"files"`
		Keys   int64 `json:"keys"`
		Memory struct {
			Bytes int64 `json:"bytes"`
		} `json:"memory"`
	}
	if err := json.Unmarshal([]byte(out), &comb); err != nil {
		t.Fatalf("bad JSON (%v): %.300s", err, out)
	}
	var keys, mem int64
	for i, p := range []string{a, b} {
		one, _, _ := runAnalyzeJSON(t, "--no-whatif", p)
		if comb.Files[i].File != p || comb.Files[i].Keys != one.Keys {
			t.Fatalf("row %d: %+v, single report of %s: %d keys", i, comb.Files[i], p, one.Keys)
		}
		keys += one.Keys
		mem += comb.Files[i].Memory
	}
	if comb.Keys != keys || comb.Memory.Bytes != mem {
		t.Fatalf("combined %d keys, %d memory; rows add up to %d, %d", comb.Keys, comb.Memory.Bytes, keys, mem)
	}

	csvPath := filepath.Join(t.TempDir(), "keys.csv")
	out, stderr, code = run(t, nil, "analyze", "--keys", csvPath, a, b)
	if code != 0 || !strings.Contains(out, "files (2, taken as one data set)") {
		t.Fatalf("exit %d (%s):\n%.500s", code, stderr, out)
	}
	data, err := os.ReadFile(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(strings.NewReader(string(data))).ReadAll()
	if err != nil || int64(len(rows)-1) != keys || rows[0][0] != "file" || rows[1][0] != a || rows[len(rows)-1][0] != b {
		t.Fatalf("%d rows for %d keys (%v), first %q", len(rows), keys, err, rows[:min(2, len(rows))])
	}

	// A damaged input among several: exit 1, named once, with its offset.
	cut := filepath.Join(t.TempDir(), "cut.rdb")
	os.WriteFile(cut, []byte("REDIS0011\xfe"), 0o644)
	_, stderr, code = run(t, nil, "analyze", "--no-whatif", a, cut)
	if code != 1 || strings.Count(stderr, cut) != 1 || !strings.Contains(stderr, "offset") {
		t.Fatalf("analyze A DAMAGED: exit %d, stderr %q; want the damaged file named once, with the offset", code, stderr)
	}
}
