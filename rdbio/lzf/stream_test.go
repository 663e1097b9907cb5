package lzf_test

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/rdbz/rdbz/rdbio/lzf"
	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

// TestLZFReaderMatchesDecode: the streaming decoder gives lzf.Decode's bytes
// on every input of the encoder tests, and fails where it fails.
func TestLZFReaderMatchesDecode(t *testing.T) {
	var enc lzf.Encoder
	r := rand.New(rand.NewPCG(4, 4))
	inputs := [][]byte{
		rdbiotest.JSONish(r, 300000), rdbiotest.Patchy(r, 100000), rdbiotest.LowEntropy(r, 50000),
		bytes.Repeat([]byte{0}, 1<<20), []byte("ab"),
	}
	for i, src := range inputs {
		z, ok := enc.Encode(nil, src, bound(len(src)))
		if !ok {
			t.Fatalf("input %d does not encode", i)
		}
		got, err := io.ReadAll(lzf.NewReader(bytes.NewReader(z), int64(len(src))))
		if err != nil || !bytes.Equal(got, src) {
			t.Fatalf("input %d: streamed %d bytes (%v), want %d", i, len(got), err, len(src))
		}
		for _, ulen := range []int64{int64(len(src)) - 1, int64(len(src)) + 1, 1 << 40} {
			if _, err := io.ReadAll(lzf.NewReader(bytes.NewReader(z), ulen)); !errors.Is(err, lzf.ErrCorrupt) {
				t.Fatalf("input %d with length %d: %v, want lzf.ErrCorrupt", i, ulen, err)
			}
		}
	}
}

// TestLZFDecodeRefusesImpossibleLength: a claimed length no stream of that
// size can reach is refused before anything is allocated for it.
func TestLZFDecodeRefusesImpossibleLength(t *testing.T) {
	if _, err := lzf.Decode(nil, []byte{0, 'a'}, 1<<40); !errors.Is(err, lzf.ErrCorrupt) {
		t.Fatalf("Decode claiming 1 TiB: %v", err)
	}
}

func FuzzLZFReader(f *testing.F) {
	var enc lzf.Encoder
	z, _ := enc.Encode(nil, []byte("hello hello hello hello hello"), 100)
	f.Add(z, int64(29))
	f.Fuzz(func(t *testing.T, z []byte, ulen int64) {
		if ulen < 0 || ulen > 1<<20 {
			ulen = (ulen%(1<<20) + 1<<20) % (1 << 20)
		}
		got, err := io.ReadAll(lzf.NewReader(bytes.NewReader(z), ulen))
		want, werr := lzf.Decode(nil, z, int(ulen))
		if (err == nil) != (werr == nil) || (err == nil && !bytes.Equal(got, want)) {
			t.Fatalf("stream %d bytes %v, whole %d bytes %v", len(got), err, len(want), werr)
		}
	})
}
