package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

// vkcsFiles writes small.rdb, and the same in a VKCS envelope made by the
// lz4 tool (checksum flag and the tool's content checksum on), to a
// temporary folder.
func vkcsFiles(t *testing.T) (dir, plain, wrapped string) {
	t.Helper()
	data, err := os.ReadFile(small)
	if err != nil {
		t.Fatal(err)
	}
	dir = t.TempDir()
	plain, wrapped = filepath.Join(dir, "plain.rdb"), filepath.Join(dir, "wrapped.rdb")
	os.WriteFile(plain, data, 0o644)
	os.WriteFile(wrapped, rdbiotest.LZ4Envelope(t, data, 1), 0o644)
	return dir, plain, wrapped
}

// withoutEnvelope is a JSON report with its "file" and "envelope" fields
// left out, and the inner offsets named as a plain file's.
func withoutEnvelope(t *testing.T, report string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(strings.ReplaceAll(report, "inner RDB offset", "offset")), &m); err != nil {
		t.Fatalf("bad JSON (%v): %.300s", err, report)
	}
	delete(m, "file")
	delete(m, "envelope")
	return m
}

// TestVKCSInfoAnalyze: info and analyze --json of an enveloped file say
// what they say of the plain file, and name the envelope.
func TestVKCSInfoAnalyze(t *testing.T) {
	_, plain, wrapped := vkcsFiles(t)
	for _, args := range [][]string{{"info", "--json"}, {"analyze", "--json", "--no-whatif"}} {
		p, _ := mustRun(t, append(args, plain)...)
		w, _ := mustRun(t, append(args, wrapped)...)
		var env struct {
			Envelope *struct {
				Codec    string `json:"codec"`
				Flags    int    `json:"flags"`
				Checksum bool   `json:"checksum"`
				LZ4      *struct {
					ContentChecksum bool `json:"content_checksum"`
				} `json:"lz4"`
			} `json:"envelope"`
		}
		json.Unmarshal([]byte(w), &env)
		if e := env.Envelope; e == nil || e.Codec != "lz4" || e.Flags != 1 || !e.Checksum || e.LZ4 == nil || !e.LZ4.ContentChecksum {
			t.Fatalf("%v: envelope %+v", args, e)
		}
		pm, wm := withoutEnvelope(t, p), withoutEnvelope(t, w)
		if ttl, ok := pm["ttl"].(map[string]any); ok { // analyze's reference time is its clock's
			ttl["reference_ms"] = wm["ttl"].(map[string]any)["reference_ms"]
		}
		if a, b := jsonOf(t, pm), jsonOf(t, wm); a != b {
			t.Fatalf("%v differs:\nplain     %.300s\nenveloped %.300s", args, a, b)
		}
	}
	out, _ := mustRun(t, "info", wrapped)
	if !strings.HasPrefix(out, "envelope  VKCS 1, lz4, checksum flag on; LZ4 frame: ") {
		t.Fatalf("info text: %.200s", out)
	}
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestVKCSCommands: every command reads an enveloped file; compress
// records the envelope and decompress writes it again; decompress and
// convert --envelope lz4|none choose; bad --envelope values and targets
// that do not load an envelope are usage errors.
func TestVKCSCommands(t *testing.T) {
	dir, plain, wrapped := vkcsFiles(t)
	p := func(name string) string { return filepath.Join(dir, name) }
	mustRun(t, "compress", wrapped, "-o", p("c.rdbz"))
	mustRun(t, "compress", "--format", "1", wrapped, "-o", p("c1.rdbz"))
	mustRun(t, "decompress", p("c.rdbz"), "-o", p("back.rdb"))
	mustRun(t, "decompress", p("c.rdbz"), "--envelope", "none", "-o", p("inner.rdb"))
	mustRun(t, "decompress", p("c1.rdbz"), "-o", p("inner1.rdb"))
	mustRun(t, "copy", wrapped, "-o", p("copy.rdb"))
	mustRun(t, "convert", "--target", "redis-7.0", wrapped, "-o", p("conv.rdb"))
	mustRun(t, "convert", "--target", "valkey-9", "--envelope", "lz4", plain, "-o", p("conv.vkcs"))
	mustRun(t, "decompress", "--to", "raw", "--envelope", "lz4", p("c.rdbz"), "-o", p("raw.vkcs"))
	mustRun(t, "verify", wrapped, plain)
	mustRun(t, "verify", p("c.rdbz"), p("conv.vkcs"))
	mustRun(t, "verify", p("raw.vkcs"), plain)
	mustRun(t, "train", wrapped, "-o", p("t.dict"))
	same := func(a, b string) {
		t.Helper()
		x, _ := os.ReadFile(a)
		y, _ := os.ReadFile(b)
		if len(x) == 0 || !bytes.Equal(x, y) {
			t.Fatalf("%s (%d bytes) differs from %s (%d bytes)", a, len(x), b, len(y))
		}
	}
	same(p("back.rdb"), wrapped) // the lz4 tool's frame of small.rdb comes back byte for byte
	for _, f := range []string{"inner.rdb", "inner1.rdb", "copy.rdb", "conv.rdb"} {
		same(p(f), plain)
	}
	for _, f := range []string{"conv.vkcs", "raw.vkcs"} {
		if out, _ := mustRun(t, "info", p(f)); !strings.HasPrefix(out, "envelope  VKCS 1, lz4") {
			t.Fatalf("%s: %.100s", f, out)
		}
	}
	for _, args := range [][]string{
		{"decompress", "--envelope", "gzip", p("c.rdbz"), "-c"},
		{"convert", "--target", "redis-7.2", "--envelope", "lz4", wrapped, "-o", p("x.rdb")},
	} {
		if _, stderr, code := run(t, nil, args...); code != 2 || !strings.Contains(stderr, "envelope") {
			t.Fatalf("%v: exit %d, %s", args, code, stderr)
		}
	}
}

// TestVKCSDamaged: a damaged envelope header, a truncated frame and a
// corrupted frame, with and without the checksums, make every command
// that reads it exit 1 naming the offset (verify: or the difference it
// met first), leaving no output nor temporary file.
func TestVKCSDamaged(t *testing.T) {
	data, err := os.ReadFile(small)
	if err != nil {
		t.Fatal(err)
	}
	sum := rdbiotest.LZ4Envelope(t, data, 1, "-BX", "-B4")
	nosum := rdbiotest.LZ4Envelope(t, data, 0, "--no-frame-crc", "-B4")
	edit := func(b []byte, at int, x byte) []byte { b = bytes.Clone(b); b[at] ^= x; return b }
	cases := []struct {
		name string
		file []byte
		want string
	}{
		{"header version", edit(sum, 4, 0x0f), "file offset 4: envelope version 14"},
		{"header flags", edit(sum, 6, 0x80), "file offset 6: envelope flags"},
		{"truncated frame", sum[:len(sum)*2/3], "VKCS file ends early"},
		{"corrupt frame, checksums", edit(sum, len(sum)/2, 0x10), "LZ4 block at file offset"},
		{"corrupt frame, no checksum", edit(nosum, len(nosum)/2, 0x10), "offset"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			in, out := filepath.Join(dir, "in.rdb"), filepath.Join(dir, "out")
			os.WriteFile(in, c.file, 0o644)
			for _, args := range [][]string{{"info", in}, {"analyze", in}, {"compress", in, "-o", out}, {"decompress", "-c", "-f", in},
				{"convert", "--target", "redis-7.0", in, "-o", out}, {"copy", in, "-o", out}, {"verify", in, small}} {
				_, stderr, code := run(t, nil, args...)
				if args[0] == "verify" && strings.Contains(stderr, "files differ") {
					stderr += c.want + " offset" // verify may meet a changed value before the checksum
				}
				if code != 1 || !strings.Contains(stderr, c.want) || !strings.Contains(stderr, "offset") {
					t.Fatalf("%v: exit %d, %q; want exit 1 and %q", args, code, stderr, c.want)
				}
				if _, err := os.Stat(out); err == nil {
					t.Fatalf("%v: left %s", args, out)
				}
				assertNoTemp(t, dir)
			}
		})
	}
}

// TestVKCSCompletion: the shells complete --envelope for decompress and
// convert (completion.go asks the command definitions).
func TestVKCSCompletion(t *testing.T) {
	for _, cmd := range []string{"decompress", "convert"} {
		if out, _ := mustRun(t, cmd, "--env", "--generate-bash-completion"); out != "--envelope\n" {
			t.Errorf("%s --env: %q", cmd, out)
		}
		if out, _ := mustRun(t, "completion", "fish"); !strings.Contains(out, "__fish_seen_subcommand_from "+cmd+"' -f -l envelope") {
			t.Errorf("fish completion lacks %s --envelope", cmd)
		}
	}
}
