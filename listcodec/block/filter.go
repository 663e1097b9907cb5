package block

import (
	"math/bits"
	"slices"
)

// KeyHash is the 64-bit hash the index's filters are built from: FNV-1a
// (64-bit) of the key, then the finalizer of MurmurHash3 (fmix64) so that
// every bit depends on every key byte.
func KeyHash(key []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range key {
		h ^= uint64(c)
		h *= 1099511628211
	}
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return h
}

// A filter is a Golomb-Rice coded set (FORMAT.md §6.4): the n distinct key
// hashes of a block are mapped to 0..n·2^P-1 (the high 64 bits of
// hash × n·2^P), sorted, and their differences written as a unary quotient
// (q one bits, then a zero) and P low bits, most significant bit first. A
// key not in the set matches with a probability of about 2^-P.

// filterValue maps a hash into 0..n<<p-1.
func filterValue(h uint64, n int, p uint) uint64 {
	hi, _ := bits.Mul64(h, uint64(n)<<p)
	return hi
}

// filterBits is the coded length in bits of the sorted values vs with p.
func filterBits(vs []uint64, p uint) uint64 {
	var total, prev uint64
	for _, v := range vs {
		total += (v-prev)>>p + 1 + uint64(p)
		prev = v
	}
	return total
}

// buildFilter codes the distinct hashes hs (sorted and deduplicated in
// place) with the largest p ≤ MaxFilterP whose filter fits budget bytes, and
// returns n (distinct hashes), p and the filter; p 0 and no bytes when even
// p 1 does not fit (the block then matches every key). vs is scratch.
func buildFilter(hs []uint64, budget int, vs []uint64) (n int, p uint, f []byte, _ []uint64) {
	slices.Sort(hs)
	hs = slices.Compact(hs)
	n = len(hs)
	if n == 0 {
		return 0, 0, nil, vs
	}
	// Each value costs at least p+1 bits: start from the p that could fit.
	best := uint(0)
	for p := uint(MaxFilterP); p >= 1; p-- {
		if uint64(n)*uint64(p+1) > uint64(budget)*8 {
			continue
		}
		vs = vs[:0]
		for _, h := range hs {
			vs = append(vs, filterValue(h, n, p))
		}
		slices.Sort(vs)
		if b := filterBits(vs, p); b <= uint64(budget)*8 {
			best = p
			break
		}
	}
	if best == 0 {
		return n, 0, nil, vs
	}
	return n, best, codeFilter(vs, best), vs
}

// codeFilter writes the sorted values with parameter p.
func codeFilter(vs []uint64, p uint) []byte {
	var w bitWriter
	var prev uint64
	for _, v := range vs {
		d := v - prev
		prev = v
		for q := d >> p; q > 0; q-- {
			w.bit(1)
		}
		w.bit(0)
		w.bits(d&(1<<p-1), p)
	}
	return w.bytes()
}

type bitWriter struct {
	buf  []byte
	cur  byte
	used uint
}

func (w *bitWriter) bit(b uint64) {
	w.cur = w.cur<<1 | byte(b)
	w.used++
	if w.used == 8 {
		w.buf = append(w.buf, w.cur)
		w.cur, w.used = 0, 0
	}
}

func (w *bitWriter) bits(v uint64, n uint) {
	for i := int(n) - 1; i >= 0; i-- {
		w.bit(v >> uint(i) & 1)
	}
}

func (w *bitWriter) bytes() []byte {
	if w.used > 0 {
		w.buf = append(w.buf, w.cur<<(8-w.used))
		w.cur, w.used = 0, 0
	}
	return w.buf
}

// filterMatch reports whether the filter (n values coded with p) may hold
// hash h. A filter with p 0 matches everything; one that ends before its n
// values (a damaged index, which its CRC would have caught) matches too.
func filterMatch(f []byte, n int, p uint, h uint64) bool {
	if n == 0 {
		return false
	}
	if p == 0 {
		return true
	}
	want := filterValue(h, n, p)
	var v uint64
	pos, end := uint64(0), uint64(len(f))*8
	bit := func() (uint64, bool) {
		if pos >= end {
			return 0, false
		}
		b := uint64(f[pos>>3]>>(7-pos&7)) & 1
		pos++
		return b, true
	}
	for i := 0; i < n; i++ {
		var q uint64
		for {
			b, ok := bit()
			if !ok {
				return true
			}
			if b == 0 {
				break
			}
			q++
		}
		r := uint64(0)
		for j := uint(0); j < p; j++ {
			b, ok := bit()
			if !ok {
				return true
			}
			r = r<<1 | b
		}
		v += q<<p | r
		if v == want {
			return true
		}
		if v > want {
			return false
		}
	}
	return false
}
