package lzf_test

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/rdbz/rdbz/rdbio/lzf"
	"github.com/rdbz/rdbz/rdbio/rdbiotest"
	"github.com/rdbz/rdbz/rdbio/rdbiotest/redislzf"
)

// redisC builds Redis's LZF code from $RDBZ_REDIS_SRC, or skips the test.
func redisC(t *testing.T) *redislzf.Harness {
	t.Helper()
	h, err := redislzf.Build(t.TempDir(), nil)
	if errors.Is(err, redislzf.ErrUnavailable) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// differentialInputs are the strings the C comparisons encode: the values
// TestLZFMatchesRedis stores in redis-server, the encoder tests' inputs,
// and every 7th LZF string of the corpus's two largest LZF dumps.
func differentialInputs(t *testing.T) [][]byte {
	srcs := redisTestValues()
	for _, src := range inputs() {
		srcs = append(srcs, src)
	}
	for _, name := range []string{"app-cache.rdb", "lists-events-lzf.rdb"} {
		d, err := redislzf.LZFStrings(filepath.Join(rdbiotest.Shared(), "corpus", "generated", name))
		if err != nil {
			t.Logf("%s left out: %v", name, err)
			continue
		}
		for i := 0; i < len(d.Items); i += 7 {
			srcs = append(srcs, d.Items[i].Raw)
		}
	}
	return srcs
}

// TestLZFEncodeMatchesRedisC: Encoder makes the stream and the decision
// of Redis's own lzf_compress (built from $RDBZ_REDIS_SRC; skipped without
// it or gcc) at the budget that always fits, at Redis's len-4 and at every
// budget from one below the stream's length to five above, with its table
// left by the previous input as lzf_compress's stack is.
func TestLZFEncodeMatchesRedisC(t *testing.T) {
	h := redisC(t)
	var enc lzf.Encoder
	var items []redislzf.Item
	for _, src := range differentialInputs(t) {
		full, _ := enc.Encode(nil, src, bound(len(src)))
		budgets := []int{bound(len(src)), len(src) - 4}
		for b := len(full) - 1; b <= len(full)+5; b++ {
			budgets = append(budgets, b)
		}
		for _, b := range budgets {
			items = append(items, redislzf.Item{Raw: src, Budget: max(b, 0)})
		}
	}
	want, err := h.Encode(t.TempDir(), items)
	if err != nil {
		t.Fatal(err)
	}
	kept := 0
	for i, it := range items {
		got, ok := enc.Encode(nil, it.Raw, it.Budget)
		if ok != (want[i] != nil) || !bytes.Equal(got, want[i]) {
			t.Fatalf("%d bytes, budget %d: Encode %v %d bytes, lzf_compress %d bytes", len(it.Raw), it.Budget, ok, len(got), len(want[i]))
		}
		if ok {
			kept++
		}
	}
	t.Logf("%d encodings compared with lzf_compress (%d kept, %d refused)", len(items), kept, len(items)-kept)
}

// TestLZFDecodeMatchesRedisC: Decode accepts exactly the streams Redis's
// lzf_decompress decodes to the length claimed (as rdbLoadLzfStringObject
// requires), with the same bytes, on valid streams and on them cut short,
// with a byte changed, or claiming a length one off.
func TestLZFDecodeMatchesRedisC(t *testing.T) {
	h := redisC(t)
	r := rand.New(rand.NewPCG(31, 32))
	var enc lzf.Encoder
	var items []redislzf.Item
	add := func(z []byte, ulen int) {
		if ulen > 0 {
			items = append(items, redislzf.Item{Raw: make([]byte, ulen), Comp: z})
		}
	}
	for _, src := range differentialInputs(t) {
		z, ok := enc.Encode(nil, src, bound(len(src)))
		if !ok {
			continue
		}
		add(z, len(src))
		add(z, len(src)-1)
		add(z, len(src)+1)
		add(z[:r.IntN(len(z))], len(src))
		bad := bytes.Clone(z)
		bad[r.IntN(len(bad))] ^= byte(1 + r.IntN(255))
		add(bad, len(src))
	}
	want, err := h.Decode(t.TempDir(), items)
	if err != nil {
		t.Fatal(err)
	}
	refused := 0
	for i, it := range items {
		ulen := len(it.Raw)
		got, err := lzf.Decode(nil, it.Comp, ulen)
		cOK := len(want[i]) == ulen
		if (err == nil) != cOK || (cOK && !bytes.Equal(got, want[i])) {
			t.Fatalf("stream %d (%d bytes, length %d): Decode %v, lzf_decompress %d bytes", i, len(it.Comp), ulen, err, len(want[i]))
		}
		if !cOK {
			refused++
		}
	}
	t.Logf("%d decodings compared with lzf_decompress (%d refused by both)", len(items), refused)
}
