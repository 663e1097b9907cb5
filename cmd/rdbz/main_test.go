package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

var rdbzBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "rdbz-test-")
	if err != nil {
		panic(err)
	}
	rdbzBin = filepath.Join(dir, "rdbz")
	// As README.md builds it (buildTags), and without cgo: rdbz needs
	// none, and a static binary starts some 5 ms sooner, over the suite's
	// thousands of runs.
	build := exec.Command("go", "build", "-tags", buildTags, "-o", rdbzBin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		panic("go build: " + err.Error() + "\n" + string(out))
	}
	code := rdbiotest.Main(m) // m.Run, then the judges' servers stop
	os.RemoveAll(dir)
	os.Exit(code)
}

// run runs rdbz with stdin and returns stdout, stderr and the exit code.
func run(t *testing.T, stdin []byte, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(rdbzBin, args...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

const small = "../../testdata/small.rdb"

type infoJSON struct {
	Magic    string `json:"magic"`
	Version  int    `json:"version"`
	Keys     int64  `json:"keys"`
	Checksum string `json:"checksum"`
	DBs      []struct {
		DB, Keys, Expires int64
	} `json:"dbs"`
	Types map[string]struct{ Keys, Bytes int64 } `json:"types"`
}

// TestInfoJSONCorpus: info --json exits 0 on every file that is not corrupt
// by design and counts the key records a replica-mode redis-server counts;
// analyze --json holds the same fields and exits the same way. One info
// reads every file (an array, each object naming its file; stderr names
// each file that fails): a run per file spent most of its time starting.
func TestInfoJSONCorpus(t *testing.T) {
	files := rdbiotest.Sweep(t)
	args := []string{"info", "--json"}
	for _, cf := range files {
		args = append(args, cf.Path)
	}
	out, stderr, code := run(t, nil, args...)
	var all []struct {
		File string `json:"file"`
		infoJSON
	}
	if err := json.Unmarshal([]byte(out), &all); err != nil {
		t.Fatalf("bad JSON (%v): %.500s", err, out)
	}
	if (code == 0) != (stderr == "") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	byFile := map[string]infoJSON{}
	for _, r := range all {
		byFile[r.File] = r.infoJSON
	}
	for _, cf := range files {
		t.Run(cf.Name, func(t *testing.T) {
			info := byFile[cf.Path] // zero when info could not open it: stderr says why
			code, failure := 0, linesNaming(stderr, cf.Path)
			if failure != "" {
				code = 1
			}
			analyzeHasInfo(t, cf.Path, info, code)
			if code != 0 {
				if cf.CorruptByDesign() || strings.Contains(failure, "checksum mismatch") {
					t.Logf("refused: %s", failure)
					if info.Checksum == "ok" {
						t.Fatalf("refused but checksum ok")
					}
					return
				}
				t.Fatalf("refused: %s", failure)
			}
			if info.Magic == "" || info.Version == 0 || info.Checksum == "" || info.Types == nil {
				t.Fatalf("missing fields: %+v", info)
			}
			var sum int64
			for _, d := range info.DBs {
				sum += d.Keys
			}
			if sum != info.Keys {
				t.Fatalf("dbs add up to %d keys, total says %d", sum, info.Keys)
			}
			if want, err := strconv.ParseInt(cf.Fields["file_keys"], 10, 64); err == nil && cf.RedisLoads() && !cf.CorruptByDesign() && info.Keys != want {
				t.Fatalf("keys %d, manifest file_keys %d", info.Keys, want)
			}
		})
	}
}

// linesNaming are the lines of s that name path (followed by a colon).
func linesNaming(s, path string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, path+":") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

func TestInfoErrors(t *testing.T) {
	data, err := os.ReadFile(small)
	if err != nil {
		t.Fatal(err)
	}
	flipped := bytes.Clone(data)
	flipped[len(flipped)/2] ^= 0x40
	cases := []struct {
		name  string
		input []byte
		want  string
	}{
		{"truncated", data[:len(data)/2], "offset"},
		{"flipped", flipped, "rdb: offset"},
		{"not rdb", []byte("hello world, not an RDB"), "not an RDB file"},
		{"empty", nil, "not an RDB file"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, stderr, code := run(t, append([]byte{}, c.input...), "info", "-")
			if code != 1 || !strings.Contains(stderr, c.want) {
				t.Fatalf("exit %d, stderr %q; want exit 1 and %q", code, stderr, c.want)
			}
		})
	}
}

// testDict is a fixed dictionary (testdata/make-test-dict.sh) for the tests
// whose subject is not the dictionary: with it, compress does not train.
const testDict = "../../testdata/test.dict"

// smallCompressed is testdata/small.rdb compressed (format 2, testDict),
// in t's temporary folder.
func smallCompressed(t *testing.T) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "small.rdbz")
	mustRun(t, "compress", "--dict", testDict, "-o", out, small)
	return out
}

// TestPipeEqualsFiles: cat X | compress -o - - | decompress -o - - gives the
// same bytes as the file-to-file path (and X itself): training from the
// stream (as compress --stream) on the small file, with the fixed test
// dictionary on the larger one.
func TestPipeEqualsFiles(t *testing.T) {
	for _, tc := range []struct {
		in   string
		opts []string // of compress, both ways
	}{
		{small, []string{"--stream"}},
		{filepath.Join(rdbiotest.Shared(), "corpus", "generated", "mixed-all-types.rdb"), []string{"--dict", testDict}},
	} {
		in := tc.in
		data, err := os.ReadFile(in)
		if err != nil {
			t.Skipf("%v", err)
		}
		dir := t.TempDir()
		c, d := filepath.Join(dir, "c.rdb"), filepath.Join(dir, "d.rdb")
		for _, args := range [][]string{append(append([]string{"compress"}, tc.opts...), "-o", c, in), {"decompress", "-o", d, c}} {
			if _, stderr, code := run(t, nil, args...); code != 0 {
				t.Fatalf("%v: exit %d: %s", args, code, stderr)
			}
		}
		comp, _, code := run(t, data, append(append([]string{"compress"}, tc.opts...), "-o", "-", "-")...)
		if code != 0 {
			t.Fatalf("compress from stdin: exit %d", code)
		}
		fileComp, _ := os.ReadFile(c)
		if comp != string(fileComp) {
			t.Fatalf("%s: compress %v via pipe (%d bytes) differs from the file's (%d bytes)", in, tc.opts, len(comp), len(fileComp))
		}
		back, _, code := run(t, []byte(comp), "decompress", "-o", "-", "-")
		fileBack, _ := os.ReadFile(d)
		if code != 0 || back != string(fileBack) || back != string(data) {
			t.Fatalf("%s: decompress via pipe: exit %d, equal to file path: %v, to input: %v", in, code, back == string(fileBack), back == string(data))
		}
	}
}

func TestOutputSafety(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.rdb")
	data, _ := os.ReadFile(small)
	os.WriteFile(in, data, 0o644)
	out := filepath.Join(dir, "out.rdb")
	os.WriteFile(out, []byte("keep me"), 0o644)
	bad := filepath.Join(dir, "bad.rdb")
	os.WriteFile(bad, data[:len(data)-100], 0o644)
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"out is in", []string{"compress", "-o", in, in}, "is the input"},
		{"out exists", []string{"compress", "-o", out, in}, "exists"},
		{"corrupt input", []string{"compress", "-f", "-o", out, bad}, "offset"},
		{"missing dict", []string{"compress", "--dict", filepath.Join(dir, "nope.dict"), "-f", "-o", out, in}, "nope.dict"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, stderr, code := run(t, nil, c.args...)
			if code != 1 || !strings.Contains(stderr, c.want) {
				t.Fatalf("exit %d, stderr %q; want exit 1 and %q", code, stderr, c.want)
			}
			if got, _ := os.ReadFile(out); string(got) != "keep me" {
				t.Fatal("existing output was changed")
			}
			if got, _ := os.ReadFile(in); !bytes.Equal(got, data) {
				t.Fatal("input was changed")
			}
			assertNoTemp(t, dir)
		})
	}
}

func assertNoTemp(t *testing.T, dir string) {
	t.Helper()
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Fatalf("temporary file left behind: %s", e.Name())
		}
	}
}

// buildTags are the tags README.md builds rdbz with: urfave_cli_no_docs
// leaves out urfave/cli's markdown and man page writers, which rdbz does
// not use (man.go writes its page) and whose markdown parser's package
// initialisation cost every run 5 ms and 100 page faults (perf stat of
// rdbz --version: 20.6 ms of CPU with them, 14.9 without).
const buildTags = "urfave_cli_no_docs"

// TestReadmeBuildsWithTags: the binary the tests run is the one README.md
// tells a user to build.
func TestReadmeBuildsWithTags(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if want := "go build -tags " + buildTags + " -o rdbz ./cmd/rdbz"; !strings.Contains(string(b), want) {
		t.Fatalf("README.md does not build with %q", want)
	}
}
