package convert

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

// sourceOrder is the order in which a server that loads a file is chosen
// to judge it: redis 6.2 last, as rdb-oracle --keys needs PEXPIRETIME (7.0).
var sourceOrder = []string{"redis-7.0", "redis-7.2", "redis-7.4", "valkey-8", "redis-6.2"}

// TestConvertMatrix (RDBZ_LONG=1): for every corpus file that a server S
// here loads and every target T here, convert refuses naming an offset, or
// writes a file T loads; with every kind allowed to be dropped it writes
// one. When nothing was dropped T's digest is S's; otherwise T holds as
// many fewer keys as the report drops, and (where rdb-oracle --keys runs:
// not on redis 6.2) each of its keys has the digest S gives it.
func TestConvertMatrix(t *testing.T) {
	if !rdbiotest.Long() {
		t.Skip("the whole files × targets matrix runs with RDBZ_LONG=1 (a server start per file and target)")
	}
	loads := loaders(t)
	for _, cf := range small(t) {
		i := slices.IndexFunc(sourceOrder, func(s string) bool { return slices.Contains(loads[cf.Name], s) })
		if i < 0 {
			continue
		}
		t.Run(cf.Name, func(t *testing.T) {
			src := judged{server: sourceOrder[i], path: cf.Path}
			src.load(t)
			for _, j := range judges {
				t.Run(j.target, func(t *testing.T) { checkTarget(t, src, j.target) })
			}
		})
	}
}

// judged is a file as a server loads it.
type judged struct {
	server, path string
	digest, keys string   // rdb-oracle's summary lines
	keyLines     []string // rdb-oracle --keys; nil on redis 6.2
}

func (j *judged) load(t *testing.T) {
	t.Helper()
	lines := oracle(t, j.server, j.path)
	if len(lines) < 2 {
		t.Fatalf("rdb-oracle printed %q", lines)
	}
	j.digest, j.keys = lines[0], lines[1]
	if j.server != "redis-6.2" {
		j.keyLines = oracle(t, j.server, j.path, "--keys")
	}
}

// checkTarget converts src for target and compares what target loads.
func checkTarget(t *testing.T, src judged, target string) {
	out, rep, err := convertTo(t, src.path, target, nil)
	status := "converted"
	if err != nil {
		checkRefusal(t, err)
		if out, rep, err = convertTo(t, src.path, target, dropAll()); err != nil {
			t.Fatalf("convert with every kind dropped: %v", err)
		}
		status = "refused; with --drop"
	}
	got := judged{server: target, path: out}
	got.load(t)
	dropped := droppedKeys(rep)
	switch {
	case dropped == 0 && got.digest != src.digest:
		t.Fatalf("%s: %s; %s: %s", src.server, src.digest, target, got.digest)
	case dropped > 0 && src.keyLines != nil && got.keyLines != nil:
		for _, line := range got.keyLines {
			if !slices.Contains(src.keyLines, line) {
				t.Fatalf("%s loads key line %q, not in the source's", target, line)
			}
		}
		if len(src.keyLines)-len(got.keyLines) != dropped {
			t.Fatalf("%s loads %d keys of %d; the report drops %d", target, len(got.keyLines), len(src.keyLines), dropped)
		}
	}
	t.Logf("MATRIX\t%s\t%s\t%s\t%d", filepath.Base(src.path), target, status, dropped)
}

// oracle is what rdb-oracle prints for path on server, a line a slice.
func oracle(t *testing.T, server, path string, args ...string) []string {
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
	out, err := rdbiotest.Oracle(t, path, args...)
	if err != nil {
		t.Fatalf("%s refuses %s: %v", server, filepath.Base(path), err)
	}
	return strings.FieldsFunc(out, func(r rune) bool { return r == '\n' })
}
