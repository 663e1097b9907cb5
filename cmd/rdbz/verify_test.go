package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hdt3213/rdb/crc64jones"
	"github.com/klauspost/compress/zstd"
	"github.com/rdbz/rdbz/listcodec/format"
	"github.com/rdbz/rdbz/rdbio"
)

// patched is data with the one occurrence of old replaced by new and the
// CRC64 trailer fixed.
func patched(t *testing.T, data []byte, old, new string) []byte {
	t.Helper()
	if n := bytes.Count(data, []byte(old)); n != 1 {
		t.Fatalf("%q occurs %d times", old, n)
	}
	b := bytes.Replace(data, []byte(old), []byte(new), 1)
	h := crc64jones.New()
	h.Write(b[:len(b)-8])
	binary.LittleEndian.PutUint64(b[len(b)-8:], h.Sum64())
	return b
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// embeddedDict returns the dictionary an rdbz-compressed file embeds.
func embeddedDict(t *testing.T, data []byte) []byte {
	t.Helper()
	r, err := rdbio.NewReader(bytes.NewReader(data), rdbio.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for {
		rec, err := r.Next()
		if err != nil {
			t.Fatalf("no %s AUX field: %v", format.AuxDict, err)
		}
		if rec.Kind == rdbio.KindAux && string(rec.Name) == format.AuxDict {
			return bytes.Clone(rec.Value)
		}
	}
}

// writeTestDict writes a zstd dictionary built from JSON-like samples (the
// tests check verify, not the trainer).
func writeTestDict(t *testing.T, path string) {
	t.Helper()
	var samples [][]byte
	for i := range 400 {
		samples = append(samples, fmt.Appendf(nil, `{"id":%d,"type":"events","user":"user-%d","ts":"2026-11-29T10:%02d:00Z","msg":"something happened to item %d"}`,
			i, i%17, i%60, i))
	}
	b, err := zstd.BuildDict(zstd.BuildDictOptions{ID: 40001, Contents: samples, History: bytes.Join(samples[:40], nil),
		CompatV155: true, Level: zstd.SpeedDefault})
	if err != nil {
		t.Fatalf("BuildDict: %v", err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestVerifyCLI: rdbz verify exits 0 for the same data (also compressed,
// also from stdin) and 1, naming the key, for different data or a bad call.
func TestVerifyCLI(t *testing.T) {
	data, err := os.ReadFile(small)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	dict := filepath.Join(dir, "test.dict")
	writeTestDict(t, dict)
	comp := filepath.Join(dir, "small.rdbz")
	if _, stderr, code := run(t, nil, "compress", "--format", "1", "--dict", dict, "-o", comp, small); code != 0 {
		t.Fatalf("compress: exit %d: %s", code, stderr)
	}
	compData, err := os.ReadFile(comp)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(embeddedDict(t, compData), must(os.ReadFile(dict))) {
		t.Fatal("compress --dict did not embed the dictionary")
	}
	noEmbed := filepath.Join(dir, "small-noembed.rdbz")
	if _, stderr, code := run(t, nil, "compress", "--format", "1", "--dict", dict, "--no-embed", "-o", noEmbed, small); code != 0 {
		t.Fatalf("compress --no-embed: exit %d: %s", code, stderr)
	}
	changed := write("changed.rdb", patched(t, data, "hello, rdbz", "hello, RDBZ"))
	missing := write("missing.rdb", patched(t, data, "\x00\x08greeting\x0bhello, rdbz", ""))
	truncated := write("truncated.rdb", data[:len(data)/2])

	cases := []struct {
		name  string
		stdin []byte
		args  []string
		code  int
		want  string // in stdout (exit 0) or stderr
	}{
		{"same file", nil, []string{small, small}, 0, "same: 12 keys (12 semantic, 0 byte-wise)"},
		{"compressed", nil, []string{small, comp}, 0, "same: 12 keys (12 semantic, 0 byte-wise)"},
		{"stdin", compData, []string{small, "-"}, 0, "same: 12 keys"},
		{"external dictionary", nil, []string{"--dict", dict, noEmbed, small}, 0, "same: 12 keys"},
		{"value", nil, []string{small, changed}, 1, `rdbz: files differ: db 0, key "greeting": value: the string's decoded content differs`},
		{"value, compressed, stdin", compData, []string{"-", changed}, 1, `key "greeting": value`},
		{"missing", nil, []string{comp, missing}, 1, `files differ: db 0, key "greeting": missing in B`},
		{"missing dictionary", nil, []string{noEmbed, small}, 1, "--dict"},
		{"unreadable", nil, []string{small, truncated}, 1, "input B"},
		{"no such file", nil, []string{small, filepath.Join(dir, "nope.rdb")}, 1, "nope.rdb: no such file"},
		{"two stdins", nil, []string{"-", "-"}, 2, "only one input can be -"},
		{"one input", nil, []string{small}, 2, "two inputs"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			stdout, stderr, code := run(t, c.stdin, append([]string{"verify"}, c.args...)...)
			if code != c.code {
				t.Fatalf("exit %d, want %d; stdout %q, stderr %q", code, c.code, stdout, stderr)
			}
			got := stderr
			if code == 0 {
				got = stdout
			}
			if !strings.Contains(got, c.want) {
				t.Fatalf("output %q does not contain %q", got, c.want)
			}
			t.Logf("exit %d: %s", code, strings.TrimSpace(got))
		})
	}
}

// TestFormat2Readers: info, verify and convert read a format-2 file as the
// RDB it holds.
func TestFormat2Readers(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join("..", "..", "testdata", "small.rdb")
	comp := filepath.Join(dir, "small.rdbz")
	if _, stderr, code := run(t, nil, "compress", "-o", comp, small); code != 0 {
		t.Fatalf("compress: exit %d: %s", code, stderr)
	}
	for _, args := range [][]string{{"verify", small, comp}, {"info", comp}, {"convert", "--target", "redis-7.0", "-o", filepath.Join(dir, "c.rdb"), comp}} {
		if _, stderr, code := run(t, nil, args...); code != 0 {
			t.Errorf("%v: exit %d: %s", args, code, stderr)
		}
	}
}
