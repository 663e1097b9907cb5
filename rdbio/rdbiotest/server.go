package rdbiotest

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Digest is what Oracle prints for a file (digest, keys, keyspace lines
// without avg_ttl), or an *OracleError when redis refuses the file, as
// Oracle's exit 1 — but from one private redis-server per test binary,
// which loads each file with FUNCTION FLUSH and DEBUG RELOAD NOSAVE instead
// of starting a server per file (milliseconds instead of ~0.7 s a call).
// The server runs as rdb-oracle's does: redis-server from PATH, --databases
// 256, sanitize-dump-payload yes, no persistence, active expiry off, on a
// unix socket in a temp dir. When redis dies on a file it refuses, the
// refusal is reported and the next call starts a new server. Calls are
// serialized; results for unchanged files of the shared corpus are cached
// for the life of the process.
//
// A package using Digest needs func TestMain(m *testing.M) {
// os.Exit(rdbiotest.Main(m)) }, which stops the server at the end. Use
// Oracle for other servers or options (REDIS_SERVER, RDB_ORACLE_*, --keys).
func Digest(t testing.TB, path string) (string, error) {
	t.Helper()
	l, err := Judge(t, "", path)
	if err != nil {
		return "", err
	}
	return l.Summary, nil
}

// Main runs a package's tests (m.Run) and then stops the redis-server
// Digest started; it returns the exit code for os.Exit.
func Main(m *testing.M) int {
	mainRuns.Store(true)
	code := m.Run()
	stopJudges()
	return code
}

var mainRuns atomic.Bool

// cacheKey names a file of the shared corpus by path, size and mtime; other
// files (test outputs) are not cached.
func cacheKey(path string) (string, bool) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", false
	}
	corpus, err := filepath.Abs(filepath.Join(Shared(), "corpus"))
	if err != nil || !strings.HasPrefix(abs, corpus+string(filepath.Separator)) {
		return "", false
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return "", false
	}
	return fmt.Sprintf("%s\x00%d\x00%d", abs, fi.Size(), fi.ModTime().UnixNano()), true
}

// sharedServer is the redis-server of this process; mu guards everything.
type sharedServer struct {
	mu     sync.Mutex
	loaded map[string]loadedResult // by cacheKey
	dir    string
	cmd    *exec.Cmd
	exited chan struct{}
	conn   net.Conn
	rw     *bufio.ReadWriter
}

const dumpName = "dump.rdb"

// start runs redis-server with an empty data set and connects to it.
func (s *sharedServer) start(bin string) error {
	dir, err := os.MkdirTemp("", "rdbiotest-redis-")
	if err != nil {
		return err
	}
	s.dir = dir
	sock := filepath.Join(dir, "redis.sock")
	args := []string{"--port", "0", "--unixsocket", sock, "--unixsocketperm", "700",
		"--dir", dir, "--dbfilename", dumpName, "--logfile", filepath.Join(dir, "redis.log"),
		"--loglevel", "verbose", "--daemonize", "no", "--always-show-logo", "no",
		"--save", "", "--appendonly", "no", "--databases", "256",
		"--sanitize-dump-payload", "yes"}
	if !before7(bin) { // redis 6.2 has neither option (and allows DEBUG)
		args = append(args, "--enable-debug-command", "local", "--enable-module-command", "no")
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.SysProcAttr = childAttr() // killed with the test binary, whatever happens
	if err := cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return fmt.Errorf("start %s: %w", bin, err)
	}
	s.cmd, s.exited = cmd, make(chan struct{})
	go func(done chan struct{}) { cmd.Wait(); close(done) }(s.exited)
	deadline := time.Now().Add(30 * time.Second)
	for {
		conn, err := net.Dial("unix", sock)
		if err == nil {
			s.conn, s.rw = conn, bufio.NewReadWriter(bufio.NewReader(conn), bufio.NewWriter(conn))
			break
		}
		select {
		case <-s.exited:
			log := s.log(0)
			s.stop()
			return fmt.Errorf("redis-server exited at start: %s", log)
		default:
		}
		if time.Now().After(deadline) {
			s.stop()
			return fmt.Errorf("redis-server did not open %s: %v", sock, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	// Keep the data still while it is read, as rdb-oracle does.
	_, err = s.do(time.Minute, "DEBUG", "SET-ACTIVE-EXPIRE", "0")
	if err != nil {
		s.stop()
	}
	return err
}

// before7 reports whether bin is a redis server older than 7.0, from
// what --version prints ("Redis server v=6.2.16 ...").
func before7(bin string) bool {
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		return false
	}
	m := versionMajor.FindSubmatch(out)
	return m != nil && strings.HasPrefix(string(out), "Redis") && string(m[1]) < "7" && len(m[1]) == 1
}

var versionMajor = regexp.MustCompile(`v=([0-9]+)\.`)

// stop kills the server and removes its folder.
func (s *sharedServer) stop() {
	if s.conn != nil {
		s.conn.Close()
		s.conn = nil
	}
	if s.cmd != nil {
		s.cmd.Process.Kill()
		<-s.exited
		s.cmd = nil
	}
	if s.dir != "" {
		os.RemoveAll(s.dir)
		s.dir = ""
	}
}

// load returns rdb-oracle's summary of path; an *OracleError when redis
// refuses the file, another error when the server misbehaves.
func (s *sharedServer) load(bin, path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	if s.cmd == nil {
		if err := s.start(bin); err != nil {
			return "", err
		}
	}
	dump := filepath.Join(s.dir, dumpName)
	if err := os.WriteFile(dump, data, 0o600); err != nil {
		return "", err
	}
	defer os.Remove(dump)
	if _, err := s.do(time.Minute, "FUNCTION", "FLUSH"); err != nil && !strings.Contains(err.Error(), "unknown command") {
		return "", err
	}
	logFrom := s.logSize()
	// Loading a large file on a loaded machine takes a while.
	_, err = s.do(10*time.Minute, "DEBUG", "RELOAD", "NOSAVE")
	var replyErr redisError
	switch {
	case errors.As(err, &replyErr):
		// refused without exiting (version, signature, and damaged data:
		// from a client's DEBUG RELOAD redis does not exit): it stays
		return "", s.refusal(path, false, logFrom)
	case err != nil:
		// redis died on the file (a duplicate key is a crash)
		select {
		case <-s.exited:
		case <-time.After(30 * time.Second):
			s.stop()
			return "", fmt.Errorf("DEBUG RELOAD of %s: %v, and redis-server still ran", path, err)
		}
		refusal := s.refusal(path, true, logFrom)
		s.stop()
		return "", refusal
	}
	return s.summary()
}

// summary is rdb-oracle's summary of what the server holds: its digest,
// key count and keyspace lines.
func (s *sharedServer) summary() (string, error) {
	info, err := s.do(time.Minute, "INFO", "keyspace")
	if err != nil {
		return "", err
	}
	digest, err := s.do(time.Minute, "DEBUG", "DIGEST")
	if err != nil {
		return "", err
	}
	if !hex40.MatchString(digest) {
		return "", fmt.Errorf("unexpected DEBUG DIGEST reply %q", digest)
	}
	var lines []string
	total := 0
	for _, l := range strings.Split(info, "\n") {
		m := keyspaceLine.FindStringSubmatch(strings.TrimSpace(l))
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[2])
		total += n
		lines = append(lines, m[1])
	}
	var b strings.Builder
	fmt.Fprintf(&b, "digest %s\nkeys %d\n", digest, total)
	for _, l := range lines {
		b.WriteString(l + "\n")
	}
	return b.String(), nil
}

var (
	hex40        = regexp.MustCompile(`^[0-9a-f]{40}$`)
	keyspaceLine = regexp.MustCompile(`^(db[0-9]+:keys=([0-9]+),expires=[0-9]+)(,avg_ttl=[0-9]+)?`)
	// warning (#) and verbose (-) lines of the log: a client's DEBUG RELOAD
	// logs data errors at verbose level, as for RESTORE, and redis goes on
	logReason = regexp.MustCompile(`^[0-9]+:[A-Z] [^#-]* [#-] (\S.*)$`)
	// lines that do not say why loading failed, as rdb-oracle skips them
	logNoise = regexp.MustCompile(`oO0OoO0OoO0Oo|Redis version=|Configuration loaded|Server initialized|WARNING|Fatal error loading|Terminating server after rdb|Bio thread|-----|!!! Software Failure|rdbLoadObject skipping empty key|User requested shutdown|Redis is now ready to exit`)
)

// refusal is the *OracleError for a file redis would not load, with the
// warning lines redis logged since logFrom, the first one as the reason.
func (s *sharedServer) refusal(path string, exited bool, logFrom int64) error {
	log := s.log(logFrom)
	var reasons []string
	for _, l := range strings.Split(log, "\n") {
		m := logReason.FindStringSubmatch(l)
		if m != nil && !logNoise.MatchString(m[1]) {
			reasons = append(reasons, m[1])
		}
	}
	if len(reasons) == 0 {
		reasons = []string{"(no reason logged)"}
	}
	how := ""
	if exited {
		how = " (it exited)"
		if strings.Contains(log, "REDIS BUG REPORT") {
			how = " (it crashed)"
		}
	}
	return &OracleError{
		Err:    fmt.Errorf("redis-server refused to load %s%s", path, how),
		Stderr: strings.Join(reasons, "\n"),
	}
}

func (s *sharedServer) logSize() int64 {
	fi, err := os.Stat(filepath.Join(s.dir, "redis.log"))
	if err != nil {
		return 0
	}
	return fi.Size()
}

// log returns the server log from byte from on.
func (s *sharedServer) log(from int64) string {
	b, err := os.ReadFile(filepath.Join(s.dir, "redis.log"))
	if err != nil || from > int64(len(b)) {
		return ""
	}
	return string(b[from:])
}

// redisError is an error reply.
type redisError string

func (e redisError) Error() string { return string(e) }

// do sends one command and returns its reply: a status, bulk string or
// integer as text; an error reply as redisError.
func (s *sharedServer) do(timeout time.Duration, args ...string) (string, error) {
	out, err := s.doArray(timeout, args...)
	if err != nil {
		return "", err
	}
	if len(out) != 1 {
		return "", fmt.Errorf("unexpected reply of %d parts to %v", len(out), args)
	}
	return out[0], nil
}

// Keys is what the shared redis-server holds after loading a file: per db
// the live keys and those of them with a TTL, and the live keys by TYPE.
type Keys struct {
	PerDB map[uint64][2]int64
	Types map[string]int64
}

// LiveKeys loads path into the shared redis-server (as Digest does; keys
// whose TTL is past are dropped as a master drops them) and counts its keys
// per db and per type. It needs TestMain as Digest does; a refusal is an
// *OracleError.
func LiveKeys(t testing.TB, path string) (*Keys, error) {
	t.Helper()
	bin := sharedBinary(t, "LiveKeys")
	judge := judgeFor(bin)
	judge.mu.Lock()
	defer judge.mu.Unlock()
	out, err := judge.load(bin, path)
	if err != nil {
		return nil, err
	}
	k := &Keys{PerDB: map[uint64][2]int64{}, Types: map[string]int64{}}
	var dbs []string
	for _, l := range strings.Split(out, "\n") {
		var db uint64
		var keys, expires int64
		if n, _ := fmt.Sscanf(l, "db%d:keys=%d,expires=%d", &db, &keys, &expires); n == 3 {
			k.PerDB[db] = [2]int64{keys, expires}
			dbs = append(dbs, strconv.FormatUint(db, 10))
		}
	}
	counts, err := judge.do(10*time.Minute, append([]string{"EVAL", countTypes, "0"}, dbs...)...)
	if err != nil {
		return nil, fmt.Errorf("counting types: %w", err)
	}
	for _, f := range strings.Fields(counts) {
		name, n, _ := strings.Cut(f, "=")
		k.Types[name], _ = strconv.ParseInt(n, 10, 64)
	}
	return k, nil
}

// sharedBinary is the redis-server the shared server runs; it fails the
// test when TestMain does not go through Main (which stops the server) and
// skips it when redis-server is not installed. caller names the helper.
func sharedBinary(t testing.TB, caller string) string {
	t.Helper()
	if !mainRuns.Load() {
		t.Fatalf("rdbiotest.%s needs TestMain to run the tests through rdbiotest.Main", caller)
	}
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("redis-server not installed (apt-get install -y redis-server; .ci/run does it)")
	}
	return bin
}

// luaEachKey defines eachKey(first, fn): fn(db, key) for every key of the
// dbs named in ARGV[first..], db by db (SCAN: one round trip for a script
// however many keys).
const luaEachKey = `
local function eachKey(first, fn)
  for i = first, #ARGV do
    redis.call('SELECT', ARGV[i])
    local cursor = '0'
    repeat
      local r = redis.call('SCAN', cursor, 'COUNT', 1000)
      cursor = r[1]
      for _, k in ipairs(r[2]) do fn(ARGV[i], k) end
    until cursor == '0'
  end
end
`

// countTypes counts the keys of the dbs named in ARGV by TYPE and returns
// "type=n ...".
const countTypes = luaEachKey + `
local out = {}
eachKey(1, function(db, k)
  local t = redis.call('TYPE', k)['ok']
  out[t] = (out[t] or 0) + 1
end)
local s = ''
for t, n in pairs(out) do s = s .. t .. '=' .. n .. ' ' end
return s`
