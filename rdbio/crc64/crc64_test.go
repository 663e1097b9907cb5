package crc64

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/hdt3213/rdb/crc64jones"
)

func TestCRC64Check(t *testing.T) {
	c := New()
	c.Write([]byte("123456789"))
	if got := c.Sum64(); got != 0xe9c6d914c4b8d9ca {
		t.Fatalf("crc64(123456789) = %#x, want 0xe9c6d914c4b8d9ca", got)
	}
}

// TestCRC64MatchesHdt3213 compares with hdt3213/rdb's implementation on
// every length up to 300 and on random splits of a longer buffer.
func TestCRC64MatchesHdt3213(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	buf := make([]byte, 1<<16)
	for i := range buf {
		buf[i] = byte(rng.Uint32())
	}
	for n := 0; n <= 300; n++ {
		ref := crc64jones.New()
		ref.Write(buf[:n])
		if got := Update(0, buf[:n]); got != ref.Sum64() {
			t.Fatalf("length %d: %#x, want %#x", n, got, ref.Sum64())
		}
	}
	ref := crc64jones.New()
	ref.Write(buf)
	for range 20 {
		c, rest := New(), buf
		for len(rest) > 0 {
			n := min(len(rest), rng.IntN(5000))
			c.Write(rest[:n])
			rest = rest[n:]
		}
		if c.Sum64() != ref.Sum64() {
			t.Fatalf("split writes: %#x, want %#x", c.Sum64(), ref.Sum64())
		}
	}
}

// TestCRC64FoldMatchesTables compares Update, which folds long inputs
// where the CPU can, with the tables alone: every length to 2 KiB and
// then some, at every alignment mod 16, from random CRCs.
func TestCRC64FoldMatchesTables(t *testing.T) {
	if !canFold {
		t.Skip("no folding on this CPU: Update is the tables")
	}
	rng := rand.New(rand.NewPCG(5, 6))
	buf := make([]byte, 3<<20)
	for i := range buf {
		buf[i] = byte(rng.Uint32())
	}
	lengths := []int{1 << 20, 3<<20 - 16, 3<<20 - 15}
	for n := 0; n <= 2048; n++ {
		lengths = append(lengths, n)
	}
	defer func(w bool) { FoldsWide = w }(FoldsWide)
	for _, wide := range []bool{false, true} {
		if wide && !canFoldWide {
			t.Log("no 512-bit folding on this CPU: its path is not checked")
			continue
		}
		FoldsWide = wide
		for _, n := range lengths {
			at := rng.IntN(16)
			if at+n > len(buf) {
				at = len(buf) - n
			}
			crc := rng.Uint64()
			p := buf[at : at+n]
			if got, want := Update(crc, p), updateTables(crc, p); got != want {
				t.Fatalf("wide %v: length %d at %d from %#x: %#x, want %#x", wide, n, at, crc, got, want)
			}
		}
	}
}

func BenchmarkCRC64(b *testing.B) {
	buf := make([]byte, 256<<10)
	for _, n := range []int{64, 128, 256, 1024, len(buf)} {
		b.Run(fmt.Sprintf("rdbio/%d", n), func(b *testing.B) {
			b.SetBytes(int64(n))
			for b.Loop() {
				Update(0, buf[:n])
			}
		})
		b.Run(fmt.Sprintf("tables/%d", n), func(b *testing.B) {
			b.SetBytes(int64(n))
			for b.Loop() {
				updateTables(0, buf[:n])
			}
		})
	}
	b.Run("hdt3213", func(b *testing.B) {
		b.SetBytes(int64(len(buf)))
		h := crc64jones.New()
		for b.Loop() {
			h.Write(buf)
		}
	})
}

func TestCRC64Combine(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	buf := make([]byte, 70000)
	for i := range buf {
		buf[i] = byte(rng.Uint32())
	}
	for _, cut := range []int{0, 1, 7, 8, 9, 255, 4096, 65537, len(buf)} {
		a, b := buf[:cut], buf[cut:]
		if got, want := Combine(Checksum(a), Checksum(b), len(b)), Checksum(buf); got != want {
			t.Fatalf("cut at %d: %#x, want %#x", cut, got, want)
		}
	}
}

func BenchmarkCRC64Combine(b *testing.B) {
	for b.Loop() {
		Combine(0x1234, 0x5678, 8000)
	}
}

func TestDigestAddSum(t *testing.T) {
	buf := []byte("the quick brown fox jumps over the lazy dog")
	d := New()
	d.Write(buf[:10])
	d.AddSum(Checksum(buf[10:]), len(buf)-10)
	if got, want := d.Sum64(), Checksum(buf); got != want {
		t.Fatalf("AddSum: %#x, want %#x", got, want)
	}
}
