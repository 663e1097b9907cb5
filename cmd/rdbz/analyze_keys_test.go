package main

import (
	"encoding/base64"
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rdbz/rdbz/rdbio"
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

// TestAnalyzeKeysEscape: --escape base64 and utf8 write each key so that
// its bytes come back, raw (the default) as they are; another name is a
// usage error.
func TestAnalyzeKeysEscape(t *testing.T) {
	c := newCraft(t, "REDIS0011").raw(rdbio.OpSelectDB, 0)
	for _, k := range []string{"plain", "h\xe9llo", "日本", `back\slash`, "\xff\xfe", "a,b\n\"c"} {
		c.key(rdbio.TypeString, k).raw(rdbio.AppendLen(nil, 1)...).raw('v')
	}
	path := filepath.Join(t.TempDir(), "keys.rdb")
	if err := os.WriteFile(path, c.done(), 0o600); err != nil {
		t.Fatal(err)
	}
	keys := func(esc string) []string {
		out, stderr, code := run(t, nil, "analyze", "--sample-bytes", "0", "--keys", "-", "--escape", esc, path)
		if code != 0 {
			t.Fatalf("--escape %s: exit %d: %s", esc, code, stderr)
		}
		rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		var ks []string
		for _, r := range rows[1:] {
			ks = append(ks, r[1])
		}
		return ks
	}
	raw, b64, u8 := keys("raw"), keys("base64"), keys("utf8")
	if len(raw) != 6 || raw[1] != "h\xe9llo" {
		t.Fatalf("raw keys %q", raw)
	}
	for i, k := range raw {
		if b, err := base64.StdEncoding.DecodeString(b64[i]); err != nil || string(b) != k {
			t.Errorf("base64 %q is not %q", b64[i], k)
		}
		if !utf8.ValidString(u8[i]) || utf8.ValidString(k) && !strings.Contains(k, `\`) && u8[i] != k {
			t.Errorf("utf8 %q for %q", u8[i], k)
		}
	}
	if _, _, code := run(t, nil, "analyze", "--keys", "-", "--escape", "hex", path); code != 2 {
		t.Fatalf("--escape hex: exit %d", code)
	}
}
