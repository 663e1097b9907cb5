package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// The conventions of zstd and gzip the command line follows (docs/cli.md),
// one test each.

// copyInput puts testdata/small.rdb in a fresh folder as name.
func copyInput(t *testing.T, name string) (dir, path string, data []byte) {
	t.Helper()
	data, err := os.ReadFile(small)
	if err != nil {
		t.Fatal(err)
	}
	dir = t.TempDir()
	path = filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, path, data
}

// mustRun runs rdbz and fails unless it exits 0.
func mustRun(t *testing.T, args ...string) (string, string) {
	t.Helper()
	stdout, stderr, code := run(t, nil, args...)
	if code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, stderr)
	}
	return stdout, stderr
}

func TestMoveFlagsFirst(t *testing.T) {
	flags := append(compressCommand().Flags, commonFlags()...)
	for _, c := range []struct{ in, want []string }{
		{[]string{"dump.rdb", "-o", "out"}, []string{"-o", "out", "dump.rdb"}},
		{[]string{"dump.rdb", "--level", "3", "-f"}, []string{"--level", "3", "-f", "dump.rdb"}},
		{[]string{"dump.rdb", "--level=3", "x"}, []string{"--level=3", "dump.rdb", "x"}},
		{[]string{"--workers", "-1", "dump.rdb"}, []string{"--workers", "-1", "dump.rdb"}},
		{[]string{"-", "-c"}, []string{"-c", "-"}},
		{[]string{"-o", "-", "a"}, []string{"-o", "-", "a"}},
		{[]string{"-o", "out", "--", "-dash.rdb", "-f"}, []string{"-o", "out", "--", "-dash.rdb", "-f"}},
		{[]string{"a", "--no-such", "b"}, []string{"--no-such", "a", "b"}},
		{[]string{"a", "-qfo", "out", "-cf"}, []string{"-qfo", "out", "-cf", "a"}},
		{[]string{"a", "-7", "-f"}, []string{"--level=7", "-f", "a"}},
		{[]string{"-19", "a", "--workers", "-1"}, []string{"--level=19", "--workers", "-1", "a"}},
		{[]string{"a", "--match=-x*"}, []string{"--match=-x*", "a"}},
		{[]string{"a", "-T2", "-T0"}, []string{"-T", "2", "-T", "0", "a"}},
		{[]string{"-Tx", "a"}, []string{"-Tx", "a"}},
	} {
		got, err := moveFlagsFirst(flags, c.in)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q: got %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	// A value flag at the end, or before another flag or "--", has lost
	// its value: a usage error, never the next argument as its value.
	for _, in := range [][]string{
		{"a", "-o"}, {"a", "-f", "-o"}, {"-o", "-f", "a"}, {"-o", "--", "a"}, {"a", "-qfo"},
		{"-qfo", "-c", "a"}, {"--output", "-q", "a"}, {"a", "--level"}, {"--level", "-q", "a"},
		{"--match", "-x*", "a"}, {"-o", "-7", "a"}, {"a", "--workers"},
	} {
		if got, err := moveFlagsFirst(flags, in); err == nil || !isUsage(err) {
			t.Errorf("%q: got %q, %v; want a usage error", in, got, err)
		}
	}
}

// TestFlagsAfterArguments: flags may follow the input; "--" ends them.
func TestFlagsAfterArguments(t *testing.T) {
	dir, in, data := copyInput(t, "-dash.rdb")
	out := filepath.Join(dir, "out.rdbz")
	mustRun(t, "compress", in, "-o", out, "--dict", testDict)
	if _, stderr := mustRun(t, "compress", in, "-qfo", out, "--dict", testDict); stderr != "" {
		t.Fatalf("compress IN -qfo OUT: %q on stderr", stderr)
	}
	back, _ := mustRun(t, "decompress", out, "-c")
	if back != string(data) {
		t.Fatal("decompress OUT -c did not give the input back")
	}
	cmd := exec.Command(rdbzBin, "info", "--json", "--", filepath.Base(in))
	cmd.Dir = dir
	if b, err := cmd.Output(); err != nil || !bytes.Contains(b, []byte(`"checksum": "ok"`)) {
		t.Fatalf("info -- -dash.rdb: %v: %s", err, b)
	}
}

func TestDecompressedName(t *testing.T) {
	for in, want := range map[string]string{
		"dump.rdb.rdbz": "dump.rdb", "d/x.rdbz": "d/x", "x.bin": "x.rdb", "noext": "noext.rdb",
		"d/.rdbz": "d/.rdb", "x.rdb": "",
	} {
		got, err := decompressedName(in)
		if got != want || (want == "") != (err != nil) {
			t.Errorf("%s: got %q, %v; want %q", in, got, err, want)
		}
	}
}

// TestDefaultNames: compress FILE writes FILE.rdbz and decompress
// FILE.rdbz writes FILE, both keeping the input; a name without .rdbz
// decompresses to FILE.rdb, or is refused when that is the input.
func TestDefaultNames(t *testing.T) {
	dir, in, data := copyInput(t, "x.rdb")
	mustRun(t, "compress", "--dict", testDict, in)
	comp := in + ".rdbz"
	compData, err := os.ReadFile(comp)
	if err != nil {
		t.Fatalf("compress FILE did not write FILE.rdbz: %v", err)
	}
	if got, _ := os.ReadFile(in); !bytes.Equal(got, data) {
		t.Fatal("compress changed or removed its input")
	}
	if _, stderr, code := run(t, nil, "decompress", comp); code != 1 || !strings.Contains(stderr, "exists") {
		t.Fatalf("decompress onto an existing FILE: exit %d, %q; want exit 1, exists", code, stderr)
	}
	mustRun(t, "decompress", "-f", comp)
	if got, _ := os.ReadFile(in); !bytes.Equal(got, data) {
		t.Fatal("decompress FILE.rdbz did not write FILE")
	}
	other := filepath.Join(dir, "y.bin")
	os.WriteFile(other, compData, 0o644)
	mustRun(t, "decompress", other)
	if got, _ := os.ReadFile(filepath.Join(dir, "y.rdb")); !bytes.Equal(got, data) {
		t.Fatal("decompress y.bin did not write y.rdb")
	}
	same := filepath.Join(dir, "z.rdb")
	os.WriteFile(same, compData, 0o644)
	if _, stderr, code := run(t, nil, "decompress", same); code != 2 || !strings.Contains(stderr, "-o OUT") {
		t.Fatalf("decompress z.rdb: exit %d, %q; want exit 2 asking for -o", code, stderr)
	}
	if _, stderr, code := run(t, nil, "copy", in); code != 2 || !strings.Contains(stderr, "-o OUT") {
		t.Fatalf("copy FILE: exit %d, %q; want exit 2 asking for -o or -c", code, stderr)
	}
}

// TestStdout: -c writes to stdout what -o FILE writes, and no file; with no
// input named, stdin goes to stdout.
func TestStdout(t *testing.T) {
	dir, in, data := copyInput(t, "x.rdb")
	stdout, _ := mustRun(t, "compress", "-c", "--dict", testDict, in)
	mustRun(t, "compress", "-o", filepath.Join(dir, "f.rdbz"), "--dict", testDict, in)
	if f, _ := os.ReadFile(filepath.Join(dir, "f.rdbz")); stdout != string(f) {
		t.Fatal("-c and -o FILE differ")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Fatalf("-c wrote a file: %v", ents)
	}
	back, stderr, code := run(t, []byte(stdout), "decompress")
	if code != 0 || back != string(data) {
		t.Fatalf("decompress stdin to stdout: exit %d (%s), same: %v", code, stderr, back == string(data))
	}
	if _, stderr, code := run(t, nil, "compress", "-c", "-o", filepath.Join(dir, "g"), in); code != 2 {
		t.Fatalf("-c with -o FILE: exit %d (%s), want 2", code, stderr)
	}
}

// TestRm: --rm removes the input once the output is in place, and only
// then.
func TestRm(t *testing.T) {
	dir, in, data := copyInput(t, "x.rdb")
	mustRun(t, "compress", "--rm", "--dict", testDict, in)
	if _, err := os.Stat(in); !os.IsNotExist(err) {
		t.Fatalf("compress --rm kept the input: %v", err)
	}
	mustRun(t, "decompress", "--rm", in+".rdbz")
	if got, _ := os.ReadFile(in); !bytes.Equal(got, data) {
		t.Fatal("decompress --rm did not give the input back")
	}
	if _, err := os.Stat(in + ".rdbz"); !os.IsNotExist(err) {
		t.Fatalf("decompress --rm kept the input: %v", err)
	}
	bad := filepath.Join(dir, "bad.rdb")
	os.WriteFile(bad, data[:len(data)/2], 0o644)
	if _, _, code := run(t, nil, "compress", "--rm", "--dict", testDict, bad); code != 1 {
		t.Fatalf("compress --rm of a truncated file: exit %d, want 1", code)
	}
	if _, err := os.Stat(bad); err != nil {
		t.Fatalf("a failed compress --rm removed its input: %v", err)
	}
	for _, args := range [][]string{{"--rm", "-c", in}, {"--rm", "-f", "-o", os.DevNull, in}} {
		if _, stderr, code := run(t, nil, append([]string{"compress", "--dict", testDict}, args...)...); code != 2 {
			t.Errorf("compress %v: exit %d (%s), want 2", args, code, stderr)
		}
		if _, err := os.Stat(in); err != nil {
			t.Fatalf("compress %v removed its input: %v", args, err)
		}
	}
	assertNoTemp(t, dir)
}

// TestQuietVerbose: -q prints no summary; -v names the files and phases.
func TestQuietVerbose(t *testing.T) {
	dir, in, _ := copyInput(t, "x.rdb")
	if _, stderr := mustRun(t, "compress", "-q", in); stderr != "" {
		t.Fatalf("compress -q printed %q", stderr)
	}
	_, stderr := mustRun(t, "compress", "-v", "-o", filepath.Join(dir, "v.rdbz"), in)
	if !regexp.MustCompile(`x\.rdb -> .*v\.rdbz; compressing [0-9.]+s`).MatchString(stderr) {
		t.Fatalf("compress -v: %q", stderr)
	}
}

// TestNumericFlagsChecked: every numeric flag of every command has a
// check, except those any value of is valid.
func TestNumericFlagsChecked(t *testing.T) {
	anyValue := map[string]bool{"seed": true}
	for _, cmd := range newApp().Commands {
		for _, f := range cmd.Flags {
			var checked bool
			switch f := f.(type) {
			case *cli.IntFlag:
				checked = f.Action != nil
			case *cli.Int64Flag:
				checked = f.Action != nil
			case *cli.UintFlag:
				checked = f.Action != nil
			case *cli.Float64Flag:
				checked = f.Action != nil
			default:
				continue
			}
			if !checked && !anyValue[f.Names()[0]] {
				t.Errorf("%s --%s: no check of its value", cmd.Name, f.Names()[0])
			}
		}
	}
}

// TestVersion: --version and -V print the module version and the VCS
// revision this binary was built with.
func TestVersion(t *testing.T) {
	info, err := exec.Command("go", "version", "-m", rdbzBin).Output()
	if err != nil {
		t.Skipf("go version -m: %v", err)
	}
	mod := regexp.MustCompile(`(?m)^\s+mod\s+github.com/rdbz/rdbz\s+(\S+)`).FindSubmatch(info)
	if mod == nil {
		t.Fatalf("no main module in %s", info)
	}
	want := "rdbz " + string(mod[1]) + " "
	if rev := regexp.MustCompile(`vcs\.revision=(\S+)`).FindSubmatch(info); rev != nil {
		want += "(revision " + string(rev[1])
	} else {
		want += "(no VCS revision"
	}
	for _, flag := range []string{"--version", "-V"} {
		if stdout, _ := mustRun(t, flag); !strings.HasPrefix(stdout, want) || strings.Count(stdout, "\n") != 1 {
			t.Errorf("%s: %q, want it to start with %q", flag, stdout, want)
		}
	}
}

// TestCompletion: a script for each shell, and the candidates it asks
// rdbz for.
func TestCompletion(t *testing.T) {
	for shell, want := range map[string]string{
		"bash": "complete -o bashdefault -o default -F _rdbz_bash_autocomplete rdbz",
		"zsh":  "compdef _rdbz_zsh_autocomplete rdbz",
		"fish": "complete -c rdbz -n '__fish_seen_subcommand_from compress' -f -l level",
	} {
		if stdout, _ := mustRun(t, "completion", shell); !strings.Contains(stdout, want) {
			t.Errorf("completion %s does not hold %q", shell, want)
		}
	}
	if stdout, _ := mustRun(t, "--generate-bash-completion"); !strings.Contains(stdout, "\ndecompress\n") ||
		!strings.Contains(stdout, "\nsplit\n") || !strings.Contains(stdout, "\nmerge\n") {
		t.Errorf("command candidates: %q", stdout)
	}
	if stdout, _ := mustRun(t, "compress", small, "--le", "--generate-bash-completion"); stdout != "--level\n" {
		t.Errorf("flag candidates for --le: %q", stdout)
	}
}

// TestManPageUpToDate: cmd/rdbz/rdbz.1 is what rdbz man prints (go generate
// ./cmd/rdbz).
func TestManPageUpToDate(t *testing.T) {
	page, _ := mustRun(t, "man")
	file, err := os.ReadFile("rdbz.1")
	if err != nil {
		t.Fatal(err)
	}
	if page != string(file) || !strings.Contains(page, ".SS compress") {
		t.Fatal("cmd/rdbz/rdbz.1 is not rdbz man's output: run go generate ./cmd/rdbz")
	}
}

// TestManPageRenders: groff reads the page without a warning, and the
// rendered page has a usage line per command, EXIT STATUS and EXAMPLES,
// the help's backslashes, and numeric flags with their value and default.
func TestManPageRenders(t *testing.T) {
	if _, err := exec.LookPath("groff"); err != nil {
		t.Skip("groff is not installed (apt-get install groff-base)")
	}
	page, _ := mustRun(t, "man")
	check := exec.Command("groff", "-man", "-Tutf8", "-ww", "-z")
	check.Stdin = strings.NewReader(page)
	if out, err := check.CombinedOutput(); err != nil || len(out) > 0 {
		t.Fatalf("groff warns: %v\n%s", err, out)
	}
	render := exec.Command("groff", "-man", "-Tascii", "-P-c", "-P-b", "-P-u", "-rLL=200n")
	render.Stdin = strings.NewReader(page)
	out, err := render.Output()
	if err != nil {
		t.Fatal(err)
	}
	text := string(out)
	app := newApp()
	for _, c := range app.VisibleCommands() {
		if want := "rdbz " + c.Name + " [OPTIONS] " + c.ArgsUsage; !strings.Contains(text, strings.TrimSpace(want)) {
			t.Errorf("no usage line %q", want)
		}
	}
	for _, want := range []string{"EXIT STATUS", "EXAMPLES", `[a-z] \x)`, "--shards N", "(default: 16777216)", "130"} {
		if !strings.Contains(text, want) {
			t.Errorf("the rendered page lacks %q", want)
		}
	}
	if strings.Contains(text, `=""`) {
		t.Error(`the rendered page shows a value as =""`)
	}
}

// TestInfoSeveral: info reports each input in turn; --json is an array
// for several; a file that fails does not stop the others.
func TestInfoSeveral(t *testing.T) {
	stdout, _ := mustRun(t, "info", small, small)
	if n := strings.Count(stdout, "==> "+small+" <==\n"); n != 2 {
		t.Fatalf("%d headers in %q", n, stdout)
	}
	stdout, _ = mustRun(t, "info", "--json", small, small)
	var all []struct {
		File     string `json:"file"`
		Checksum string `json:"checksum"`
	}
	if err := json.Unmarshal([]byte(stdout), &all); err != nil || len(all) != 2 || all[1].File != small || all[1].Checksum != "ok" {
		t.Fatalf("info --json A B: %v, %+v", err, all)
	}
	stdout, stderr, code := run(t, nil, "info", filepath.Join(t.TempDir(), "nope.rdb"), small)
	if code != 1 || !strings.Contains(stderr, "nope.rdb") || !strings.Contains(stdout, "checksum  ok") {
		t.Fatalf("info MISSING A: exit %d, stderr %q, stdout %q", code, stderr, stdout)
	}
	// A damaged input is named once in its line, as when it is alone.
	cut := filepath.Join(t.TempDir(), "cut.rdb")
	os.WriteFile(cut, []byte("REDIS0011\xfe"), 0o644)
	_, stderr, code = run(t, nil, "info", small, cut)
	if line, _, _ := strings.Cut(stderr, "\n"); code != 1 || strings.Count(line, cut) != 1 || !strings.Contains(line, "offset") {
		t.Fatalf("info A DAMAGED: exit %d, stderr %q; want the damaged file named once, with the offset", code, stderr)
	}
}

// TestInfoTrailingAndTruncated: info shows the bytes after the trailer in
// text and JSON, and a checksum it did not reach as not checked.
func TestInfoTrailingAndTruncated(t *testing.T) {
	dir, in, data := copyInput(t, "x.rdb")
	os.WriteFile(in, append(bytes.Clone(data), make([]byte, 40)...), 0o644)
	stdout, _ := mustRun(t, "info", in)
	want := regexp.MustCompile(`(?m)^bytes +` + strconv.Itoa(len(data)+40) + `: RDB ` + strconv.Itoa(len(data)) + `, then 40 bytes after the EOF trailer$`)
	if !want.MatchString(stdout) {
		t.Fatalf("info of a file with 40 trailing bytes:\n%s", stdout)
	}
	if stdout, _ := mustRun(t, "info", "--json", in); !strings.Contains(stdout, `"trailing_bytes": 40`) {
		t.Fatalf("info --json: no trailing_bytes 40")
	}
	withTail := append(bytes.Clone(data), make([]byte, 40)...)
	if stdout, _, code := run(t, withTail, "info", "--json"); code != 0 || !strings.Contains(stdout, `"trailing_bytes": 40`) {
		t.Fatalf("info --json from stdin: exit %d, no trailing_bytes 40", code)
	}
	cut := filepath.Join(dir, "cut.rdb")
	os.WriteFile(cut, data[:8000], 0o644)
	stdout, _, code := run(t, nil, "info", cut)
	if code != 1 || !strings.Contains(stdout, "checksum  not checked: truncated at offset 8000\n") {
		t.Fatalf("info of a truncated file: exit %d\n%s", code, stdout)
	}
	if stdout, _, _ := run(t, nil, "info", "--json", cut); !strings.Contains(stdout, `"checksum": "unchecked"`) {
		t.Fatalf("info --json of a truncated file:\n%s", stdout)
	}
}

// TestPathErrors: a folder as input says so; a missing output folder is
// named with the output, never a temporary file.
func TestPathErrors(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{{"info", dir}, {"compress", "-o", filepath.Join(dir, "o"), dir}, {"verify", small, dir}} {
		if _, stderr, code := run(t, nil, args...); code != 1 || !strings.Contains(stderr, dir+": is a directory") {
			t.Errorf("%v: exit %d, %q; want 1 and that it is a directory", args, code, stderr)
		}
	}
	out := filepath.Join(dir, "no", "such", "x.rdbz")
	_, stderr, code := run(t, nil, "compress", "-o", out, small)
	if code != 1 || !strings.Contains(stderr, out) || strings.Contains(stderr, ".tmp") {
		t.Fatalf("missing output folder: exit %d, %q", code, stderr)
	}
}

// TestKeepAndThreads: zstd's -k (keep, the default) and -T (workers, 0 for
// the default) are accepted; -k with --rm is a usage error.
func TestKeepAndThreads(t *testing.T) {
	dir, in, _ := copyInput(t, "x.rdb")
	mustRun(t, "compress", "-k", "-T", "0", "--dict", testDict, in)
	if _, err := os.Stat(in); err != nil {
		t.Fatalf("compress -k removed its input: %v", err)
	}
	mustRun(t, "decompress", "-T", "1", "-c", in+".rdbz")
	if _, stderr, code := run(t, nil, "compress", "-k", "--rm", "-f", "--dict", testDict, in); code != 2 || strings.Count(stderr, "\n") != 1 {
		t.Fatalf("compress -k --rm: exit %d, stderr %q; want 2 and one line", code, stderr)
	}
	if _, err := os.Stat(in); err != nil {
		t.Fatalf("compress -k --rm removed its input: %v", err)
	}
	assertNoTemp(t, dir)
}
