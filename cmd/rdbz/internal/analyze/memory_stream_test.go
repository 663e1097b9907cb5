package analyze

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

// streamScript builds streams whose memory is mostly consumer groups:
// a long stream read by three consumers of one group (9000 pending
// entries, some acknowledged) and an idle group, a short stream whose
// whole content is pending, a trimmed stream with deleted entries, and a
// stream with many consumers.
const streamScript = `
for i = 1, 20000 do
  redis.call('XADD', 's:big', '*', 'user', tostring(i % 97), 'action', 'click', 'payload', string.rep('x', i % 50))
end
redis.call('XGROUP', 'CREATE', 's:big', 'g1', '0')
redis.call('XGROUP', 'CREATE', 's:big', 'g2', '$')
for c = 1, 3 do
  local r = redis.call('XREADGROUP', 'GROUP', 'g1', 'consumer-' .. c, 'COUNT', 3000, 'STREAMS', 's:big', '>')
  local entries = r[1][2]
  for j = 1, #entries, 7 do redis.call('XACK', 's:big', 'g1', entries[j][1]) end
end
for i = 1, 500 do redis.call('XADD', 's:pel', '*', 'f', i) end
redis.call('XGROUP', 'CREATE', 's:pel', 'g', '0')
redis.call('XREADGROUP', 'GROUP', 'g', 'only', 'COUNT', 500, 'STREAMS', 's:pel', '>')
local ids = {}
for i = 1, 3000 do ids[i] = redis.call('XADD', 's:trim', '*', 'k', i, 'v', string.rep('y', 20)) end
for i = 1, 3000, 3 do redis.call('XDEL', 's:trim', ids[i]) end
redis.call('XTRIM', 's:trim', 'MAXLEN', 1500)
for i = 1, 300 do redis.call('XADD', 's:many', '*', 'n', i) end
redis.call('XGROUP', 'CREATE', 's:many', 'g', '0')
for c = 1, 100 do redis.call('XREADGROUP', 'GROUP', 'g', 'reader:' .. c, 'COUNT', 2, 'STREAMS', 's:many', '>') end
return redis.status_reply('OK')`

// TestStreamMemoryMatchesRedis: streams built by a real redis-server (with
// groups, pending entries, consumers, deletions) and saved, then loaded
// into the shared server: each stream's estimate is within the key
// tolerance of its MEMORY USAGE, and the sum within the sum tolerance.
func TestStreamMemoryMatchesRedis(t *testing.T) {
	conn, dir := rdbiotest.StartRedis(t)
	rw := bufio.NewReadWriter(bufio.NewReader(conn), bufio.NewWriter(conn))
	rdbiotest.WriteCommand(rw.Writer, []byte("EVAL"), []byte(streamScript), []byte("0"))
	rdbiotest.WriteCommand(rw.Writer, []byte("SAVE"))
	if err := rw.Flush(); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		line, err := rw.ReadString('\n')
		if err != nil || !strings.HasPrefix(line, "+OK") {
			t.Fatalf("redis reply %q, %v", line, err)
		}
	}
	path := filepath.Join(dir, "dump.rdb")
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
	m, err := rdbiotest.MemoryUsage(t, path, 4)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Top) != 4 {
		t.Fatalf("redis holds %d keys, want the 4 streams", len(m.Top))
	}
	if _, err := compareMemory(t, path, m); err != nil {
		t.Error(err)
	}
}
