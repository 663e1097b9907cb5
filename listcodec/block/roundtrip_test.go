package block

import (
	"bytes"
	"context"
	"math/rand/v2"
	"os"
	"sync"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// randomStream makes n records of random lengths (some far over a block)
// of compressible bytes, with keys.
func randomStream(seed uint64, n, maxLen int) ([]byte, []record) {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e37))
	var t []byte
	var recs []record
	words := []string{"user:", "session", "{\"id\":", "null", "true", "2026-12-01T", "payload", "\x00\x01", "ABCDEFGH"}
	for i := range n {
		l := 1 + rng.IntN(maxLen)
		if rng.IntN(50) == 0 {
			l = 1 + rng.IntN(maxLen*40)
		}
		off := int64(len(t))
		for len(t)-int(off) < l {
			if rng.IntN(4) == 0 {
				t = append(t, byte(rng.Uint32()))
			} else {
				t = append(t, words[rng.IntN(len(words))]...)
			}
		}
		t = t[:off+int64(l)]
		r := record{off: off, end: off + int64(l)}
		if rng.IntN(8) != 0 {
			r.key = []byte("key:" + string(rune('a'+i%26)) + string(rune(i)))
		}
		recs = append(recs, r)
	}
	return t, recs
}

func TestRoundTripRandom(t *testing.T) {
	for _, bs := range []int{MinBlockSize, 4 << 10, 64 << 10} {
		for seed := uint64(1); seed <= 3; seed++ {
			data, recs := randomStream(seed, 3000, 3000)
			file, st := writeRecords(t, data, recs, nil, Options{BlockSize: bs})
			if got := readAll(t, file, ReaderOptions{}); !bytes.Equal(got, data) {
				t.Fatalf("bs %d seed %d: sequential read differs (%d vs %d bytes)", bs, seed, len(got), len(data))
			}
			t.Logf("bs %d: %d -> %d bytes, %d blocks, index %d", bs, len(data), st.Total(), st.Blocks, st.IndexBytes)
		}
	}
}

// TestIncompressible: random bytes at every level and several block sizes
// stay within the format's frame bound (the Writer would fail otherwise).
func TestIncompressible(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	data := make([]byte, 3<<20)
	for i := range data {
		data[i] = byte(rng.Uint32())
	}
	recs := []record{{off: 0, end: int64(len(data)), key: []byte("r")}}
	for _, bs := range []int{MinBlockSize, 3000, 64 << 10, 128 << 10, 256 << 10, 1 << 20} {
		for _, l := range []zstd.EncoderLevel{zstd.SpeedFastest, zstd.SpeedDefault, zstd.SpeedBetterCompression} {
			file, _ := writeRecords(t, data, recs, nil, Options{BlockSize: bs, Level: l})
			if got := readAll(t, file, ReaderOptions{}); !bytes.Equal(got, data) {
				t.Fatalf("bs %d level %v: differs", bs, l)
			}
		}
	}
}

// TestSharedEncoder: Writers sharing one encoder (Options.Encoder, as
// split's parts do), at once, write the bytes each writes with its own,
// with a dictionary and without.
func TestSharedEncoder(t *testing.T) {
	dict, err := os.ReadFile("../../testdata/test.dict")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range [][]byte{nil, dict} {
		opt := Options{BlockSize: 16 << 10, Level: zstd.SpeedDefault, Workers: 1}
		enc, err := NewEncoder(d, Options{BlockSize: opt.BlockSize, Level: opt.Level, Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		for seed := uint64(1); seed <= 3; seed++ {
			data, recs := randomStream(seed, 1500, 3000)
			own, _ := writeRecords(t, data, recs, d, opt)
			wg.Go(func() {
				shared := opt
				shared.Encoder = enc
				var out bytes.Buffer
				w, err := NewWriter(context.Background(), &out, d, shared)
				if err == nil {
					err = feed(w, data, recs)
				}
				if err == nil {
					err = w.Close()
				}
				if err != nil || !bytes.Equal(out.Bytes(), own) {
					t.Errorf("dict %d bytes, seed %d: %d bytes with the shared encoder (%v), %d with its own", len(d), seed, out.Len(), err, len(own))
				}
			})
		}
		wg.Wait()
		enc.Close()
	}
}
