package convert

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rdbz/rdbz/cmd/rdbz/internal/verify"
	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

// verdictsFile is analyze's record of which real server loads which corpus
// file (checked against the servers by analyze's tests).
const verdictsFile = "../analyze/testdata/server-verdicts.tsv"

// judges are the servers here, by target name, and their binaries under
// ../shared/tools/servers ("" for redis-server on PATH: 7.0).
var judges = []struct{ target, bin string }{
	{"redis-6.2", "redis-server-6.2.16"},
	{"redis-7.0", ""},
	{"redis-7.2", "redis-server-7.2.6"},
	{"redis-7.4", "redis-server-7.4.1"},
	{"valkey-8", "valkey-server-8.0.1"},
}

// loaders reads verdictsFile: per corpus file, the judges that load it.
func loaders(t *testing.T) map[string][]string {
	t.Helper()
	f, err := os.Open(verdictsFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string][]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		row := strings.Split(sc.Text(), "\t")
		if len(row) == 4 && row[2] == "yes" {
			out[row[0]] = append(out[row[0]], row[1])
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// dropAll allows every kind to be dropped.
func dropAll() map[string]bool {
	m := map[string]bool{}
	for _, k := range Kinds() {
		m[k] = true
	}
	return m
}

// convertTo converts in for target into a file of the test's temp dir.
func convertTo(t *testing.T, in, target string, drop map[string]bool) (string, *Report, error) {
	t.Helper()
	src, err := os.Open(in)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	var out bytes.Buffer
	rep, err := Convert(context.Background(), &out, bufio.NewReader(src), Options{Target: target, Drop: drop})
	path := filepath.Join(t.TempDir(), target+".rdb")
	if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, rep, err
}

// checkRefusal fails unless err is a refusal naming an offset.
func checkRefusal(t *testing.T, err error) {
	t.Helper()
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "offset ") {
		t.Fatalf("convert failed without a refusal naming an offset: %v", err)
	}
}

// droppedKeys counts the keys the report says were dropped.
func droppedKeys(rep *Report) int {
	n := 0
	for _, it := range rep.Items {
		if it.Action == Dropped && it.FirstKey != nil {
			n += int(it.Count)
		}
	}
	return n
}

// small lists the corpus files redis can read that the default run
// converts (the long run takes every file).
func small(t *testing.T) []rdbiotest.File {
	var out []rdbiotest.File
	for _, cf := range rdbiotest.Sweep(t) {
		fi, err := os.Stat(cf.Path)
		if err != nil || cf.CorruptByDesign() || (!rdbiotest.Long() && fi.Size() > 1<<20) {
			continue
		}
		out = append(out, cf)
	}
	return out
}

// TestConvertToOwnVersion: every corpus file redis 7.0 loads converts to
// redis-7.0 without a drop, into a file that verify calls equal to the
// input and that redis 7.0 loads with the input's digest.
func TestConvertToOwnVersion(t *testing.T) {
	for _, cf := range small(t) {
		if !cf.RedisLoads() {
			continue
		}
		t.Run(cf.Name, func(t *testing.T) {
			out, rep, err := convertTo(t, cf.Path, "redis-7.0", nil)
			if err != nil {
				t.Fatalf("convert: %v", err)
			}
			if !rep.Lossless() {
				t.Fatalf("report says something was lost: %+v", rep.Items)
			}
			sameData(t, cf.Path, out)
			if a, b := readFile(t, cf.Path), readFile(t, out); !bytes.Equal(a, b) {
				t.Fatalf("output (%d bytes) differs from the input (%d bytes)", len(b), len(a))
			}
			want, werr := rdbiotest.Digest(t, cf.Path)
			got, gerr := rdbiotest.Digest(t, out)
			if werr != nil || gerr != nil || got != want {
				t.Fatalf("digest of the input %q (%v), of the output %q (%v)", want, werr, got, gerr)
			}
		})
	}
}

// sameData fails unless verify calls a and b equal.
func sameData(t *testing.T, a, b string) {
	t.Helper()
	fa, err := os.Open(a)
	if err != nil {
		t.Fatal(err)
	}
	defer fa.Close()
	fb, err := os.Open(b)
	if err != nil {
		t.Fatal(err)
	}
	defer fb.Close()
	// Values of the large generated lists (RDBZ_LONG) are compared decoded
	// too: as stored, a list re-encoded as quicklist 14 differs from its 18.
	res, err := verify.Verify(fa, fb, verify.Options{DecodeCap: 256 << 20})
	if err != nil {
		t.Fatalf("verify: %v", err)
	}
	if res.Diff != nil {
		t.Fatalf("verify: %s", res.Diff)
	}
}

// TestConvertRefusedTo70: every corpus file that another server loads
// and redis 7.0 does not either is refused for redis-7.0, naming an
// offset, or converts; with every kind allowed to be dropped, it converts
// into a file redis 7.0 loads.
func TestConvertRefusedTo70(t *testing.T) {
	loads := loaders(t)
	for _, cf := range small(t) {
		if cf.RedisLoads() || len(loads[cf.Name]) == 0 {
			continue
		}
		t.Run(cf.Name, func(t *testing.T) {
			out, _, err := convertTo(t, cf.Path, "redis-7.0", nil)
			if err != nil {
				checkRefusal(t, err)
				if out, _, err = convertTo(t, cf.Path, "redis-7.0", dropAll()); err != nil {
					t.Fatalf("convert with every kind dropped: %v", err)
				}
			}
			if _, err := rdbiotest.Digest(t, out); err != nil {
				t.Fatalf("redis 7.0 refuses the output: %v", err)
			}
		})
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
