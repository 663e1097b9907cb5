package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rdbz/rdbz/rdbio"
	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

// TestFilterUsage: a bad filter is a usage error of one line, on every
// command that takes the filters; so is compress --rm with a filter (the
// output lacks keys of the input it would remove).
func TestFilterUsage(t *testing.T) {
	for _, cmd := range [][]string{{"copy", "-cf"}, {"compress", "-cf"}, {"convert", "-cf", "-t", "redis-7.0"}, {"analyze"}} {
		for _, args := range []struct{ says, arg, value string }{
			{"bad glob", "--match", "[abc"}, {"bad glob", "--exclude", `x\`}, {"bad filter", "--type", "sets"},
			{"--db", "--db", "x"}, {"--expired", "--expired", "maybe"}, {"--now", "--now", "1700000000"},
		} {
			line := append(slices.Clone(cmd), args.arg, args.value, small)
			stdout, stderr, code := run(t, nil, line...)
			if code != 2 || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, args.says) {
				t.Errorf("%q: exit %d, stdout %d bytes, stderr %q", line, code, len(stdout), stderr)
			}
		}
		line := append(slices.Clone(cmd), "--expired", "drop", "--now", "yesterday", small)
		if _, stderr, code := run(t, nil, line...); code != 2 || !strings.Contains(stderr, `--now "yesterday"`) {
			t.Errorf("%q: exit %d, %q", line, code, stderr)
		}
	}
	_, path, _ := copyInput(t, "dump.rdb")
	if _, stderr, code := run(t, nil, "compress", "--rm", "--db", "0", path); code != 2 || !strings.Contains(stderr, "--rm with filters") {
		t.Errorf("compress --rm with a filter: exit %d, %q", code, stderr)
	}
}

// filterDump makes a dump with a real redis-server: keys of every type in
// dbs 0, 1 and 3, and keys that expire in 2050, in 2100 and (saved with
// active expiry off) before the dump's ctime.
func filterDump(t *testing.T) string {
	conn, dir := rdbiotest.StartRedis(t, "--enable-debug-command", "yes")
	rdbiotest.Commands(t, conn,
		[]string{"DEBUG", "SET-ACTIVE-EXPIRE", "0"},
		[]string{"SET", "s:0", "v"}, []string{"RPUSH", "l:0", "a", "b"}, []string{"SADD", "set:0", "x"},
		[]string{"ZADD", "z:0", "1", "m"}, []string{"HSET", "h:0", "f", "v"}, []string{"XADD", "x:0", "*", "f", "v"},
		[]string{"SET", "exp:2050", "v", "PXAT", "2524608000000"}, []string{"SET", "exp:2100", "v", "PXAT", "4102444800000"},
		[]string{"SET", "exp:past", "v", "PX", "1"},
		[]string{"SELECT", "1"}, []string{"SET", "s:1", "v"}, []string{"HSET", "h:1", "f", "v"},
		[]string{"SELECT", "3"}, []string{"SET", "s:3", "v"}, []string{"SET", "a,b", "comma"})
	time.Sleep(1010 * time.Millisecond) // exp:past expires before the second ctime says
	rdbiotest.Commands(t, conn, []string{"SAVE"})
	return filepath.Join(dir, "dump.rdb")
}

// dumpKeys lists the keys of an RDB file as "db:key", sorted.
func dumpKeys(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := rdbio.NewReader(bytes.NewReader(b), rdbio.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var ks []string
	for {
		rec, err := r.Next()
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if rec.Kind == rdbio.KindEOF {
			break
		}
		if rec.Kind == rdbio.KindKey {
			ks = append(ks, strconv.FormatUint(rec.DB, 10)+":"+string(rec.Key))
		}
	}
	slices.Sort(ks)
	return ks
}

// TestFilters: on a dump made by redis, each filter of copy keeps the keys
// it says, the summary line counts them, and redis loads every output;
// compress, decompress of a filtered file is the filtered copy byte for
// byte (format 2 and 1); convert and analyze see the same keys.
func TestFilters(t *testing.T) {
	dump := filterDump(t)
	all := dumpKeys(t, dump)
	if !slices.Contains(all, "0:exp:past") {
		t.Fatalf("the dump lacks the expired key: %q", all)
	}
	dir := t.TempDir()
	for i, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"--match", "s:*", "--match", "h:?"}, []string{"0:h:0", "0:s:0", "1:h:1", "1:s:1", "3:s:3"}},
		{[]string{"--match", "a,b"}, []string{"3:a,b"}},
		{[]string{"--exclude", "*:[0-9]", "--exclude", "exp:*"}, []string{"3:a,b"}},
		{[]string{"--db", "1", "--db", "3"}, []string{"1:h:1", "1:s:1", "3:a,b", "3:s:3"}},
		{[]string{"--type", "hash", "--type", "stream", "--type", "list-quicklist2"}, []string{"0:h:0", "0:l:0", "0:x:0", "1:h:1"}},
		{[]string{"--db", "0", "--match", "exp:*"}, []string{"0:exp:2050", "0:exp:2100", "0:exp:past"}},
		{[]string{"--db", "0", "--match", "exp:*", "--expired", "drop"}, []string{"0:exp:2050", "0:exp:2100"}},
		{[]string{"--db", "0", "--match", "exp:*", "--expired", "drop", "--now", "2060-01-01T00:00:00Z"}, []string{"0:exp:2100"}},
		{[]string{"--db", "0", "--match", "exp:*", "--expired", "drop", "--now", "7258118400"}, nil},
	} {
		out := filepath.Join(dir, strconv.Itoa(i)+".rdb")
		_, stderr := mustRun(t, append([]string{"copy", dump, "-o", out}, tc.args...)...)
		if got := dumpKeys(t, out); !slices.Equal(got, tc.want) {
			t.Errorf("%q: keys %q, want %q", tc.args, got, tc.want)
		}
		if note := strconv.Itoa(len(tc.want)) + " keys kept, " + strconv.Itoa(len(all)-len(tc.want)) + " left out"; !strings.Contains(stderr, note) {
			t.Errorf("%q: summary %q lacks %q", tc.args, stderr, note)
		}
		if _, err := rdbiotest.JudgeKeys(t, "", out); err != nil {
			t.Errorf("%q: redis refuses the output: %v", tc.args, err)
		}
	}
	filter := []string{"--exclude", "s:*", "--db", "0", "--db", "1"}
	copied := filepath.Join(dir, "copied.rdb")
	mustRun(t, append([]string{"copy", dump, "-o", copied}, filter...)...)
	want, err := os.ReadFile(copied)
	if err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"2", "1"} {
		z, back := filepath.Join(dir, "f"+format+".rdbz"), filepath.Join(dir, "f"+format+".rdb")
		mustRun(t, append([]string{"compress", "--format", format, dump, "-o", z}, filter...)...)
		mustRun(t, "decompress", z, "-o", back)
		if got, err := os.ReadFile(back); err != nil || !bytes.Equal(got, want) {
			t.Errorf("format %s: compress and decompress of the filtered file: %d bytes (%v), the filtered copy %d", format, len(got), err, len(want))
		}
		mustRun(t, "verify", z, copied)
	}
	conv := filepath.Join(dir, "conv.rdb")
	if _, stderr := mustRun(t, append([]string{"convert", "-t", "redis-7.0", dump, "-o", conv}, filter...)...); !strings.Contains(stderr, "left out by the filters") {
		t.Errorf("convert summary %q", stderr)
	}
	mustRun(t, "verify", conv, copied)
	stdout, _ := mustRun(t, append([]string{"analyze", "--json", "--no-whatif", dump}, filter...)...)
	var a struct{ Keys, LeftOut int64 }
	if err := json.Unmarshal([]byte(stdout), &struct {
		Keys    *int64 `json:"keys"`
		LeftOut *int64 `json:"left_out"`
	}{&a.Keys, &a.LeftOut}); err != nil {
		t.Fatal(err)
	}
	if n := int64(len(dumpKeys(t, copied))); a.Keys != n || a.LeftOut != int64(len(all))-n {
		t.Errorf("analyze: %d keys, %d left out; the copy holds %d of %d", a.Keys, a.LeftOut, n, len(all))
	}
}

// TestFilterCompletion: the shell completion offers the values of --type
// and --expired.
func TestFilterCompletion(t *testing.T) {
	if out, _ := mustRun(t, "copy", "x.rdb", "--type", completionFlag); !strings.Contains(out, "stream\n") {
		t.Errorf("--type: %q", out)
	}
	if out, _ := mustRun(t, "analyze", "--expired", completionFlag); out != "keep\ndrop\n" {
		t.Errorf("--expired: %q", out)
	}
}

// TestAnalyzeWhatIfFiltered: with key filters, analyze's what-if predicts
// compress with the same filters: format 2's prediction (its estimate
// reads the dump through the filter too) is the size compress writes, to
// the byte where it says it is exact, format 1's within 5%, and the file
// it compares with is the filtered copy.
func TestAnalyzeWhatIfFiltered(t *testing.T) {
	var path string
	for _, cf := range rdbiotest.Generated(t, 4<<20) {
		if cf.Name == "mixed-all-types.rdb" {
			path = cf.Path
		}
	}
	if path == "" {
		t.Skip("no mixed-all-types.rdb in the corpus")
	}
	filter := []string{"--exclude", "*[13579]", "--db", "0", "--db", "5"}
	a, stderr, code := runAnalyzeJSON(t, append([]string{path}, filter...)...)
	if code != 0 || a.WhatIf == nil || a.WhatIf.Format2 == nil {
		t.Fatalf("analyze exit %d, no format-2 what-if: %s", code, stderr)
	}
	stdout, _ := mustRun(t, append([]string{"analyze", "--json", path}, filter...)...)
	var extra struct {
		LeftOut int64 `json:"left_out"`
		WhatIf  struct {
			FileBytes int64 `json:"file_bytes"`
		} `json:"whatif"`
	}
	if err := json.Unmarshal([]byte(stdout), &extra); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	copied := filepath.Join(dir, "copied.rdb")
	mustRun(t, append([]string{"copy", path, "-o", copied}, filter...)...)
	if st, err := os.Stat(copied); err != nil || extra.WhatIf.FileBytes != st.Size() || extra.LeftOut == 0 {
		t.Fatalf("what-if file_bytes %d, %d keys left out; the filtered copy: %v", extra.WhatIf.FileBytes, extra.LeftOut, err)
	}
	for _, c := range []struct {
		format string
		pred   int64
		exact  bool
	}{
		{"2", a.WhatIf.RdbzCompressBytes, a.WhatIf.Format2.Exact},
		{"1", a.WhatIf.Format1Bytes, a.WhatIf.Exact},
	} {
		out := filepath.Join(dir, "c"+c.format+".rdbz")
		mustRun(t, append([]string{"compress", "--format", c.format, path, "-o", out}, filter...)...)
		st, err := os.Stat(out)
		if err != nil {
			t.Fatal(err)
		}
		off := float64(c.pred-st.Size()) / float64(st.Size())
		t.Logf("format %s: predicted %d, compress wrote %d (%+.3f%%, exact %v)", c.format, c.pred, st.Size(), 100*off, c.exact)
		if off > 0.05 || off < -0.05 || (c.exact && c.pred != st.Size()) {
			t.Errorf("format %s: what-if %d, filtered compress %d", c.format, c.pred, st.Size())
		}
	}
}

// TestFiltersEnvelope: compress with filters of an RDB in a VKCS envelope
// (its LZ4 frame with a content size) records the envelope without the
// content size, which was the unfiltered RDB's: decompress --to original
// wraps the filtered copy again, --envelope none gives it alone.
func TestFiltersEnvelope(t *testing.T) {
	plain, err := os.ReadFile(small)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "in.rdb")
	if err := os.WriteFile(in, rdbiotest.LZ4Envelope(t, plain, 0, "--content-size"), 0o644); err != nil {
		t.Fatal(err)
	}
	filter := []string{"--db", "0"}
	copied := filepath.Join(dir, "copied.rdb")
	mustRun(t, append([]string{"copy", in, "-o", copied}, filter...)...)
	want, err := os.ReadFile(copied)
	if err != nil || len(want) >= len(plain) {
		t.Fatalf("filtered copy %d bytes of %d (%v)", len(want), len(plain), err)
	}
	z := filepath.Join(dir, "c.rdbz")
	mustRun(t, append([]string{"compress", in, "-o", z}, filter...)...)
	back, alone := filepath.Join(dir, "back.rdb"), filepath.Join(dir, "alone.rdb")
	mustRun(t, "decompress", z, "-o", back)
	mustRun(t, "decompress", "--envelope", "none", z, "-o", alone)
	if got, err := os.ReadFile(alone); err != nil || !bytes.Equal(got, want) {
		t.Errorf("--envelope none: %d bytes (%v), want the filtered copy's %d", len(got), err, len(want))
	}
	wrapped, err := os.ReadFile(back)
	if err != nil || len(wrapped) < 8 || string(wrapped[:4]) != "VKCS" {
		t.Fatalf("--to original: %.8q (%v), want a VKCS envelope", wrapped, err)
	}
	if inner, err := rdbiotest.LZ4Decompress(t, wrapped[8:]); err != nil || !bytes.Equal(inner, want) {
		t.Errorf("--to original: the RDB inside is %d bytes (%v), want the filtered copy's %d", len(inner), err, len(want))
	}
}
