package convert

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

// TestConvertMatrix (RDBZ_LONG=1): for every corpus file that a server S
// here loads and every target T here, convert refuses naming an offset, or
// writes a file T loads; with every kind allowed to be dropped it writes
// one, whose per-key digests (rdb-oracle --keys) are S's for every key, but
// for as many missing keys as the report says it dropped.
func TestConvertMatrix(t *testing.T) {
	if !rdbiotest.Long() {
		t.Skip("the whole files × targets matrix runs with RDBZ_LONG=1 (a server start per file and target)")
	}
	loads := loaders(t)
	for _, cf := range small(t) {
		from := loads[cf.Name]
		if len(from) == 0 {
			continue
		}
		t.Run(cf.Name, func(t *testing.T) {
			want := keyLines(t, from[0], cf.Path)
			for _, j := range judges {
				t.Run(j.target, func(t *testing.T) { checkTarget(t, cf.Path, j.target, want) })
			}
		})
	}
}

// checkTarget converts in for target and compares the keys T loads with want.
func checkTarget(t *testing.T, in, target string, want []string) {
	out, rep, err := convertTo(t, in, target, nil)
	status := "converted"
	if err != nil {
		checkRefusal(t, err)
		if out, rep, err = convertTo(t, in, target, dropAll()); err != nil {
			t.Fatalf("convert with every kind dropped: %v", err)
		}
		status = "dropped"
	}
	got := keyLines(t, target, out)
	for _, line := range got {
		if !slices.Contains(want, line) {
			t.Fatalf("%s loads key line %q, not in the source's", target, line)
		}
	}
	if len(want)-len(got) != droppedKeys(rep) {
		t.Fatalf("%s loads %d keys of %d; the report drops %d", target, len(got), len(want), droppedKeys(rep))
	}
	t.Logf("MATRIX\t%s\t%s\t%s\t%d", filepath.Base(in), target, status, droppedKeys(rep))
}

// keyLines are rdb-oracle --keys lines of path as server loads it.
func keyLines(t *testing.T, server, path string) []string {
	t.Helper()
	bin := ""
	for _, j := range judges {
		if j.target == server {
			bin = j.bin
		}
	}
	if bin != "" {
		bin = filepath.Join(rdbiotest.Shared(), "tools", "servers", bin)
		if _, err := os.Stat(bin); err != nil {
			t.Skipf("%s not found: %v", server, err)
		}
		t.Setenv("REDIS_SERVER", bin)
	}
	out, err := rdbiotest.Oracle(t, path, "--keys")
	if err != nil {
		t.Fatalf("%s refuses %s: %v", server, filepath.Base(path), err)
	}
	return strings.FieldsFunc(out, func(r rune) bool { return r == '\n' })
}
