package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConvertCLI: the default output name, an rdbz-compressed input decoded
// on the way (verify calls the output equal to the source), --dry-run
// --json, and the usage errors.
func TestConvertCLI(t *testing.T) {
	dir, in, _ := copyInput(t, "dump.rdb")
	if _, stderr, code := run(t, nil, "convert", "-t", "redis-7.2", in); code != 0 || !strings.Contains(stderr, "REDIS0010 -> REDIS0010") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if _, _, code := run(t, nil, "verify", in, filepath.Join(dir, "dump.redis-7.2.rdb")); code != 0 {
		t.Fatalf("verify of dump.redis-7.2.rdb: exit %d", code)
	}

	comp := filepath.Join(dir, "dump.rdb.rdbz")
	if _, stderr, code := run(t, nil, "compress", "-q", in); code != 0 {
		t.Fatalf("compress: exit %d: %s", code, stderr)
	}
	out := filepath.Join(dir, "back.rdb")
	if _, stderr, code := run(t, nil, "convert", "-q", "-t", "redis-7.0", comp, "-o", out); code != 0 {
		t.Fatalf("convert of the rdbz file: exit %d: %s", code, stderr)
	}
	if stdout, _, code := run(t, nil, "analyze", "--json", "--no-whatif", out); code != 0 || !strings.Contains(stdout, `"server": "redis-7.0",
      "loads": true`) {
		t.Fatalf("analyze of the converted file: exit %d: %.600s", code, stdout)
	}
	if _, _, code := run(t, nil, "verify", in, out); code != 0 {
		t.Fatalf("verify of the converted rdbz file: exit %d", code)
	}

	stdout, _, code := run(t, nil, "convert", "-t", "redis-6.2", "--dry-run", "--json", in)
	var rep struct {
		To    string `json:"to"`
		Items []struct{ Kind, Action string }
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil || rep.To != "REDIS0009" {
		t.Fatalf("dry run: exit %d, %v: %s", code, err, stdout)
	}
	if _, err := os.Stat(filepath.Join(dir, "dump.redis-6.2.rdb")); !os.IsNotExist(err) {
		t.Fatalf("--dry-run wrote a file: %v", err)
	}

	for _, args := range [][]string{
		{"convert", "-t", "redis-5.0", in},
		{"convert", "-t", "redis-7.0", "--drop", "nothing", in},
		{"convert", in},
		{"convert", "-t", "redis-7.0", "--json", "-c", in},
	} {
		if _, stderr, code := run(t, nil, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2: %s", args, code, stderr)
		}
	}
}
