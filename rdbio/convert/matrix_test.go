package convert

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rdbz/rdbz/rdbio"
	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

// sourceOrder is the order in which a server that loads a file is chosen
// to judge it: redis 6.2 last, as rdb-oracle --keys needs PEXPIRETIME (7.0).
var sourceOrder = []string{"redis-7.0", "redis-7.2", "redis-7.4", "valkey-8", "redis-6.2"}

// TestConvertMatrix (RDBZ_LONG=1): for every corpus file that a server S
// here loads and every target T here, convert refuses naming an offset, or
// writes a file T loads; with every kind allowed to be dropped it writes
// one. S loads the output too and, when nothing was dropped, gives it the
// digest it gives the input (as does T when T loads the input: DEBUG
// DIGEST of a sorted set differs between redis 7.0 and 7.2, so digests are
// compared within one server); otherwise the output holds as many fewer
// keys as the report drops and (where rdb-oracle --keys runs: not on redis
// 6.2) each of its keys has the digest S gives it in the input.
func TestConvertMatrix(t *testing.T) {
	if !rdbiotest.Long() {
		t.Skip("the whole files × targets matrix runs with RDBZ_LONG=1 (a server start per file and target)")
	}
	only := os.Getenv("RDBZ_CONVERT_FILES") // a comma-separated subset, to run again what failed
	loads := loaders(t)
	for _, cf := range small(t) {
		i := slices.IndexFunc(sourceOrder, func(s string) bool { return slices.Contains(loads[cf.Name], s) })
		if i < 0 || (only != "" && !slices.Contains(strings.Split(only, ","), cf.Name)) {
			continue
		}
		t.Run(cf.Name, func(t *testing.T) {
			src := judged{server: sourceOrder[i], path: cf.Path}
			src.load(t)
			for _, j := range judges {
				t.Run(j.target, func(t *testing.T) { checkTarget(t, src, j.target, slices.Contains(loads[cf.Name], j.target)) })
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

// checkTarget converts src for target (which loads the input when
// loadsInput) and compares what the servers load.
func checkTarget(t *testing.T, src judged, target string, loadsInput bool) {
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
	back := judged{server: src.server, path: out}
	back.load(t)
	dropped := droppedKeys(rep)
	if dropped == 0 && lostNothing(rep) {
		sameDigest(t, src, back)
		if loadsInput {
			in := judged{server: target, path: src.path}
			in.load(t)
			sameDigest(t, in, got)
		}
	} else {
		fewerKeys(t, src, back, dropped, keyForm(t, src.path))
	}
	t.Logf("MATRIX\t%s\t%s\t%s\t%d", filepath.Base(src.path), target, status, dropped)
}

// sameDigest fails unless one server gives in and out one digest.
func sameDigest(t *testing.T, in, out judged) {
	t.Helper()
	if in.digest != out.digest || in.keys != out.keys {
		t.Fatalf("%s: input %s, %s; output %s, %s", in.server, in.digest, in.keys, out.digest, out.keys)
	}
}

// fewerKeys fails unless out holds the keys of in, with the same
// per-key lines (as form has them), but for dropped of them.
func fewerKeys(t *testing.T, in, out judged, dropped int, form func(string) string) {
	t.Helper()
	if in.keyLines == nil {
		return // redis 6.2: no --keys
	}
	had := map[string]bool{}
	for _, line := range in.keyLines {
		had[form(line)] = true
	}
	for _, line := range out.keyLines {
		if !had[form(line)] {
			t.Fatalf("%s loads key line %q from the output, not in the input's", in.server, line)
		}
	}
	if len(in.keyLines)-len(out.keyLines) != dropped {
		t.Fatalf("%s loads %d keys of %d; the report drops %d", in.server, len(out.keyLines), len(in.keyLines), dropped)
	}
}

// lostNothing reports whether no re-encoding lost information.
func lostNothing(rep *Report) bool {
	for _, it := range rep.Items {
		if it.Lost != "" && it.Action == Reencoded {
			return false
		}
	}
	return true
}

// keyForm is the form in which fewerKeys compares rdb-oracle --keys lines
// of the file at path and of its conversion: a stream's line less its
// metadata hash (convert reports what of it was lost), and the line of a
// key whose value has field expiry less its digest, which covers the TTLs
// lost (TestFieldExpiryToPlainHashes checks the fields themselves).
func keyForm(t *testing.T, path string) func(string) string {
	expiring := map[string]bool{}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := rdbio.NewReader(bufio.NewReader(f), rdbio.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for {
		rec, err := r.Next()
		if err != nil || rec.Kind == rdbio.KindEOF {
			break
		}
		if rec.Kind == rdbio.KindKey && rdbio.HasFieldExpiry(r.TypeName(rec.Type)) {
			expiring[strconv.Quote(string(rec.Key))] = true
		}
	}
	return func(line string) string {
		f := strings.Fields(line)
		switch {
		case len(f) == 6 && f[2] == "stream":
			return strings.Join(f[:5], " ")
		case len(f) >= 5 && expiring[f[1]]:
			return strings.Join(append(f[:3:3], f[4:]...), " ")
		}
		return line
	}
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
	var err error
	if bin != "" {
		bin = filepath.Join(rdbiotest.Shared(), "tools", "servers", bin)
		_, err = os.Stat(bin)
	} else {
		bin, err = exec.LookPath("redis-server")
	}
	if err != nil {
		t.Skipf("%s not found: %v", server, err)
	}
	t.Setenv("REDIS_SERVER", bin) // for every call: t.Setenv lasts the test
	out, err := rdbiotest.Oracle(t, path, args...)
	if err != nil {
		t.Fatalf("%s refuses %s: %v", server, filepath.Base(path), err)
	}
	return strings.FieldsFunc(out, func(r rune) bool { return r == '\n' })
}
