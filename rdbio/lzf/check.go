package lzf

import "math"

// DecodeFaithful decodes the LZF stream src into dst[:0] as Decode does
// and also reports whether src is exactly what Encode makes of the
// decoded bytes with a budget large enough to keep it (Redis's stream of
// them, as RDB strings and quicklist nodes need for a byte-exact copy).
//
// It answers that without encoding: it walks src's items beside the
// encoder's hash table, probing every position the encoder would probe,
// and checks that each literal position finds no match, that each back
// reference is the match the encoder's probe finds there, and that it
// ends where the encoder would stop extending it. The bytes inside a back
// reference are equal to those it points at because they were decoded
// from it, so they are not compared again, and nothing is written. In
// profiles of compress of lists-events-lzf at scale 8 the check took 1.5
// times the CPU of decoding, where encoding and comparing took 3.5 times;
// on short JSON-like strings, whose many short matches each cost a table
// probe either way, it gains 10% (BenchmarkLZFDecodeFaithful).
func (e *Encoder) DecodeFaithful(dst, src []byte, ulen int) ([]byte, bool, error) {
	dec, err := Decode(dst, src, ulen)
	if err != nil {
		return dec, false, err
	}
	return dec, e.reproduces(src, dec), nil
}

// reproduces reports whether Encode(dec) gives comp, comp being a stream
// that decodes to dec (DecodeFaithful has checked that). It makes the
// encoder's decisions in encode's order and updates its table as encode
// does, so that the calls before and after it see the table they would.
func (e *Encoder) reproduces(comp, dec []byte) bool {
	if len(dec) == 0 || uint64(len(dec)) > math.MaxUint32 {
		return false
	}
	base := e.begin(len(dec))
	ip := 0 // the next position the encoder probes
	if len(dec) >= 3 {
		e.table[hashOf(uint32(dec[0])<<16|uint32(dec[1])<<8|uint32(dec[2]))] = stale
		ip = 1
	}
	end := len(dec) - 2 // positions from here on are not probed
	lit, op := 0, 0     // the pending literals' start; the next item of comp
	for {
		// The literal runs up to the next back reference: putLiterals
		// writes them as runs of maxLiteral but for the last.
		n := 0
		for op < len(comp) && comp[op] < maxLiteral {
			if n%maxLiteral != 0 {
				return false
			}
			k := int(comp[op]) + 1
			n += k
			op += 1 + k
		}
		at := lit + n // where the back reference (or the input) starts
		if op >= len(comp) {
			return op == len(comp) && at == len(dec) && e.noMatch(dec, ip, end, base)
		}
		if at < 1 || at >= end || !e.noMatch(dec, ip, at, base) {
			return false // (a reference at 0 does not decode: no probe reads before dec)
		}
		ref, ok := probe(&e.table, dec, load32(dec, at-1), at, base)
		if !ok {
			return false
		}
		c := comp[op]
		k := int(c>>5) + 2
		if c>>5 == 7 {
			op++
			k += int(comp[op])
		}
		if int(c&0x1f)<<8|int(comp[op+1]) != at-ref-1 || !longest(dec, ref, at, k) {
			return false
		}
		op += 2
		ip = at + k
		lit = ip
		if ip < end {
			// VERY_FAST: the last two positions of the reference.
			x := load32(dec, ip-2)
			e.table[hashOf(x>>8)] = uint32(base + ip - 2)
			e.table[hashOf(x)] = uint32(base + ip - 1)
		}
	}
}

// noMatch probes positions from to to (excluded) as the encoder's search
// does and reports whether none of them finds a match.
func (e *Encoder) noMatch(dec []byte, from, to, base int) bool {
	t := &e.table
	for ip := from; ip < to; ip++ {
		if _, ok := probe(t, dec, load32(dec, ip-1), ip, base); ok {
			return false
		}
	}
	return true
}

// longest reports whether n is the length matchLen gives the match of
// dec at ip with dec at ref, given that the n bytes there are equal (they
// were decoded as a back reference): n is matchLen's limit, or below it
// with the next bytes different.
func longest(dec []byte, ref, ip, n int) bool {
	limit := min(len(dec)-ip-2, maxRef)
	switch {
	case limit > 16 && limit < 19:
		limit = 19
	case limit < 3:
		return n == 3
	}
	return n == limit || n < limit && dec[ref+n] != dec[ip+n]
}
