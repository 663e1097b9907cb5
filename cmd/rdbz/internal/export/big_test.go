package export

import (
	"bytes"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rdbz/rdbz/rdbio"
	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

// bigFile is a dump redis-server writes of values larger than the cap and
// the command bounds the tests give: a string, list elements (PLAIN nodes
// and listpacks: a PACKED node over the cap is refused), a hash's field and value, set members; many small
// elements too, and TTLs.
func bigFile(t *testing.T) string {
	t.Helper()
	conn, dir := rdbiotest.StartRedis(t, "--list-max-listpack-size", "-1", "--enable-debug-command", "yes")
	big := func(c byte, n int) string { return strings.Repeat(string(c), n-1) + "\xff" }
	cmds := [][]string{
		{"DEBUG", "QUICKLIST-PACKED-THRESHOLD", "1000"}, // elements over 1000 bytes in PLAIN nodes
		{"SET", "s:big", big('a', 300_000)},
		{"SET", "s:small", "v"},
		{"PEXPIREAT", "s:small", "4102444800000"},
		{"RPUSH", "l:big", "x", big('b', 70_000), "y", big('c', 9_000)},
		{"HSET", "h:big", big('d', 20_000), big('e', 90_000), "f", "v"},
		{"SADD", "set:big", big('f', 30_000), "m1", "m2"},
		{"ZADD", "z", "1.5", "a", "-inf", "b", "3", big('g', 2_000)},
	}
	var many []string
	for i := range 50 {
		many = append(many, "e"+strconv.Itoa(i))
	}
	cmds = append(cmds, append([]string{"RPUSH", "l:many"}, many...), append([]string{"SADD", "set:many"}, many...),
		[]string{"SELECT", "3"}, []string{"SET", "in-db-3", "x"}, []string{"SAVE"})
	rdbiotest.Commands(t, conn, cmds...)
	return filepath.Join(dir, "dump.rdb")
}

// tight are options whose cap and command bounds the big values pass.
func tight(opt Options) Options {
	opt.Read = rdbio.Options{Cap: 4096}
	opt.Limits = Limits{Args: 7, Bytes: 5000}
	return opt
}

// TestExportBigValues exports values over the cap and over the command
// bounds — streamed in pieces, each string held at most to the cap; RESTORE
// payloads over the cap through a temporary file — and the server fed the
// commands holds what loading the file gives.
func TestExportBigValues(t *testing.T) {
	path := bigFile(t)
	want, err := rdbiotest.JudgeImport(t, "", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, restore := range []bool{false, true} { // RESTORE payloads over the cap spill to a file
		got := rdbiotest.Import(t, "", exportTo(t, path, tight(Options{Restore: restore})))
		sameLoaded(t, want, got, "")
	}

	for _, esc := range []JSONEscape{Auto, UTF8String, Base64Obj} {
		var out bytes.Buffer
		if err := exportTo(t, path, tight(Options{Format: JSONL, Escape: esc}))(&out); err != nil {
			t.Fatal(err)
		}
		keys := parseJSON(t, out.Bytes(), JSONL)
		if len(keys) != 9 {
			t.Fatalf("escape %s: %d keys", JSONEscapeNames[esc], len(keys))
		}
		if esc == UTF8String {
			continue
		}
		for _, k := range keys {
			if string(jsonBytes(t, k.Key)) == "s:big" {
				if v := jsonBytes(t, k.Value); len(v) != 300_000 || v[0] != 'a' || v[len(v)-1] != 0xff {
					t.Errorf("escape %s: s:big is %d bytes", JSONEscapeNames[esc], len(v))
				}
			}
		}
	}
}

// TestExportBounds checks that every command of a tight export keeps to
// its Limits: at most Args elements, and under twice Bytes of arguments
// unless it carries one element alone.
func TestExportBounds(t *testing.T) {
	path := bigFile(t)
	var out bytes.Buffer
	opt := tight(Options{})
	if err := exportTo(t, path, opt)(&out); err != nil {
		t.Fatal(err)
	}
	per := map[string]int{"RPUSH": 1, "SADD": 1, "HSET": 2, "ZADD": 2, "SET": 1, "APPEND": 1}
	for _, cmd := range parseRESP(t, out.Bytes()) {
		n, ok := per[string(cmd[0])]
		if !ok {
			continue
		}
		size := 0
		for _, a := range cmd[2:] {
			size += len(a)
		}
		elems := (len(cmd) - 2) / n
		if elems > opt.Limits.Args || size > 2*opt.Limits.Bytes && elems > 1 {
			t.Errorf("%s of %d elements, %d bytes: over %+v", cmd[0], elems, size, opt.Limits)
		}
	}
}

// parseRESP splits RESP commands into their arguments.
func parseRESP(t *testing.T, b []byte) [][][]byte {
	t.Helper()
	var cmds [][][]byte
	line := func() string {
		i := bytes.Index(b, []byte("\r\n"))
		if i < 0 {
			t.Fatalf("RESP cut short: %q", b[:min(len(b), 40)])
		}
		l := string(b[:i])
		b = b[i+2:]
		return l
	}
	for len(b) > 0 {
		h := line()
		n, err := strconv.Atoi(strings.TrimPrefix(h, "*"))
		if err != nil || h[0] != '*' {
			t.Fatalf("RESP array header %q", h)
		}
		var args [][]byte
		for range n {
			h := line()
			k, err := strconv.Atoi(strings.TrimPrefix(h, "$"))
			if err != nil || h[0] != '$' || k+2 > len(b) || string(b[k:k+2]) != "\r\n" {
				t.Fatalf("RESP bulk header %q", h)
			}
			args = append(args, b[:k])
			b = b[k+2:]
		}
		cmds = append(cmds, args)
	}
	return cmds
}
