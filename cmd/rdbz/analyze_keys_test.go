package main

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAnalyzeKeys: --keys - writes the CSV alone to stdout, filtered;
// --keys FILE writes it beside the report; --min-bytes, the CSV's own
// filter, without --keys is a usage error.
func TestAnalyzeKeys(t *testing.T) {
	out, stderr, code := run(t, nil, "analyze", "--sample-bytes", "0", "--keys", "-", "--type", "string", small)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatalf("stdout is not CSV (%v): %.300s", err, out)
	}
	if len(rows) < 2 || strings.Join(rows[0], ",") != "db,key,type,encoding,bytes,memory,elements,expiry" {
		t.Fatalf("rows %q", rows)
	}
	for _, r := range rows[1:] {
		if r[2] != "string" {
			t.Fatalf("--type string kept %q", r)
		}
	}

	csvPath := filepath.Join(t.TempDir(), "keys.csv")
	out, stderr, code = run(t, nil, "analyze", "--sample-bytes", "0", "--keys", csvPath, small)
	if code != 0 || !strings.Contains(out, "biggest keys by memory") {
		t.Fatalf("exit %d, report %.300s, %s", code, out, stderr)
	}
	b, err := os.ReadFile(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	all, err := csv.NewReader(strings.NewReader(string(b))).ReadAll()
	if err != nil || len(all) <= len(rows) {
		t.Fatalf("%d rows unfiltered, %d of strings (%v)", len(all), len(rows), err)
	}

	if _, stderr, code = run(t, nil, "analyze", "--min-bytes", "10", small); code != 2 || !strings.Contains(stderr, "--keys") {
		t.Fatalf("--min-bytes without --keys: exit %d, %s", code, stderr)
	}
}
