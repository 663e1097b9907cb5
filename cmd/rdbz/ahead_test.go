package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rdbz/rdbz/rdbio"
)

// TestWalkedLargeFiles: the commands that read a large file ahead
// (openWalked: info, test, analyze, train) read a sound one whole and
// report a cut one and a damaged one as the other commands do, naming the
// file and the offset, exit 1.
func TestWalkedLargeFiles(t *testing.T) {
	dir := t.TempDir()
	sound := filepath.Join(dir, "sound.rdb")
	writeLargeRDB(t, sound, aheadMin+aheadMin/2)
	b, err := os.ReadFile(sound)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "cut.rdb")
	if err := os.WriteFile(cut, b[:aheadMin+12345], 0o644); err != nil {
		t.Fatal(err)
	}
	flipped := filepath.Join(dir, "flipped.rdb")
	b[aheadMin] ^= 0x20 // inside a value: only the checksum tells
	if err := os.WriteFile(flipped, b, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"info"}, {"test"}, {"analyze", "--no-whatif"}} {
		if _, stderr, code := run(t, nil, append(args, sound)...); code != 0 {
			t.Errorf("%v of a sound file: exit %d, %s", args, code, stderr)
		}
		for _, c := range []struct{ path, want string }{
			{cut, fmt.Sprintf("offset %d", aheadMin+12345)},
			{flipped, "checksum mismatch"},
		} {
			_, stderr, code := run(t, nil, append(args, c.path)...)
			if code != 1 || !strings.Contains(stderr, c.path) || !strings.Contains(stderr, c.want) {
				t.Errorf("%v of %s: exit %d, %q; want 1 and a message naming it and %q", args, filepath.Base(c.path), code, stderr, c.want)
			}
		}
	}
}

// writeLargeRDB writes an RDB of string keys of at least size bytes.
func writeLargeRDB(t *testing.T, path string, size int) {
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := rdbio.NewWriter(f, rdbio.Header{Magic: "REDIS0011", Version: 11})
	if err != nil {
		t.Fatal(err)
	}
	value := []byte(strings.Repeat("0123456789abcdef", 64))
	for i := 0; w.Written() < int64(size); i++ {
		w.Write([]byte{rdbio.TypeString})
		w.WriteString(fmt.Appendf(nil, "key:%d", i))
		w.WriteString(value)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}
