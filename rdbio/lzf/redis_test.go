package lzf_test

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rdbz/rdbz/rdbio/lzf"
	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

// TestLZFMatchesRedis stores strings in a real redis-server, saves an RDB with
// rdbcompression yes, and checks that RedisSave makes the same choice (LZF or
// plain) and the same LZF bytes for every one of them.
func TestLZFMatchesRedis(t *testing.T) {
	if testing.Short() {
		t.Skip("starts redis-server; skipped in -short mode")
	}
	values := redisTestValues()
	dump := redisDump(t, values)

	var enc lzf.Encoder
	count, nearMiss := 0, 0
	for i, v := range values {
		key := fmt.Sprintf("key:%05d", i)
		stored, isLZF, err := findStringValue(dump, key)
		if err != nil {
			t.Fatalf("%s (%d bytes): %v", key, len(v), err)
		}
		z, ok := enc.RedisSave(nil, v)
		switch {
		case ok != isLZF:
			t.Errorf("%s (%d bytes): RedisSave ok=%v, Redis stored LZF=%v", key, len(v), ok, isLZF)
		case ok && !bytes.Equal(z, stored):
			t.Errorf("%s (%d bytes): LZF stream differs from Redis's (%d vs %d bytes)", key, len(v), len(z), len(stored))
		case !ok && !bytes.Equal(stored, v):
			t.Errorf("%s: plain value in the dump differs from what was SET", key)
		}
		if isLZF {
			count++
		}
		if full, _ := enc.Encode(nil, v, bound(len(v))); !ok && len(full) <= len(v)-4 {
			nearMiss++ // would fit, but lzf_c.c's conservative checks refuse
		}
	}
	t.Logf("%d strings compared, %d stored as LZF by Redis, %d refused although the stream would fit",
		len(values), count, nearMiss)
}

// redisTestValues returns strings longer than 20 bytes (shorter ones are
// never compressed) of assorted kinds and lengths, many of them close to the
// len-4 budget so that the fit decision is exercised too.
func redisTestValues() [][]byte {
	r := rand.New(rand.NewPCG(42, 43))
	vals := [][]byte{
		[]byte("Q0123456789abcdefghijK0123456789abcdefgh"),
		[]byte("Q0123456789abcdefghijK0123456789abcdefghi"),
		[]byte("Q0123456789abcdefghijK0123456789abcdefghij"),
		[]byte(strings.Repeat("a", 21)),
		[]byte(strings.Repeat("a", 31)),
		[]byte(strings.Repeat("abc", 40)),
		bytes.Repeat([]byte{0}, 70000),
		rdbiotest.JSONish(r, 8192),
		rdbiotest.JSONish(r, 70000),
		rdbiotest.Patchy(r, 70000),
	}
	for i := 0; i < 1500; i++ {
		n := 21 + r.IntN(300)
		if i%10 == 0 {
			n = 21 + r.IntN(20000)
		}
		switch i % 5 {
		case 0:
			vals = append(vals, rdbiotest.JSONish(r, n))
		case 1:
			vals = append(vals, rdbiotest.Patchy(r, n))
		case 2:
			vals = append(vals, rdbiotest.LowEntropy(r, n))
		case 3:
			// mostly random with a short repeated tail: near the budget
			v := rdbiotest.RandomBytes(r, n)
			k := r.IntN(12)
			copy(v[n-k:], v[:k])
			vals = append(vals, v)
		default:
			vals = append(vals, bytes.Repeat(rdbiotest.RandomBytes(r, 1+r.IntN(40)), n)[:n])
		}
	}
	return vals
}

// redisDump runs redis-server in a temporary directory, SETs key:%05d to
// each value, SAVEs and returns the RDB file.
func redisDump(t *testing.T, values [][]byte) []byte {
	t.Helper()
	conn, dir := rdbiotest.StartRedis(t, "--rdbcompression", "yes")
	rw := bufio.NewReadWriter(bufio.NewReader(conn), bufio.NewWriter(conn))
	for i, v := range values {
		rdbiotest.WriteCommand(rw.Writer, []byte("SET"), fmt.Appendf(nil, "key:%05d", i), v)
	}
	rdbiotest.WriteCommand(rw.Writer, []byte("SAVE"))
	if err := rw.Flush(); err != nil {
		t.Fatal(err)
	}
	for range len(values) + 1 {
		line, err := rw.ReadString('\n')
		if err != nil || !strings.HasPrefix(line, "+OK") {
			t.Fatalf("redis reply %q, %v", line, err)
		}
	}
	dump, err := os.ReadFile(filepath.Join(dir, "dump.rdb"))
	if err != nil {
		t.Fatal(err)
	}
	return dump
}

// findStringValue locates the string record for key (type byte 0, the key as
// a plain string) in an RDB file and returns its value: the LZF stream and
// true for an 0xC3 value, or the plain bytes and false. It is a scanner for
// this test's keys, not an RDB parser.
func findStringValue(rdb []byte, key string) ([]byte, bool, error) {
	needle := append([]byte{0, byte(len(key))}, key...)
	i := bytes.Index(rdb, needle)
	if i < 0 {
		return nil, false, fmt.Errorf("key not found in the dump")
	}
	p := rdb[i+len(needle):]
	isLZF := len(p) > 0 && p[0] == 0xC3
	if isLZF {
		p = p[1:]
	}
	n, p, err := rdbLength(p)
	if err != nil {
		return nil, false, err
	}
	if isLZF {
		if _, p, err = rdbLength(p); err != nil { // skip the decoded length
			return nil, false, err
		}
	}
	if uint64(len(p)) < n {
		return nil, false, fmt.Errorf("value truncated")
	}
	return p[:n], isLZF, nil
}

// rdbLength reads an RDB length (FORMAT.md §5).
func rdbLength(p []byte) (uint64, []byte, error) {
	if len(p) == 0 {
		return 0, nil, fmt.Errorf("length truncated")
	}
	switch b := p[0]; {
	case b>>6 == 0:
		return uint64(b), p[1:], nil
	case b>>6 == 1 && len(p) >= 2:
		return uint64(b&0x3f)<<8 | uint64(p[1]), p[2:], nil
	case b == 0x80 && len(p) >= 5:
		return uint64(p[1])<<24 | uint64(p[2])<<16 | uint64(p[3])<<8 | uint64(p[4]), p[5:], nil
	}
	return 0, nil, fmt.Errorf("unexpected length byte %#x", p[0])
}
