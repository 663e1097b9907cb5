// Package rdbiotest gives tests the shared corpus of real RDB files and the
// redis-server oracle (../shared beside the checkout), as net/http/httptest
// gives them servers.
package rdbiotest

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Shared is the folder of test inputs and tools the tests use (the corpus
// in Shared()/corpus, the servers and rdb-oracle in Shared()/tools): the
// environment variable RDBZ_SHARED when set, else the folder "shared"
// beside the checkout (the parent of the directory holding go.mod, found
// from the test's working directory, which go test sets to the package's).
// It is the one place the tests learn where these are.
func Shared() string {
	if d := os.Getenv("RDBZ_SHARED"); d != "" {
		return d
	}
	dir, err := os.Getwd()
	if err != nil {
		return "shared"
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return filepath.Join(filepath.Dir(d), "shared")
		}
		if filepath.Dir(d) == d {
			return filepath.Join(filepath.Dir(dir), "shared")
		}
	}
}

// CorpusFile is the path of a file of the shared corpus (elems under
// Shared()/corpus, e.g. "generated", "mixed-all-types.rdb"), or skips the
// test with a clear message when it is absent.
func CorpusFile(t testing.TB, elems ...string) string {
	t.Helper()
	p := filepath.Join(append([]string{Shared(), "corpus"}, elems...)...)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("corpus file not found (%v): this test needs ../shared/corpus beside the checkout", err)
	}
	return p
}

// File is one file of a corpus folder's MANIFEST.tsv.
type File struct {
	Path   string
	Name   string
	Folder string            // "public" or "generated"
	Fields map[string]string // the manifest row by column name
}

// RedisLoads reports whether redis 7.0 loads the file (generated files all do).
func (f File) RedisLoads() bool {
	v, ok := f.Fields["redis70_loads"]
	return !ok || v == "yes"
}

// CorruptByDesign reports files that are deliberately broken test
// fixtures: named so, or refused by redis for a failed integrity check.
func (f File) CorruptByDesign() bool {
	return strings.Contains(f.Name, "corrupt") || strings.Contains(f.Fields["redis70_loads"], "integrity check failed")
}

// Files lists every file of every corpus folder's MANIFEST.tsv, or skips
// the test with a clear message when the corpus is absent.
func Files(t testing.TB) []File {
	t.Helper()
	var out []File
	for _, dir := range []string{"public", "generated"} {
		m := filepath.Join(Shared(), "corpus", dir, "MANIFEST.tsv")
		f, err := os.Open(m)
		if err != nil {
			t.Skipf("corpus not found (%v): these tests need ../shared/corpus beside the checkout", err)
		}
		out = append(out, readManifest(f, dir)...)
		f.Close()
	}
	if len(out) == 0 {
		t.Skip("corpus MANIFEST.tsv files list no files")
	}
	return out
}

// Sweep is Files without the generated files over SmallBytes, or every
// file with RDBZ_LONG=1: for the sweeps that run a command, or several
// servers, per file. The large generated dumps add no kind of record the
// small ones lack; the round trips of each format (and the tests that
// call Files) still read them.
func Sweep(t testing.TB) []File {
	t.Helper()
	var out []File
	for _, f := range Files(t) {
		if f.Folder == "generated" && !Long() {
			if n, err := strconv.ParseInt(f.Fields["bytes"], 10, 64); err == nil && n > SmallBytes {
				continue
			}
		}
		out = append(out, f)
	}
	return out
}

func readManifest(f *os.File, dir string) []File {
	var out []File
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var cols []string
	for sc.Scan() {
		row := strings.Split(sc.Text(), "\t")
		if cols == nil {
			cols = row
			continue
		}
		cf := File{Fields: map[string]string{}, Folder: dir}
		for i, c := range cols {
			if i < len(row) {
				cf.Fields[c] = row[i]
			}
		}
		cf.Name = cf.Fields["file"]
		cf.Path = filepath.Join(Shared(), "corpus", dir, cf.Name)
		out = append(out, cf)
	}
	return out
}

// Oracle loads path into a private redis-server and returns what
// rdb-oracle prints (digest, key count, keyspace), or skips the test when
// redis-server or the tool is missing. args go before the path.
func Oracle(t testing.TB, path string, args ...string) (string, error) {
	t.Helper()
	tool := filepath.Join(Shared(), "tools", "rdb-oracle")
	if _, err := os.Stat(tool); err != nil {
		t.Skipf("rdb-oracle not found at %s", tool)
	}
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Skip("redis-server not installed (apt-get install -y redis-server; .ci/run does it)")
	}
	cmd := exec.Command(tool, append(args, path)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return string(out), &OracleError{Err: err, Stderr: stderr.String()}
	}
	return string(out), nil
}

// OracleError is a refusal of the oracle, with what it printed.
type OracleError struct {
	Err    error
	Stderr string
}

func (e *OracleError) Error() string { return e.Err.Error() + ": " + strings.TrimSpace(e.Stderr) }

// DialRetry connects to a unix socket that a just-started server will
// open, retrying for up to 10 s.
func DialRetry(t testing.TB, sock string) net.Conn {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		conn, err := net.Dial("unix", sock)
		if err == nil {
			return conn
		}
		if time.Now().After(deadline) {
			t.Fatalf("redis-server did not open %s: %v", sock, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// WriteCommand writes one RESP command.
func WriteCommand(w *bufio.Writer, args ...[]byte) {
	fmt.Fprintf(w, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(w, "$%d\r\n", len(a))
		w.Write(a)
		w.WriteString("\r\n")
	}
}

// Commands sends cmds to a server in one pipeline and fails the test on
// an error reply (SET, SADD, HSET, RPUSH, SAVE and the like).
func Commands(t testing.TB, conn net.Conn, cmds ...[]string) {
	t.Helper()
	Replies(t, conn, cmds...)
}

// Replies sends cmds to a server in one pipeline and returns each reply
// flattened (the elements of arrays, nested ones in turn); an error reply
// fails the test.
func Replies(t testing.TB, conn net.Conn, cmds ...[]string) [][]string {
	t.Helper()
	rw := bufio.NewReadWriter(bufio.NewReader(conn), bufio.NewWriter(conn))
	for _, c := range cmds {
		args := make([][]byte, len(c))
		for i, a := range c {
			args[i] = []byte(a)
		}
		WriteCommand(rw.Writer, args...)
	}
	if err := rw.Flush(); err != nil {
		t.Fatal(err)
	}
	out := make([][]string, len(cmds))
	for i, c := range cmds {
		if err := readReply(rw.Reader, &out[i]); err != nil {
			t.Fatalf("%s: %v", c[0], err)
		}
	}
	return out
}

// Long reports whether RDBZ_LONG=1 asks for the full sweeps: the tests
// that train dictionaries run on every generated file, large ones too,
// instead of the small and medium ones (docs/testing.md).
func Long() bool { v := os.Getenv("RDBZ_LONG"); return v != "" && v != "0" }

// MediumBytes bounds the generated files that the tests which train
// dictionaries run on by default (all but lists-events*.rdb, 17-25 MB).
const MediumBytes = 5 << 20

// SmallBytes bounds the generated files of the sweeps that run every
// server on each file by default (mixed-all-types.rdb, lists-ints-small.rdb,
// dfly-seed-synthetic.rdb: every type and encoding the generator makes).
const SmallBytes = 2 << 20

// Generated lists the generated corpus files of at most maxBytes, or every
// one of them with RDBZ_LONG=1; it fails the test when none is that small.
func Generated(t testing.TB, maxBytes int64) []File {
	t.Helper()
	var out []File
	for _, f := range Files(t) {
		if f.Folder != "generated" {
			continue
		}
		n, err := strconv.ParseInt(f.Fields["bytes"], 10, 64)
		if err != nil {
			t.Fatalf("%s: manifest bytes %q", f.Name, f.Fields["bytes"])
		}
		if n <= maxBytes || Long() {
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		t.Fatalf("no generated corpus file of at most %d bytes", maxBytes)
	}
	return out
}

// StartRedis runs a private redis-server (redis-server from PATH) in a temp
// dir with dbfilename dump.rdb, no persistence but SAVE, and extra args;
// it returns a connection to it and the dir, and stops it when the test
// ends. It skips the test when redis-server is not installed.
func StartRedis(t testing.TB, args ...string) (net.Conn, string) {
	t.Helper()
	server, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("redis-server not installed (apt-get install -y redis-server; .ci/run does it)")
	}
	return StartServer(t, server, args...)
}

// ServerBinary is the path of one of the servers in ../shared/tools/servers
// (e.g. "redis-server-6.2.16"); it skips the test when that one is absent.
func ServerBinary(t testing.TB, name string) string {
	t.Helper()
	bin := filepath.Join(Shared(), "tools", "servers", name)
	if _, err := os.Stat(bin); err != nil {
		t.Skipf("%s not found (%v): ../shared/tools/servers holds the other servers", name, err)
	}
	return bin
}

// StartServer is StartRedis with the server binary at path server.
func StartServer(t testing.TB, server string, args ...string) (net.Conn, string) {
	t.Helper()
	dir := t.TempDir()
	sock := filepath.Join(dir, "redis.sock")
	cmd := exec.Command(server, append([]string{"--port", "0", "--unixsocket", sock, "--dir", dir,
		"--dbfilename", "dump.rdb", "--save", "", "--appendonly", "no"}, args...)...)
	cmd.Dir = dir
	if err := cmd.Start(); err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			t.Skipf("%s not installed (apt-get install -y redis-server; .ci/run does it)", server)
		}
		t.Fatalf("start %s: %v", server, err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	conn := DialRetry(t, sock)
	t.Cleanup(func() { conn.Close() })
	return conn, dir
}

// FuzzSeeds adds testdata's RDB files (dir testdata, relative to the
// package) and the corpus files of at most 64 KiB to a fuzz target's seeds.
func FuzzSeeds(f *testing.F, testdata string) {
	seeds, _ := filepath.Glob(filepath.Join(testdata, "*.rdb"))
	for _, dir := range []string{"public", "generated"} {
		m, _ := filepath.Glob(filepath.Join(Shared(), "corpus", dir, "*.rdb"))
		seeds = append(seeds, m...)
	}
	for _, p := range seeds {
		if st, err := os.Stat(p); err == nil && st.Size() <= 64<<10 {
			if data, err := os.ReadFile(p); err == nil {
				f.Add(data)
			}
		}
	}
}
