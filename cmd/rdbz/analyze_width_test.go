package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rdbz/rdbz/cmd/rdbz/internal/analyze"
	"github.com/rdbz/rdbz/rdbio/rdbiotest"
	"github.com/rivo/uniseg"
)

// nastyKeys are key names that a text report must lay out: long, binary,
// multi-line, wide characters, and all of them at once.
var nastyKeys = []string{
	strings.Repeat("k", 107),
	strings.Repeat("session:user:", 40),
	"bin\x00\xff\xfe\x01\x7f",
	"multi\nline\r\nkey\tend",
	strings.Repeat("键名", 60),
	strings.Repeat("🔑", 50) + "x",
	strings.Repeat("a b ", 50), // spaces: the wrap's own separator
	"\xe9\xa4" + strings.Repeat("\x80", 90),
}

// TestAnalyzeTextLaysOutAnyKey: the text report of dumps that real servers
// save with such keys (sets and strings, so that the compatibility causes
// name them) exits 0 and keeps every line within 80 terminal columns — the
// report panicked in its table layout on a 107-byte key.
func TestAnalyzeTextLaysOutAnyKey(t *testing.T) {
	for _, server := range []string{"redis-server-7.2.6", "redis-server-7.4.1", "valkey-server-8.0.1"} {
		t.Run(server, func(t *testing.T) {
			bin := rdbiotest.ServerBinary(t, server)
			conn, dir := rdbiotest.StartServer(t, bin)
			var cmds [][]string
			for _, k := range nastyKeys {
				cmds = append(cmds, []string{"SADD", k, "m1", "m2"}, []string{"SET", "s" + k, k},
					[]string{"HSET", "h" + k, k, "v"}, []string{"RPUSH", "l" + k, k})
			}
			rdbiotest.Commands(t, conn, append(cmds, []string{"SAVE"})...)
			path := filepath.Join(dir, "dump.rdb")
			if _, err := os.Stat(path); err != nil {
				t.Fatal(err)
			}
			for _, args := range [][]string{{"analyze", path}, {"analyze", "--top", "40", "--prefix-depth", "3", path}} {
				out, stderr, code := run(t, nil, args...)
				if code != 0 {
					t.Fatalf("%v: exit %d: %s", args, code, stderr)
				}
				if !strings.Contains(out, "compatibility") {
					t.Fatalf("%v: no compatibility section:\n%s", args, out)
				}
				for _, l := range strings.Split(out, "\n") {
					if w := uniseg.StringWidth(l); w > 80 && !strings.HasPrefix(l, "file ") {
						t.Errorf("%v: %d columns: %q", args, w, l)
					}
				}
			}
		})
	}
}

// TestTableWidth: table's layout of cells of every kind stays within the
// report width, at any mix of columns.
func TestTableWidth(t *testing.T) {
	for _, cell := range nastyKeys {
		for _, q := range []string{cell, keyText(analyze.KeyInfo{Key: cell})} {
			var b strings.Builder
			table(&b, []string{"server", "loads", "causes"}, func(row func(...any)) {
				row("redis-7.0", "no", "set listpack: 1 keys, first "+q)
				row("", "", q+" "+q)
			})
			table(&b, []string{"db", "key", "type", "bytes"}, func(row func(...any)) {
				row(0, q, "set", "12 B")
			})
			table(&b, []string{"a", "b", "c"}, func(row func(...any)) {
				row(q, q, q)
			})
			for _, l := range strings.Split(b.String(), "\n") {
				if w := uniseg.StringWidth(l); w > 80 {
					t.Errorf("%d columns: %q", w, l)
				}
			}
		}
	}
}
