package main

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

// TestOddZiplistCLI: a quicklist whose ziplist node redis reads but does
// not write (rdbiotest.OddZiplist; rdbio/convert's
// TestOddZiplistMatchesServers has redis 6.2 and 7.0 load it) gets its
// element count in analyze --keys, and verify compares it by value, with
// its conversion and with the same list written canonically.
func TestOddZiplistCLI(t *testing.T) {
	dir := t.TempDir()
	odd := filepath.Join(dir, "odd.rdb")
	canon := filepath.Join(dir, "canonical.rdb")
	for p, b := range map[string][]byte{
		odd:   rdbiotest.QuicklistFile("list", rdbiotest.OddZiplist()),
		canon: rdbiotest.QuicklistFile("list", rdbiotest.ZiplistOf(rdbiotest.OddZiplistEntries...)),
	} {
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	out, stderr, code := run(t, nil, "analyze", "--sample-bytes", "0", "--keys", "-", odd)
	if code != 0 {
		t.Fatalf("analyze: exit %d: %s", code, stderr)
	}
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil || len(rows) != 2 || rows[0][6] != "elements" {
		t.Fatalf("analyze --keys: %q (%v)", rows, err)
	}
	if want := strconv.Itoa(len(rdbiotest.OddZiplistEntries)); rows[1][6] != want {
		t.Errorf("analyze --keys: elements %q, want %s: %q", rows[1][6], want, rows[1])
	}

	conv := filepath.Join(dir, "odd.redis-7.0.rdb")
	if _, stderr, code := run(t, nil, "convert", "-q", "-t", "redis-7.0", odd, "-o", conv); code != 0 {
		t.Fatalf("convert: exit %d: %s", code, stderr)
	}
	for _, other := range []string{conv, canon} {
		out, stderr, code := run(t, nil, "verify", odd, other)
		if code != 0 || !strings.Contains(out, "same: 1 keys (1 semantic, 0 byte-wise)") {
			t.Errorf("verify %s %s: exit %d: %s%s", filepath.Base(odd), filepath.Base(other), code, out, stderr)
		}
	}
}
