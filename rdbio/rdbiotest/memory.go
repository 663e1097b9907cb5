package rdbiotest

import (
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Memory is what the shared redis-server reports about memory after
// loading a file: INFO memory's used_memory_dataset less that of the
// server just before, when it has loaded an empty file, the sum of
// MEMORY USAGE key SAMPLES 0 over every key, and the keys that use the
// most.
type Memory struct {
	Dataset int64
	Sum     int64
	Keys    int64
	Top     []KeyMemory
}

// KeyMemory is one key and its MEMORY USAGE key SAMPLES 0.
type KeyMemory struct {
	DB    uint64
	Key   string
	Usage int64
}

// MemoryUsage loads path into the shared redis-server (as Digest does) and
// measures its memory, with the top keys by MEMORY USAGE. It needs TestMain
// as Digest does; a refusal is an *OracleError.
func MemoryUsage(t testing.TB, path string, top int) (*Memory, error) {
	t.Helper()
	bin := sharedBinary(t, "MemoryUsage")
	judge := judgeFor(bin)
	judge.mu.Lock()
	defer judge.mu.Unlock()
	emptyFile := filepath.Join(t.TempDir(), "empty.rdb")
	if err := os.WriteFile(emptyFile, emptyRDB, 0o600); err != nil {
		return nil, err
	}
	// The first load of a kind of value leaves ~75 KB that no later load
	// adds again, and scripts leave garbage: load the file once, drop the
	// scripts, load an empty file for the baseline, then the file.
	if _, err := judge.load(bin, path); err != nil {
		return nil, err
	}
	if _, err := judge.do(time.Minute, "SCRIPT", "FLUSH", "SYNC"); err != nil {
		return nil, err
	}
	if _, err := judge.load(bin, emptyFile); err != nil {
		return nil, fmt.Errorf("loading an empty file: %w", err)
	}
	empty, err := judge.dataset()
	if err != nil {
		return nil, err
	}
	out, err := judge.load(bin, path)
	if err != nil {
		return nil, err
	}
	m := &Memory{}
	if m.Dataset, err = judge.dataset(); err != nil {
		return nil, err
	}
	m.Dataset -= empty
	args := []string{"EVAL", memoryScript, "0", strconv.Itoa(top)}
	for _, l := range strings.Split(out, "\n") {
		var db uint64
		if n, _ := fmt.Sscanf(l, "db%d:", &db); n == 1 {
			args = append(args, strconv.FormatUint(db, 10))
		}
	}
	res, err := judge.do(10*time.Minute, args...)
	if err != nil {
		return nil, fmt.Errorf("MEMORY USAGE: %w", err)
	}
	return m, m.parse(res)
}

// emptyRDB holds no key (RDB 9, checksum disabled).
var emptyRDB = []byte("REDIS0009\xff\x00\x00\x00\x00\x00\x00\x00\x00")

// dataset is INFO memory's used_memory_dataset, read once the server has
// no object left to free in the background (a reload frees the previous
// data set lazily: read too early, a baseline still holds it, and a small
// file then measured tens of KB below nothing).
func (s *sharedServer) dataset() (int64, error) {
	deadline := time.Now().Add(10 * time.Second)
	for {
		info, err := s.do(time.Minute, "INFO", "memory")
		if err != nil {
			return 0, fmt.Errorf("INFO memory: %w", err)
		}
		pending, ok := infoField(info, "lazyfree_pending_objects")
		if ok && pending != 0 && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
			continue
		}
		if v, ok := infoField(info, "used_memory_dataset"); ok {
			return v, nil
		}
		return 0, fmt.Errorf("INFO memory without used_memory_dataset")
	}
}

// infoField is the integer value of an INFO field.
func infoField(info, name string) (int64, bool) {
	for _, l := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(l), name+":"); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}

// parse reads the script's reply: "sum keys" then "db usage xHEXKEY" lines.
func (m *Memory) parse(res string) error {
	lines := strings.Split(strings.TrimSpace(res), "\n")
	if _, err := fmt.Sscanf(lines[0], "%d %d", &m.Sum, &m.Keys); err != nil {
		return fmt.Errorf("memory script reply %q: %w", lines[0], err)
	}
	for _, l := range lines[1:] {
		var k KeyMemory
		var hexKey string
		if _, err := fmt.Sscanf(l, "%d %d %s", &k.DB, &k.Usage, &hexKey); err != nil {
			return fmt.Errorf("memory script line %q: %w", l, err)
		}
		key, err := hex.DecodeString(strings.TrimPrefix(hexKey, "x"))
		if err != nil {
			return err
		}
		k.Key = string(key)
		m.Top = append(m.Top, k)
	}
	return nil
}

// memoryScript sums MEMORY USAGE key SAMPLES 0 over the keys of the dbs
// in ARGV[2..] and keeps the ARGV[1] largest.
const memoryScript = luaEachKey + `
local n = tonumber(ARGV[1])
local sum, keys, top = 0, 0, {}
eachKey(2, function(db, k)
  local u = redis.call('MEMORY', 'USAGE', k, 'SAMPLES', '0')
  sum, keys = sum + u, keys + 1
  if #top < n or u > top[#top][2] then
    table.insert(top, {db, u, k})
    table.sort(top, function(a, b) return a[2] > b[2] end)
    if #top > n then table.remove(top) end
  end
end)
local out = {sum .. ' ' .. keys}
for _, t in ipairs(top) do
  out[#out + 1] = t[1] .. ' ' .. t[2] .. ' x' .. string.gsub(t[3], '.', function(c) return string.format('%02x', string.byte(c)) end)
end
return table.concat(out, '\n')`
