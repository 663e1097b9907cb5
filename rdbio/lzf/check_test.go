package lzf_test

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/rdbz/rdbz/rdbio/lzf"
)

// item is one item of an LZF stream: a literal run (ref 0) or a back
// reference of n bytes at distance ref.
type item struct {
	lit    []byte
	n, ref int
}

// items parses a stream known to decode to dec.
func items(z, dec []byte) []item {
	var out []item
	pos := 0
	for i := 0; i < len(z); {
		c := int(z[i])
		if c < 32 {
			out = append(out, item{lit: dec[pos : pos+c+1]})
			pos += c + 1
			i += c + 2
			continue
		}
		n := c>>5 + 2
		if c>>5 == 7 {
			i++
			n += int(z[i])
		}
		out = append(out, item{n: n, ref: (c&31)<<8 | int(z[i+1]) + 1})
		pos += n
		i += 2
	}
	return out
}

// stream writes items as an LZF stream.
func stream(its []item) []byte {
	var z []byte
	for _, it := range its {
		if it.ref == 0 {
			z = append(append(z, byte(len(it.lit)-1)), it.lit...)
			continue
		}
		off := it.ref - 1
		if it.n < 9 {
			z = append(z, byte(off>>8)+byte(it.n-2)<<5, byte(off))
		} else {
			z = append(z, byte(off>>8)+7<<5, byte(it.n-9), byte(off))
		}
	}
	return z
}

// perturb returns another stream of dec, made from its items z by one
// change a decoder accepts: a literal run split in two, a back reference
// shortened by its last byte (then a literal), or a back reference written
// as literals.
func perturb(r *rand.Rand, z, dec []byte) []byte {
	its := items(z, dec)
	i := r.IntN(len(its))
	pos := 0
	for _, it := range its[:i] {
		pos += len(it.lit) + it.n
	}
	it := its[i]
	var repl []item
	switch {
	case it.ref == 0 && len(it.lit) > 1:
		k := 1 + r.IntN(len(it.lit)-1)
		repl = []item{{lit: it.lit[:k]}, {lit: it.lit[k:]}}
	case it.ref == 0:
		return nil
	case it.n > 3 && r.IntN(2) == 0:
		repl = []item{{n: it.n - 1, ref: it.ref}, {lit: dec[pos+it.n-1 : pos+it.n]}}
	default:
		for b := dec[pos : pos+it.n]; len(b) > 0; b = b[min(32, len(b)):] {
			repl = append(repl, item{lit: b[:min(32, len(b))]})
		}
	}
	return stream(append(append(append([]item{}, its[:i]...), repl...), its[i+1:]...))
}

// TestDecodeFaithful: the check agrees with encoding and comparing on the
// encoder's own streams (true) and on streams of the same bytes changed by
// one item (false unless the change gives the same stream), on one
// Encoder whose table the calls share, and leaves that table as encoding
// would: streams encoded after it are the same as a fresh Encoder's.
func TestDecodeFaithful(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var enc lzf.Encoder
	for name, src := range inputs() {
		z, ok := new(lzf.Encoder).Encode(nil, src, bound(len(src)))
		if !ok {
			if _, faithful, err := enc.DecodeFaithful(nil, nil, len(src)); err == nil && faithful {
				t.Errorf("%s: an empty stream called faithful", name)
			}
			continue
		}
		dec, faithful, err := enc.DecodeFaithful(nil, z, len(src))
		if err != nil || !faithful || !bytes.Equal(dec, src) {
			t.Fatalf("%s: own stream: faithful %v, err %v", name, faithful, err)
		}
		changed := 0
		for range 40 {
			p := perturb(r, z, src)
			if p == nil {
				continue
			}
			dec, faithful, err := enc.DecodeFaithful(nil, p, len(src))
			if err != nil || !bytes.Equal(dec, src) {
				t.Fatalf("%s: a perturbed stream does not decode: %v", name, err)
			}
			if want := bytes.Equal(p, z); faithful != want {
				t.Fatalf("%s: perturbed stream called faithful %v, want %v", name, faithful, want)
			}
			changed++
			again, _ := enc.Encode(nil, src, bound(len(src)))
			if !bytes.Equal(again, z) {
				t.Fatalf("%s: the check left the table in a state that changed the output", name)
			}
		}
		if len(src) > 100 && changed == 0 {
			t.Errorf("%s: no stream perturbed", name)
		}
	}
}

// FuzzDecodeFaithful: for any input and any one-item change of its
// stream, the check says faithful exactly when the stream is the
// encoder's; a stream that does not decode is an error, as Decode's.
func FuzzDecodeFaithful(f *testing.F) {
	for _, src := range inputs() {
		if len(src) < 5000 {
			f.Add(src, uint64(len(src)))
		}
	}
	var enc lzf.Encoder
	f.Fuzz(func(t *testing.T, src []byte, seed uint64) {
		z, ok := new(lzf.Encoder).Encode(nil, src, bound(len(src)))
		if !ok {
			return
		}
		if _, faithful, err := enc.DecodeFaithful(nil, z, len(src)); err != nil || !faithful {
			t.Fatalf("own stream: faithful %v, err %v", faithful, err)
		}
		r := rand.New(rand.NewPCG(seed, 1))
		if p := perturb(r, z, src); p != nil {
			if _, faithful, err := enc.DecodeFaithful(nil, p, len(src)); err != nil || faithful != bytes.Equal(p, z) {
				t.Fatalf("perturbed stream: faithful %v, err %v", faithful, err)
			}
		}
		// The input itself as a stream: an error exactly when Decode fails.
		want, werr := lzf.Decode(nil, src, int(seed%4096))
		got, faithful, err := enc.DecodeFaithful(nil, src, int(seed%4096))
		if (err == nil) != (werr == nil) || err == nil && !bytes.Equal(got, want) {
			t.Fatalf("stream of the input: err %v, Decode's %v", err, werr)
		}
		if err == nil {
			z2, _ := new(lzf.Encoder).Encode(nil, got, bound(len(got)))
			if faithful != (len(got) > 0 && bytes.Equal(z2, src)) {
				t.Fatalf("stream of the input: faithful %v", faithful)
			}
		}
	})
}

func BenchmarkLZFDecodeFaithful(b *testing.B) {
	src, z, dst := benchStream(b)
	var enc lzf.Encoder
	for b.Loop() {
		if _, ok, err := enc.DecodeFaithful(dst, z, len(src)); err != nil || !ok {
			b.Fatal(ok, err)
		}
	}
}

// BenchmarkLZFDecodeEncode is the check DecodeFaithful replaces: decode,
// encode and compare.
func BenchmarkLZFDecodeEncode(b *testing.B) {
	src, z, dst := benchStream(b)
	var enc lzf.Encoder
	out := make([]byte, len(z)+lzf.Slack)
	for b.Loop() {
		dec, err := lzf.Decode(dst, z, len(src))
		if err != nil {
			b.Fatal(err)
		}
		if out, _ = enc.Encode(out, dec, len(z)+lzf.Slack); !bytes.Equal(out, z) {
			b.Fatal("not the same")
		}
	}
}
