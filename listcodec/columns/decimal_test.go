package columns

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// putDec writes what strconv does, for every digit count and its edges.
func TestPutDec(t *testing.T) {
	vals := []uint64{0, 1, 9, 10, 11, 99, 100, 101, 999, 1000, math.MaxUint64, math.MaxUint64 - 1}
	for i := 1; i < len(pow10); i++ {
		vals = append(vals, pow10[i]-1, pow10[i], pow10[i]+1)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 100000 {
		vals = append(vals, rng.Uint64()>>rng.IntN(64))
	}
	b := make([]byte, 24)
	for _, u := range vals {
		want := strconv.FormatUint(u, 10)
		n := decLen(u)
		if n != len(want) {
			t.Fatalf("decLen(%d) = %d, want %d", u, n, len(want))
		}
		for i := range b {
			b[i] = 'x'
		}
		putDec(b, u, n)
		if got := string(b[:n]); got != want || b[n] != 'x' {
			t.Fatalf("putDec(%d) = %q (then %q), want %q", u, got, b[n], want)
		}
	}
}

// literalEnd finds what a byte-by-byte scan finds, zeros and high bytes
// among the literals.
func TestLiteralEnd(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	alphabet := []byte{0, 1, 2, 3, 4, 5, 6, 'a', '0', 0x7f, 0x80, 0xff}
	for range 20000 {
		tmpl := scanInput(rng, alphabet)
		for _, last := range []byte{markEsc, markSlot} {
			for i := 0; i <= len(tmpl); i++ {
				want := i
				for want < len(tmpl) && (tmpl[want] < markNum || tmpl[want] > last) {
					want++
				}
				if got := literalEnd(tmpl, i, last); got != want {
					t.Fatalf("literalEnd(%x, %d, %d) = %d, want %d", tmpl, i, last, got, want)
				}
			}
		}
	}
}

// nextDigitOrMark finds what a byte-by-byte scan finds.
func TestNextDigitOrMark(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	alphabet := []byte{0, 1, 5, 6, '/', '0', '9', ':', 'a', 0x7f, 0x80, 0xb0, 0xb9, 0xff}
	for range 20000 {
		s := scanInput(rng, alphabet)
		for i := 0; i <= len(s); i++ {
			want := i
			for want < len(s) && !(s[want] >= '0' && s[want] <= '9' || s[want] >= markNum && s[want] <= markSlot) {
				want++
			}
			if got := nextDigitOrMark(s, i); got != want {
				t.Fatalf("nextDigitOrMark(%x, %d) = %d, want %d", s, i, got, want)
			}
		}
	}
}

// scanInput is up to 40 random bytes, a third of them from alphabet (the
// edges of the classes a scan tells apart).
func scanInput(rng *rand.Rand, alphabet []byte) []byte {
	s := make([]byte, rng.IntN(40))
	for i := range s {
		if rng.IntN(3) == 0 {
			s[i] = alphabet[rng.IntN(len(alphabet))]
		} else {
			s[i] = byte(rng.IntN(256))
		}
	}
	return s
}
