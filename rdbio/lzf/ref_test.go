package lzf

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

// refSeeds are inputs of every kind the encoder tests use, short enough
// to fuzz from.
func refSeeds() [][]byte {
	r := rand.New(rand.NewPCG(21, 22))
	seeds := [][]byte{nil, {'x'}, []byte("xy"), []byte("xyz"), []byte("xyzx"), bytes.Repeat([]byte{'a'}, 300),
		[]byte("Q0123456789abcdefghijK0123456789abcdefghij"), bytes.Repeat([]byte("abc"), 100)}
	for _, n := range []int{21, 33, 64, 100, 257, 1000, 4000} {
		seeds = append(seeds, rdbiotest.JSONish(r, n), rdbiotest.RandomBytes(r, n), rdbiotest.LowEntropy(r, n), rdbiotest.Patchy(r, n))
	}
	return seeds
}

// reference is the reference encoder of the tests (which run one at a time).
var reference refEncoder

// checkEncodeSame encodes src with the reference encoder and with e
// (whatever its table holds) at the budget that always fits and at budget,
// and fails unless both give the same bytes and the same decision.
func checkEncodeSame(t *testing.T, e *Encoder, src []byte, budget int) {
	t.Helper()
	for _, b := range []int{len(src) + len(src)/32 + 8, budget} {
		want, wok := reference.refEncode(src, b)
		got, ok := e.Encode(nil, src, b)
		if ok != wok || !bytes.Equal(got, want) {
			t.Fatalf("%d bytes, budget %d: Encode %v % x, the reference %v % x", len(src), b, ok, head(got), wok, head(want))
		}
	}
}

func head(b []byte) []byte { return b[:min(len(b), 40)] }

// TestEncodeMatchesReference compares the encoder with the one it replaced
// (oldimpl_test.go) on random inputs of every kind at every budget around
// the stream's length, with a table left dirty by the previous input.
func TestEncodeMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	var e Encoder
	for i := range 3000 {
		n := 1 + r.IntN(300)
		if i%10 == 0 {
			n = 1 + r.IntN(20000)
		}
		var src []byte
		switch i % 5 {
		case 0:
			src = rdbiotest.JSONish(r, n)
		case 1:
			src = rdbiotest.Patchy(r, n)
		case 2:
			src = rdbiotest.LowEntropy(r, n)
		case 3:
			src = rdbiotest.RandomBytes(r, n)
		default:
			src = bytes.Repeat(rdbiotest.RandomBytes(r, 1+r.IntN(40)), n)[:n]
		}
		full, _ := reference.refEncode(src, len(src)+len(src)/32+8)
		for b := len(full) - 2; b <= len(full)+5; b++ {
			checkEncodeSame(t, &e, src, b)
		}
	}
}

// FuzzEncodeMatchesReference: the encoder, its table dirtied by another
// input, gives the reference encoder's bytes and decision at any budget.
func FuzzEncodeMatchesReference(f *testing.F) {
	seeds := refSeeds()
	for i, s := range seeds {
		f.Add(s, seeds[(i+1)%len(seeds)], uint16(len(s)))
	}
	var e Encoder
	f.Fuzz(func(t *testing.T, src, dirt []byte, budget uint16) {
		e.Encode(nil, dirt, len(dirt)+len(dirt)/32+8)
		checkEncodeSame(t, &e, src, int(budget))
	})
}

// checkDecodeSame decodes z into outputs of ulen bytes with decodeInto and
// the reference, stopping at stop, and fails unless both write the same
// bytes and stop at the same place with the same error.
func checkDecodeSame(t *testing.T, z []byte, ulen, stop int) {
	t.Helper()
	got, want := make([]byte, ulen), make([]byte, ulen)
	n, err := decodeInto(got, z, stop)
	wn, werr := refDecodeInto(want, z, stop)
	if n != wn || fmt.Sprint(err) != fmt.Sprint(werr) || !bytes.Equal(got[:n], want[:wn]) {
		t.Fatalf("% x into %d bytes, stop %d: decoded %d bytes (%v), the reference %d bytes (%v)", head(z), ulen, stop, n, err, wn, werr)
	}
}

// TestDecodeMatchesReference decodes the streams of random inputs (runs of
// short and of long periods among them), whole,
// cut short, into too small an output and with a byte changed, with
// decodeInto and the decoder it replaced.
func TestDecodeMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 26))
	var e Encoder
	for i := range 3000 {
		n := 1 + r.IntN(2000)
		src := [][]byte{rdbiotest.JSONish(r, n), rdbiotest.Patchy(r, n), rdbiotest.LowEntropy(r, n),
			bytes.Repeat(rdbiotest.RandomBytes(r, 1+r.IntN(20)), n)[:n],
			// Periods past a reference's longest: long references apart
			// from their source (memmove in decodeInto).
			bytes.Repeat(rdbiotest.RandomBytes(r, 64+r.IntN(300)), n/64+1)[:n]}[i%5]
		z, _ := e.Encode(nil, src, len(src)+len(src)/32+8)
		checkDecodeSame(t, z, n, 1<<62)
		checkDecodeSame(t, z, n, r.IntN(n+1))
		checkDecodeSame(t, z[:r.IntN(len(z))], n, 1<<62)
		checkDecodeSame(t, z, r.IntN(n), 1<<62)
		bad := bytes.Clone(z)
		bad[r.IntN(len(bad))] ^= byte(1 + r.IntN(255))
		checkDecodeSame(t, bad, n, 1<<62)
	}
}

// FuzzDecodeMatchesReference: on any bytes, decodeInto writes what the
// reference writes and fails where it fails, with the same error.
func FuzzDecodeMatchesReference(f *testing.F) {
	var e Encoder
	for _, s := range refSeeds() {
		if z, ok := e.Encode(nil, s, len(s)+len(s)/32+8); ok {
			f.Add(z, uint16(len(s)), uint16(len(s)))
		}
	}
	f.Add([]byte{0xff, 0xff, 0xff}, uint16(300), uint16(300))
	f.Add([]byte{0x00, 'a', 0xe0, 0xff, 0x00}, uint16(266), uint16(100))
	f.Fuzz(func(t *testing.T, z []byte, ulen, stop uint16) {
		checkDecodeSame(t, z, int(ulen), int(stop))
	})
}
