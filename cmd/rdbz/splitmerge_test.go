package main

import (
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

// TestSplitMergeUsage: usage errors exit 2 with one line and write nothing.
func TestSplitMergeUsage(t *testing.T) {
	dir := t.TempDir()
	pre := filepath.Join(dir, "p-")
	for _, args := range [][]string{
		{"split", small, "--shards", "3"},                              // no -o
		{"split", small, "-o", "-", "--shards", "3"},                   // stdout
		{"split", small, "-o", pre},                                    // no parts named
		{"split", small, "-o", pre, "--shards", "3", "--slots", "0-5"}, // two ways
		{"split", small, "-o", pre, "--shards", "0"},
		{"split", small, "-o", pre, "--shards", "16385"},
		{"split", small, "-o", pre, "--slots", "5-3"},
		{"split", small, "-o", pre, "--slots", "0-10", "--slots", "10-20"}, // overlap
		{"split", small, "-o", pre, "--shards", "2", "--to", "zip"},
		{"split", small, "-o", pre, "--shards", "2", "--to", "rdbz"}, // an RDB input
		{"split", small, small, "-o", pre, "--shards", "2"},
		{"merge", small, "-o", filepath.Join(dir, "m.rdb")},
		{"merge", small, "-", "-o", filepath.Join(dir, "m.rdb")},
		{"merge", small, small, "-o", filepath.Join(dir, "m.rdb"), "--on-duplicate", "both"},
		{"merge", small, small, "-o", filepath.Join(dir, "m.rdb"), "--target", "redis-5"},
		{"merge", small, small}, // no -o
	} {
		stdout, stderr, code := run(t, nil, args...)
		if code != 2 || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "--help") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, stdout, stderr)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*")); len(left) != 0 {
		t.Errorf("written: %v", left)
	}
}

// TestSplitAllOrNone: a split that fails (a key of db 1, an existing
// part without -f) leaves no part; one that succeeds writes every part.
func TestSplitAllOrNone(t *testing.T) {
	dir := t.TempDir()
	pre := filepath.Join(dir, "p-")
	_, stderr, code := run(t, nil, "split", small, "-o", pre, "--shards", "3")
	if code != 1 || !strings.Contains(stderr, `key "other-db": db 1: a cluster holds db 0 only`) {
		t.Fatalf("db 1: exit %d: %s", code, stderr)
	}
	if left, _ := filepath.Glob(pre + "*"); len(left) != 0 {
		t.Fatalf("a failed split left %v", left)
	}
	os.WriteFile(pre+"1.rdb", []byte("keep"), 0o644)
	if _, stderr, code := run(t, nil, "split", small, "-o", pre, "--shards", "3", "--db-to-0"); code != 1 || !strings.Contains(stderr, "exists") {
		t.Fatalf("existing part: exit %d: %s", code, stderr)
	}
	if left, _ := filepath.Glob(pre + "*"); len(left) != 1 {
		t.Fatalf("a refused split left %v", left)
	}
	_, stderr = mustRun(t, "split", small, "-o", pre, "--shards", "3", "--db-to-0", "-f")
	if !strings.Contains(stderr, "moved 1 key of db 1 into db 0") || strings.Count(stderr, "\n") != 5 {
		t.Fatalf("report: %s", stderr)
	}
	parts, _ := filepath.Glob(pre + "*.rdb")
	if len(parts) != 3 {
		t.Fatalf("parts %v", parts)
	}
	if _, stderr := mustRun(t, "split", "-q", small, "-o", filepath.Join(dir, "sub")+"/", "--slots", "0-100,200-16383", "--slots", "101-199", "--db-to-0"); stderr != "" {
		t.Fatalf("-q: %q", stderr)
	}
	if sub, _ := filepath.Glob(filepath.Join(dir, "sub", "*")); len(sub) != 2 || filepath.Base(sub[0]) != "0.rdb" {
		t.Fatalf("into a folder, two parts of --slots: %v", sub)
	}
}

// TestSplitFromStdin: a stream splits in one pass (rdbz parts from an
// rdbz stream), into parts that merge back.
func TestSplitFromStdin(t *testing.T) {
	dir := t.TempDir()
	data, _ := os.ReadFile(small)
	z := filepath.Join(dir, "small.rdbz")
	mustRun(t, "compress", "-q", small, "-o", z)
	zdata, _ := os.ReadFile(z)
	for _, in := range [][]byte{data, zdata} {
		_, stderr, code := run(t, in, "split", "--shards", "2", "--db-to-0", "-o", filepath.Join(dir, "s-"), "-f")
		if code != 0 || !strings.Contains(stderr, "no RESIZEDB (the input was read once)") {
			t.Fatalf("exit %d: %s", code, stderr)
		}
	}
	parts, _ := filepath.Glob(filepath.Join(dir, "s-*.rdbz"))
	if len(parts) != 2 {
		t.Fatalf("rdbz parts: %v", parts)
	}
	out := filepath.Join(dir, "m.rdb")
	mustRun(t, append([]string{"merge", "-o", out}, parts...)...)
	if _, stderr, code := run(t, nil, "info", out); code != 0 {
		t.Fatalf("info of the merge: %s", stderr)
	}
	// Format 1: the parts' dictionary is trained on the file, which a
	// stream cannot give twice.
	f1 := "../../testdata/small-format1.rdbz"
	mustRun(t, "split", f1, "--shards", "2", "--db-to-0", "-o", filepath.Join(dir, "f1-"))
	if parts, _ := filepath.Glob(filepath.Join(dir, "f1-*.rdbz")); len(parts) != 2 {
		t.Fatalf("format-1 parts: %v", parts)
	}
	f1data, _ := os.ReadFile(f1)
	if _, stderr, code := run(t, f1data, "split", "--shards", "2", "--db-to-0", "-o", filepath.Join(dir, "f1s-")); code != 1 || !strings.Contains(stderr, "name the file") {
		t.Fatalf("format 1 from stdin: exit %d: %s", code, stderr)
	}
}

// saveDump builds a dump in a fresh redis-server: count string keys
// from key:first, each valued prefix:i, and a hash and a list.
func saveDump(t *testing.T, prefix string, first, count int) string {
	t.Helper()
	conn, dir := rdbiotest.StartRedis(t)
	var cmds [][]string
	for i := first; i < first+count; i++ {
		cmds = append(cmds, []string{"SET", "key:" + strconv.Itoa(i), prefix + ":" + strconv.Itoa(i)})
	}
	cmds = append(cmds, []string{"HSET", "h", "f", prefix}, []string{"RPUSH", "l", prefix, "x"},
		[]string{"PEXPIREAT", "key:" + strconv.Itoa(first+count-1), "4102444800000"}, []string{"SAVE"})
	rdbiotest.Commands(t, conn, cmds...)
	out := filepath.Join(t.TempDir(), prefix+".rdb")
	data, err := os.ReadFile(filepath.Join(dir, "dump.rdb"))
	if err == nil {
		err = os.WriteFile(out, data, 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// keysInOrder are a dump's keys in the order stored.
func keysInOrder(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var keys []string
	err = rdbio.ForEachKey(f, rdbio.Options{}, func(_ *rdbio.Reader, rec *rdbio.Record) error {
		keys = append(keys, string(rec.Key))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return keys
}

// TestMergePoliciesInRedis: two dumps redis saved with overlapping keys.
// error names the first duplicate (in B's order, the first key A holds
// too) and both files; first and last load in redis with, per key, the
// chosen side's value, digest and expiry.
func TestMergePoliciesInRedis(t *testing.T) {
	a, b := saveDump(t, "a", 0, 300), saveDump(t, "b", 200, 300)
	inA := map[string]bool{}
	for _, k := range keysInOrder(t, a) {
		inA[k] = true
	}
	first := ""
	for _, k := range keysInOrder(t, b) {
		if inA[k] {
			first = k
			break
		}
	}
	out := filepath.Join(t.TempDir(), "m.rdb")
	_, stderr, code := run(t, nil, "merge", a, b, "-o", out)
	want := fmt.Sprintf("duplicate key %q in db 0: %s (input 1, offset ", first, a)
	if code != 1 || !strings.Contains(stderr, want) || !strings.Contains(stderr, ") and "+b+" (input 2, offset ") {
		t.Fatalf("error policy: exit %d: %s (want %s)", code, stderr, want)
	}
	if _, err := os.Stat(out); err == nil {
		t.Fatal("a refused merge wrote its output")
	}
	linesA, linesB := judgeLines(t, a), judgeLines(t, b)
	for _, policy := range []string{"first", "last"} {
		_, stderr := mustRun(t, "merge", a, b, "-o", out, "-f", "--on-duplicate", policy)
		if !strings.Contains(stderr, "502 keys (") || !strings.Contains(stderr, "102 duplicate keys left out") {
			t.Errorf("%s: report %s", policy, stderr)
		}
		keep, other := linesA, linesB
		if policy == "last" {
			keep, other = linesB, linesA
		}
		var want []string
		for k, l := range other {
			if _, ok := keep[k]; !ok {
				want = append(want, l)
			}
		}
		for _, l := range keep {
			want = append(want, l)
		}
		slices.Sort(want)
		if got := judgeLinesList(t, out); !slices.Equal(got, want) {
			t.Errorf("%s: %d keys in redis, want %d (or other values)", policy, len(got), len(want))
		}
	}
}

// judgeLinesList are redis 7.0's key lines of a file.
func judgeLinesList(t *testing.T, path string) []string {
	t.Helper()
	l, err := rdbiotest.JudgeKeys(t, "", path)
	if err != nil {
		t.Fatalf("redis refuses %s: %v", path, err)
	}
	return l.Keys
}

// judgeLines are the key lines by "db key".
func judgeLines(t *testing.T, path string) map[string]string {
	t.Helper()
	m := map[string]string{}
	for _, l := range judgeLinesList(t, path) {
		f := strings.SplitN(l, " ", 3)
		m[f[0]+" "+f[1]] = l
	}
	return m
}

// TestSplitNodesNames: --nodes names each part by its master's node id;
// replicas and the resharding markers make no part; a listing that does
// not parse is a failure (exit 1), naming its line.
func TestSplitNodesNames(t *testing.T) {
	dir := t.TempDir()
	nodes := filepath.Join(dir, "nodes.conf")
	ids := []string{"e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca", "67ed2db8d677e59ec4a4cefb06858cf2a1a89fa1"}
	conf := ids[0] + " 127.0.0.1:30001@31001 myself,master - 0 0 1 connected 0-8000 [8001->-" + ids[1] + "]\n" +
		ids[1] + " 127.0.0.1:30002@31002 master - 0 1426238316232 2 connected 8001-16383\n" +
		"6ec23923021cf3ffec47632106199cb7f496ce01 127.0.0.1:30005@31005 slave " + ids[1] + " 0 1426238316232 5 connected\n" +
		"vars currentEpoch 7 lastVoteEpoch 0\n"
	os.WriteFile(nodes, []byte(conf), 0o644)
	mustRun(t, "split", small, "--db-to-0", "--nodes", nodes, "-o", filepath.Join(dir, "node-"))
	for _, id := range ids {
		if _, err := os.Stat(filepath.Join(dir, "node-"+id+".rdb")); err != nil {
			t.Error(err)
		}
	}
	if parts, _ := filepath.Glob(filepath.Join(dir, "node-*")); len(parts) != 2 {
		t.Errorf("parts %v", parts)
	}
	os.WriteFile(nodes, []byte("x y z\n"), 0o644)
	if _, stderr, code := run(t, nil, "split", small, "--nodes", nodes, "-o", filepath.Join(dir, "bad-")); code != 1 || !strings.Contains(stderr, "nodes line 1") {
		t.Errorf("bad listing: exit %d: %s", code, stderr)
	}
}

// TestSplitManyParts: more parts than one pass writes (16 RDB, 4 rdbz)
// come from a file in several passes, every part there, and merged back
// they hold the input's data (verify); from stdin, which cannot be read
// again, they are refused with exit 1, naming it, and nothing is left.
func TestSplitManyParts(t *testing.T) {
	dir := t.TempDir()
	z := filepath.Join(dir, "small.rdbz")
	mustRun(t, "compress", "-q", small, "-o", z)
	ref := filepath.Join(dir, "db0.rdb") // a cluster's parts hold db 0
	mustRun(t, "copy", "-q", "--db", "0", small, "-o", ref)
	for _, in := range []string{small, z} {
		pre := filepath.Join(dir, filepath.Base(in)+"-")
		mustRun(t, "split", "-q", in, "--shards", "17", "--db", "0", "-o", pre)
		parts, _ := filepath.Glob(pre + "*")
		if len(parts) != 17 {
			t.Fatalf("%s: %d parts: %v", in, len(parts), parts)
		}
		merged := filepath.Join(dir, filepath.Base(in)+".merged.rdb")
		mustRun(t, append([]string{"merge", "-q", "-o", merged}, parts...)...)
		if _, stderr, code := run(t, nil, "verify", ref, merged); code != 0 {
			t.Fatalf("%s: its 17 parts merged differ from its db 0: %s", in, stderr)
		}
		data, _ := os.ReadFile(in)
		out := filepath.Join(dir, "stdin-"+filepath.Base(in))
		if err := os.Mkdir(out, 0o755); err != nil {
			t.Fatal(err)
		}
		_, stderr, code := run(t, data, "split", "--shards", "17", "--db", "0", "-o", out+"/")
		if code != 1 || !strings.Contains(stderr, "(stdin) can be read only once") {
			t.Fatalf("%s from stdin: exit %d: %s", in, code, stderr)
		}
		if left, _ := os.ReadDir(out); len(left) != 0 {
			t.Fatalf("%s from stdin: left %d files", in, len(left))
		}
	}
}
