package block

import (
	"encoding/binary"
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

// A filter is a Golomb-Rice coded set (FORMAT.md §2.4): the n distinct key
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
func codeFilter(vs []uint64, p uint) []byte { return appendCode(nil, vs, 0, p) }

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
	return cellMatch(f, n, p, 0, filterValue(h, n, p))
}

// bitReader reads a filter most significant bit first, 64 bits at a time.
type bitReader struct {
	f     []byte
	pos   int    // next byte of f to load
	buf   uint64 // bits not yet read, left-aligned
	avail uint   // how many
}

// fill loads whole bytes while they fit: eight at a time, then one by one
// at the end of the filter.
func (r *bitReader) fill() {
	if k := (64 - r.avail) / 8; k > 0 && r.pos+8 <= len(r.f) {
		w := binary.BigEndian.Uint64(r.f[r.pos:])
		w = w >> (64 - 8*k) << (64 - 8*k)
		r.buf |= w >> r.avail
		r.pos += int(k)
		r.avail += 8 * k
		return
	}
	for r.avail <= 56 && r.pos < len(r.f) {
		r.buf |= uint64(r.f[r.pos]) << (56 - r.avail)
		r.pos++
		r.avail += 8
	}
}

// unary counts one bits up to the next zero bit, which it consumes.
func (r *bitReader) unary() (uint64, bool) {
	var q uint64
	for {
		r.fill()
		if r.avail == 0 {
			return 0, false
		}
		ones := uint(bits.LeadingZeros64(^r.buf))
		if ones < r.avail {
			q += uint64(ones)
			r.buf <<= ones + 1
			r.avail -= ones + 1
			return q, true
		}
		q += uint64(r.avail)
		r.buf, r.avail = 0, 0
	}
}

// bits reads n ≤ 32 bits.
func (r *bitReader) bits(n uint) (uint64, bool) {
	r.fill()
	if r.avail < n {
		return 0, false
	}
	v := r.buf >> (64 - n)
	r.buf <<= n
	r.avail -= n
	return v, true
}
