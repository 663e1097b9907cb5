package rdbiotest

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Loaded is what a server holds after loading a file: rdb-oracle's
// summary (digest, keys, keyspace lines) and, when asked for, a line per
// key.
type Loaded struct {
	Summary string
	// Keys (JudgeKeys) are "db key type digest expiry stream-meta" lines, sorted: key
	// Go-quoted, digest DEBUG DIGEST-VALUE's, expiry PEXPIRETIME's (on
	// servers without it, redis 6.2: "ttl" for a key with one, else -1),
	// stream-meta the SHA1 of XINFO STREAM's reply for a stream, else "-"
	// (JudgeImport, Import: of XINFO STREAM FULL less what no command sets).
	Keys []string
	// Functions (JudgeImport, Import) are FUNCTION LIST WITHCODE's reply,
	// flattened.
	Functions []string
}

// Judge loads path into a private server of the build bin (a path; ""
// for redis-server on PATH) and returns what it holds, or an
// *OracleError when it refuses the file. One server per build serves the
// whole test binary, as Digest's does (Main stops them), so a load takes
// milliseconds: the matrix of files × servers runs in the default suite.
// Results for unchanged corpus files are cached.
func Judge(t testing.TB, bin, path string) (*Loaded, error) {
	t.Helper()
	return judgeFile(t, bin, path, false)
}

// JudgeKeys is Judge that also lists the keys (Loaded.Keys).
func JudgeKeys(t testing.TB, bin, path string) (*Loaded, error) {
	t.Helper()
	return judgeFile(t, bin, path, true)
}

func judgeFile(t testing.TB, bin, path string, keys bool) (*Loaded, error) {
	t.Helper()
	bin = judgeBinary(t, bin)
	s := judgeFor(bin)
	key, cacheable := cacheKey(path)
	s.mu.Lock()
	defer s.mu.Unlock()
	if r, ok := s.loaded[key]; ok && cacheable && (r.err != nil || !keys || r.l.Keys != nil) {
		return r.l, r.err
	}
	l, err := s.judge(bin, path, keys)
	var refused *OracleError
	if err != nil && !errors.As(err, &refused) {
		t.Fatalf("shared %s: %v", bin, err)
	}
	if cacheable {
		s.loaded[key] = loadedResult{l, err}
	}
	return l, err
}

// judgeBinary is the server build a judge runs: bin, or redis-server on
// PATH for "" (skipping the test without one). It fails the test when
// TestMain does not run rdbiotest.Main, which stops the servers.
func judgeBinary(t testing.TB, bin string) string {
	t.Helper()
	if !mainRuns.Load() {
		t.Fatal("rdbiotest.Judge needs TestMain to run the tests through rdbiotest.Main (it stops the servers)")
	}
	if bin == "" {
		var err error
		if bin, err = exec.LookPath("redis-server"); err != nil {
			t.Skip("redis-server not installed (apt-get install -y redis-server; .ci/run does it)")
		}
	}
	return bin
}

type loadedResult struct {
	l   *Loaded
	err error
}

var (
	judgesMu sync.Mutex
	judges   = map[string]*sharedServer{}
)

// judgeFor is the shared server of the build bin.
func judgeFor(bin string) *sharedServer {
	judgesMu.Lock()
	defer judgesMu.Unlock()
	s := judges[bin]
	if s == nil {
		s = &sharedServer{loaded: map[string]loadedResult{}}
		judges[bin] = s
	}
	return s
}

// stopJudges stops the servers Judge started.
func stopJudges() {
	judgesMu.Lock()
	defer judgesMu.Unlock()
	for _, s := range judges {
		s.mu.Lock()
		s.stop()
		s.mu.Unlock()
	}
}

// judge loads path and, with keys, lists its keys.
func (s *sharedServer) judge(bin, path string, keys bool) (*Loaded, error) {
	sum, err := s.load(bin, path)
	if err != nil || !keys {
		return &Loaded{Summary: sum}, err
	}
	return s.listKeys(sum, keyInfo)
}

// listKeys lists the keys of the dbs the summary sum names, with the key
// script script.
func (s *sharedServer) listKeys(sum, script string) (*Loaded, error) {
	l := &Loaded{Summary: sum, Keys: []string{}}
	for _, line := range strings.Split(sum, "\n") {
		m := dbLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		lines, err := s.keyLines(m[1], script)
		if err != nil {
			return nil, fmt.Errorf("listing the keys of db %s: %w", m[1], err)
		}
		l.Keys = append(l.Keys, lines...)
	}
	sort.Strings(l.Keys)
	return l, nil
}

var dbLine = regexp.MustCompile(`^db([0-9]+):keys=`)

// keyInfo returns, for every key of the db in ARGV[1], its name, type,
// expiry and stream metadata hash, in turn.
var keyInfo = keyScript(`redis.call('XINFO', 'STREAM', k)`, "")

// importInfo is keyInfo with stream-meta hashing XINFO STREAM FULL, less
// the values that no command sets: the size of the radix tree (the
// listpacks' layout), consumers' seen and active times.
var importInfo = keyScript(`redis.call('XINFO', 'STREAM', k, 'FULL', 'COUNT', 0)`,
	`['radix-tree-keys'] = true, ['radix-tree-nodes'] = true, ['seen-time'] = true, ['active-time'] = true`)

// keyScript is the key script that hashes the stream reply info, leaving
// out the value after each name in the Lua table fields unset.
func keyScript(info, unset string) string {
	body := strings.Replace(keyInfoBody, "STREAM_INFO", info, 1)
	return luaEachKey + strings.Replace(body, "UNSET", unset, 1)
}

// keyInfoBody is the key script with STREAM_INFO for the stream reply
// hashed and UNSET the names whose values it leaves out.
const keyInfoBody = `
local out = {}
eachKey(1, function(db, k)
  local t = redis.call('TYPE', k)['ok']
  local exp = redis.pcall('PEXPIRETIME', k)
  if type(exp) == 'table' then
    exp = -1
    if redis.call('PTTL', k) >= 0 then exp = 'ttl' end
  end
  local meta = '-'
  if t == 'stream' then
    local parts, unset, drop = {}, {UNSET}, false
    local function flat(v)
      if type(v) == 'table' then for _, x in ipairs(v) do flat(x) end
      elseif drop then drop = false
      else
        parts[#parts + 1] = tostring(v)
        drop = unset[tostring(v)] == true
      end
    end
    flat(STREAM_INFO)
    meta = redis.sha1hex(table.concat(parts, '\n'))
  end
  out[#out + 1] = k
  out[#out + 1] = t
  out[#out + 1] = tostring(exp)
  out[#out + 1] = meta
end)
return out`

// keyLines lists the keys of db with the key script script, with DEBUG
// DIGEST-VALUE's digests.
func (s *sharedServer) keyLines(db, script string) ([]string, error) {
	info, err := s.doArray(10*time.Minute, "EVAL", script, "0", db)
	if err != nil {
		return nil, err
	}
	if len(info)%4 != 0 {
		return nil, fmt.Errorf("key info of %d parts", len(info))
	}
	if _, err := s.do(time.Minute, "SELECT", db); err != nil {
		return nil, err
	}
	var lines []string
	for i := 0; i < len(info); i += 4 * 256 {
		batch := info[i:min(i+4*256, len(info))]
		args := []string{"DEBUG", "DIGEST-VALUE"}
		for j := 0; j < len(batch); j += 4 {
			args = append(args, batch[j])
		}
		digests, err := s.doArray(time.Minute, args...)
		if err != nil {
			return nil, err
		}
		if len(digests) != len(batch)/4 {
			return nil, fmt.Errorf("%d digests for %d keys", len(digests), len(batch)/4)
		}
		for j := 0; j < len(batch); j += 4 {
			lines = append(lines, strings.Join([]string{db, strconv.Quote(batch[j]), batch[j+1],
				digests[j/4], batch[j+2], batch[j+3]}, " "))
		}
	}
	return lines, nil
}

// doArray sends one command and returns its reply flattened: the elements
// of arrays (nested ones in turn), or the one reply.
func (s *sharedServer) doArray(timeout time.Duration, args ...string) ([]string, error) {
	s.conn.SetDeadline(time.Now().Add(timeout))
	bs := make([][]byte, len(args))
	for i, a := range args {
		bs[i] = []byte(a)
	}
	WriteCommand(s.rw.Writer, bs...)
	if err := s.rw.Flush(); err != nil {
		return nil, err
	}
	var out []string
	err := s.readReply(&out)
	return out, err
}

// readReply reads one RESP2 reply into out, arrays flattened.
func (s *sharedServer) readReply(out *[]string) error { return readReply(s.rw.Reader, out) }

// readReply reads one RESP2 reply from r into out, arrays flattened.
func readReply(r *bufio.Reader, out *[]string) error {
	line, err := r.ReadString('\n')
	if err != nil {
		return err
	}
	line = strings.TrimSuffix(line, "\r\n")
	if line == "" {
		return errors.New("empty reply")
	}
	switch line[0] {
	case '+', ':':
		*out = append(*out, line[1:])
		return nil
	case '-':
		return redisError(line[1:])
	case '$':
		n, err := strconv.Atoi(line[1:])
		if err != nil || n < -1 {
			return fmt.Errorf("bad bulk reply %q", line)
		}
		if n < 0 {
			*out = append(*out, "")
			return nil
		}
		b := make([]byte, n+2)
		if _, err := io.ReadFull(r, b); err != nil {
			return err
		}
		*out = append(*out, string(b[:n]))
		return nil
	case '*':
		n, err := strconv.Atoi(line[1:])
		if err != nil {
			return fmt.Errorf("bad array reply %q", line)
		}
		for range max(n, 0) {
			if err := readReply(r, out); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("unexpected reply %q", line)
}
