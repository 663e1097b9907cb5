package convert

import (
	"bufio"
	"fmt"
	"os"

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

// TestConvertMatrix: for every corpus file that a server S here loads
// and every target T here, convert refuses naming an offset, or writes a
// file T loads; with every kind allowed to be dropped it writes one. S
// loads the output too and, when nothing was dropped or lost, gives it
// the digest it gives the input (as does T when T loads the input: DEBUG
// DIGEST of a sorted set differs between redis 7.0 and 7.2, so digests are
// compared within one server); otherwise the output holds as many fewer
// keys as the report drops, each with the digest, type and expiry S gives
// it in the input (less what the report says was lost: a stream's
// metadata, a hash's field TTLs). The servers are shared per build
// (rdbiotest.Judge), so the matrix runs in the default suite; files over
// 1 MiB join it with RDBZ_LONG=1.
func TestConvertMatrix(t *testing.T) {
	only := os.Getenv("RDBZ_CONVERT_FILES") // a comma-separated subset, to run again what failed
	loads := loaders(t)
	var rows []string
	for _, cf := range matrixFiles(t, loads) {
		i := slices.IndexFunc(sourceOrder, func(s string) bool { return slices.Contains(loads[cf.Name], s) })
		if i < 0 || (only != "" && !slices.Contains(strings.Split(only, ","), cf.Name)) {
			continue
		}
		t.Run(cf.Name, func(t *testing.T) {
			src := judged{server: sourceOrder[i], path: cf.Path}
			src.load(t)
			for _, j := range judges {
				t.Run(j.target, func(t *testing.T) {
					rows = append(rows, checkTarget(t, src, j.target, slices.Contains(loads[cf.Name], j.target)))
				})
			}
		})
	}
	if path := os.Getenv("RDBZ_MATRIX_OUT"); path != "" {
		if err := os.WriteFile(path, []byte(strings.Join(rows, "\n")+"\n"), 0o644); err != nil {
			t.Error(err)
		}
	}
}

// matrixFiles are the files of the matrix: the corpus files up to 1 MiB
// (all with RDBZ_LONG=1: the 1.5 and 2 MB generated ones took 5.4 s more,
// for sizes, not kinds, the small files lack). The generated ones, which
// redis 7.0 saved (RDB 10), load in every server here but redis 6.2, as
// loads records from then on.
func matrixFiles(t *testing.T, loads map[string][]string) []rdbiotest.File {
	files := small(t)
	for _, cf := range rdbiotest.Generated(t, 1<<20) {
		if !slices.ContainsFunc(files, func(f rdbiotest.File) bool { return f.Path == cf.Path }) {
			files = append(files, cf)
		}
		if _, ok := loads[cf.Name]; !ok {
			loads[cf.Name] = []string{"redis-7.0", "redis-7.2", "redis-7.4", "valkey-8"}
		}
	}
	return files
}

// judged is a file as a server loads it.
type judged struct {
	server, path string
	*rdbiotest.Loaded
}

func (j *judged) load(t *testing.T) { j.judge(t, rdbiotest.Judge) }

// loadKeys is load with the key lines.
func (j *judged) loadKeys(t *testing.T) { j.judge(t, rdbiotest.JudgeKeys) }

func (j *judged) judge(t *testing.T, judge func(testing.TB, string, string) (*rdbiotest.Loaded, error)) {
	t.Helper()
	l, err := judge(t, serverBin(t, j.server), j.path)
	if err != nil {
		t.Fatalf("%s refuses %s: %v", j.server, filepath.Base(j.path), err)
	}
	j.Loaded = l
}

// checkTarget converts src for target (which loads the input when
// loadsInput), compares what the servers load, and returns the matrix
// row: file, target, what convert did, keys dropped.
func checkTarget(t *testing.T, src judged, target string, loadsInput bool) string {
	out, rep, err := convertTo(t, src.path, target, nil)
	status := "converted"
	if err != nil {
		checkRefusal(t, err)
		if out, rep, err = convertTo(t, src.path, target, dropAll()); err != nil {
			t.Fatalf("convert with every kind dropped: %v", err)
		}
		status = "refused; with --drop: dropped " + actionKinds(rep, Dropped)
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
		src.loadKeys(t)
		back.loadKeys(t)
		fewerKeys(t, src, back, dropped, keyForm(t, src.path))
		if !lostNothing(rep) {
			status += "; lost in " + lostKinds(rep)
		}
	}
	if n := actionKinds(rep, Reencoded); n != "" {
		status += "; re-encoded " + n
	}
	return fmt.Sprintf("%s\t%s\t%s\t%d", filepath.Base(src.path), target, status, dropped)
}

// sameDigest fails unless one server gives in and out one digest.
func sameDigest(t *testing.T, in, out judged) {
	t.Helper()
	if in.Summary != out.Summary {
		t.Fatalf("%s: input\n%s\noutput\n%s", in.server, in.Summary, out.Summary)
	}
}

// fewerKeys fails unless out holds the keys of in, with the same
// per-key lines (as form has them), but for dropped of them.
func fewerKeys(t *testing.T, in, out judged, dropped int, form func(string) string) {
	t.Helper()
	had := map[string]bool{}
	for _, line := range in.Keys {
		had[form(line)] = true
	}
	for _, line := range out.Keys {
		if !had[form(line)] {
			t.Fatalf("%s loads key line %q from the output, not in the input's", in.server, line)
		}
	}
	if len(in.Keys)-len(out.Keys) != dropped {
		t.Fatalf("%s loads %d keys of %d; the report drops %d", in.server, len(out.Keys), len(in.Keys), dropped)
	}
}

// actionKinds lists the report's kinds of one action with their counts.
func actionKinds(rep *Report, action string) string {
	var kinds []string
	for _, it := range rep.Items {
		if it.Action == action {
			kinds = append(kinds, fmt.Sprintf("%s %d", it.Kind, it.Count))
		}
	}
	return strings.Join(kinds, ", ")
}

// lostNothing reports whether no re-encoding lost information.
func lostNothing(rep *Report) bool {
	return lostKinds(rep) == ""
}

// lostKinds lists the kinds whose re-encoding lost information.
func lostKinds(rep *Report) string {
	var kinds []string
	for _, it := range rep.Items {
		if it.Lost != "" && it.Action == Reencoded {
			kinds = append(kinds, it.Kind)
		}
	}
	return strings.Join(kinds, ",")
}

// keyForm is the form in which fewerKeys compares the key lines
// (rdbiotest.Loaded.Keys) of the file at path and of its conversion: a
// stream's line less its metadata hash (convert reports what of it was
// lost), and the line of a key whose value has field expiry less its
// digest, which covers the TTLs lost (TestFieldExpiryToPlainHashes checks
// the fields themselves).
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
		if rec.Kind == rdbio.KindKey && rdbio.HasFieldExpiry(rec.Type) {
			expiring[strconv.Quote(string(rec.Key))] = true
		}
	}
	return func(line string) string {
		f := strings.Split(line, " ")
		n := len(f) // db, key (Go-quoted: may hold spaces), type, digest, expiry, meta
		if n < 6 {
			return line
		}
		key := strings.Join(f[1:n-4], " ")
		switch {
		case f[n-4] == "stream":
			return strings.Join(f[:n-1], " ")
		case expiring[key]:
			return strings.Join(append(f[:n-3:n-3], f[n-2:]...), " ")
		}
		return line
	}
}

// serverBin is the binary of the server named target: one of
// ../shared/tools/servers, or "" for redis-server on PATH (redis 7.0).
func serverBin(t *testing.T, target string) string {
	for _, j := range judges {
		if j.target == target && j.bin != "" {
			return rdbiotest.ServerBinary(t, j.bin)
		}
	}
	return ""
}
