package crc64

import (
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

func BenchmarkCRC64(b *testing.B) {
	buf := make([]byte, 256<<10)
	b.Run("rdbio", func(b *testing.B) {
		b.SetBytes(int64(len(buf)))
		for b.Loop() {
			Update(0, buf)
		}
	})
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
