package lzf_test

import (
	"math/rand/v2"
	"testing"

	"github.com/rdbz/rdbz/rdbio/lzf"
)

// TestLZFPrefixRandom decodes prefixes of random LZF streams.
func TestLZFPrefixRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var enc lzf.Encoder
	for i := 0; i < 200; i++ {
		src := make([]byte, 20+rng.IntN(4000))
		for j := range src {
			src[j] = "abcabcxyz"[rng.IntN(9)]
		}
		comp, ok := enc.Encode(nil, src, bound(len(src)))
		if !ok {
			continue
		}
		for _, want := range []int{1, 10, len(src) / 2, len(src)} {
			got, err := lzf.DecodePrefix(nil, comp, want, len(src))
			if err != nil || len(got) < want || string(got) != string(src[:len(got)]) {
				t.Fatalf("prefix %d of %d bytes: err %v, %d bytes", want, len(src), err, len(got))
			}
		}
		if _, err := lzf.DecodePrefix(nil, comp, len(src), len(src)-1); err == nil {
			t.Fatal("decoding past the limit was not refused")
		}
	}
}
