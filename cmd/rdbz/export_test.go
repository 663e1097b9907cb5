package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

// TestExportFromRdbz: the export of a file's .rdbz (format 2 and format
// 1) is the export of the file, byte for byte, in each format.
func TestExportFromRdbz(t *testing.T) {
	for _, name := range []string{"generated/mixed-all-types.rdb", "public/redis-replicator__dump-stream.rdb", "public/redis__encodings.rdb"} {
		path := filepath.Join(rdbiotest.Shared(), "corpus", name)
		if _, err := os.Stat(path); err != nil {
			t.Skipf("corpus: %v", err)
		}
		dir := t.TempDir()
		forms := [][]string{{"--format", "resp"}, {"--format", "resp", "--restore"}, {"--format", "jsonl"}}
		want := make([]string, len(forms)) // the RDB's exports, made once
		for i, args := range forms {
			want[i], _ = mustRun(t, append([]string{"export", "-q", path}, args...)...)
		}
		for _, format := range []string{"2", "1"} {
			z := filepath.Join(dir, filepath.Base(path)+".f"+format+".rdbz")
			mustRun(t, "compress", "-q", "--format", format, path, "-o", z)
			for i, args := range forms {
				got, _ := mustRun(t, append([]string{"export", "-q", z}, args...)...)
				if got != want[i] {
					t.Fatalf("%s (format %s) %v: export differs from the RDB's (%d and %d bytes)", name, format, args, len(got), len(want[i]))
				}
			}
		}
	}
}

// TestGetCLI: get through a format-2 file's index prints what get prints
// reading the RDB, in each format; a missing key is named on stderr with
// exit 1, after the keys found; usage errors exit 2.
func TestGetCLI(t *testing.T) {
	path := filepath.Join(rdbiotest.Shared(), "corpus", "generated", "mixed-all-types.rdb")
	if _, err := os.Stat(path); err != nil {
		t.Skipf("corpus: %v", err)
	}
	z := filepath.Join(t.TempDir(), "m.rdbz")
	mustRun(t, "compress", "-q", path, "-o", z)
	for _, key := range []string{"hash:small:5", "str:int:1", "stream:orders"} {
		for _, args := range [][]string{{}, {"--format", "json"}, {"--format", "text"}, {"--restore"}, {"--format", "resp", "--plain"}, {"--db", "1"}} {
			if key == "stream:orders" && len(args) > 0 && args[0] == "--db" {
				continue // only in db 0
			}
			want, _ := mustRun(t, append([]string{"get", path, key}, args...)...)
			got, _ := mustRun(t, append([]string{"get", z, key}, args...)...)
			if got != want || got == "" {
				t.Fatalf("get %s %v: through the index\n%.200s\nreading the RDB\n%.200s", key, args, got, want)
			}
		}
	}
	for _, f := range []string{path, z} {
		out, stderr, code := run(t, nil, "get", "--format", "text", f, "hash:small:5", "no:such:key")
		if code != 1 || !strings.Contains(stderr, `key "no:such:key" not found in db 0`) || !strings.Contains(out, `key "hash:small:5"`) {
			t.Fatalf("get of a missing key: exit %d, stderr %q, stdout %.100q", code, stderr, out)
		}
	}
	for _, args := range [][]string{{"get", path}, {"get", path, "k", "--format", "csv"}, {"get", path, "k", "--plain", "--restore"},
		{"export", path, "--format", "text"}, {"export", path, "--escape", "hex"}, {"export", path, "--drop", "hash2"}} {
		if _, stderr, code := run(t, nil, args...); code != 2 {
			t.Fatalf("%v: exit %d (%s), want 2", args, code, stderr)
		}
	}
}
