package filter

import (
	"bufio"
	"io"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

// TestGlobRedisServer asks a real redis-server which of the case keys
// each case pattern's KEYS returns, and holds Glob to it.
func TestGlobRedisServer(t *testing.T) {
	conn, _ := rdbiotest.StartRedis(t)
	var keys []string
	var sets [][]string
	for _, tc := range globCases {
		if !slices.Contains(keys, tc.key) {
			keys = append(keys, tc.key)
			sets = append(sets, []string{"SET", tc.key, "v"})
		}
	}
	rdbiotest.Commands(t, conn, sets...)
	rw := bufio.NewReadWriter(bufio.NewReader(conn), bufio.NewWriter(conn))
	for _, tc := range globCases {
		rdbiotest.WriteCommand(rw.Writer, []byte("KEYS"), []byte(tc.pattern))
		if err := rw.Flush(); err != nil {
			t.Fatal(err)
		}
		got := readArray(t, rw.Reader)
		g, _ := compile(tc.pattern)
		var want []string
		for _, k := range keys {
			if g.Match([]byte(k)) {
				want = append(want, k)
			}
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("KEYS %q: redis %q, Glob %q", tc.pattern, got, want)
		}
	}
}

// readArray reads a RESP array of bulk strings.
func readArray(t *testing.T, r *bufio.Reader) []string {
	t.Helper()
	head := readLine(t, r, '*')
	n, _ := strconv.Atoi(head)
	out := make([]string, 0, n)
	for range n {
		size, _ := strconv.Atoi(readLine(t, r, '$'))
		b := make([]byte, size+2)
		if _, err := io.ReadFull(r, b); err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b[:size]))
	}
	return out
}

// readLine reads a reply line that starts with kind and returns the rest.
func readLine(t *testing.T, r *bufio.Reader, kind byte) string {
	t.Helper()
	line, err := r.ReadString('\n')
	if err != nil || len(line) < 3 || line[0] != kind {
		t.Fatalf("reply %q, %v: want %c", line, err, kind)
	}
	return strings.TrimSuffix(line[1:], "\r\n")
}
