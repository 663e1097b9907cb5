package lzf

// The encoder and decoder as they were before they were made faster
// (commit b16d03b), kept as the reference the fuzz tests of ref_test.go
// compare the new ones with: the same bytes, the same decisions, the same
// errors at the same places.

import (
	"encoding/binary"
	"fmt"
	"math/bits"
)

// refEncoder is Encoder's state for the reference encoder.
type refEncoder struct {
	table [hashSize]uint32
}

// refEncode is Encoder.Encode with the reference encoder, from a clean
// table each time.
func (e *refEncoder) refEncode(src []byte, budget int) ([]byte, bool) {
	if len(src) == 0 || budget <= 0 || uint64(len(src)) > 1<<32-1 {
		return nil, false
	}
	clear(e.table[:])
	out := make([]byte, budget)
	n, ok := e.encode(out, src)
	if !ok {
		return nil, false
	}
	return out[:n], true
}

func refHash(b0, b1, b2 byte) int {
	return refHashOf(uint32(b0)<<16 | uint32(b1)<<8 | uint32(b2))
}

// refHashOf is IDX(h) of a value whose low 24 bits hold the three bytes;
// bits above them do not reach the result.
func refHashOf(h uint32) int {
	return int((h>>(3*8-hashLog) - h*5) & hashMask)
}

// encode is Encoder.encode as it was before the rewrite: it runs the
// compressor over src, writing into out (len(out) is the budget). It
// returns the stream length, or false where lzf_compress returns 0.
//
// The output holds, at all times, an open literal run: out[op-lit-1] is the
// reserved control byte of a run whose lit bytes precede op. An empty run's
// reserved byte is taken back when a back reference or the end follows.
func (e *refEncoder) encode(out, src []byte) (int, bool) {
	budget := len(out)
	end := len(src)
	op, lit := 1, 0
	ip := 0
	// h rolls the bytes at ip, ip+1, ip+2 in its low 24 bits, as lzf_c.c's
	// hval: one load per position instead of three (hash masks off what
	// lies above).
	var h uint32
	if end >= 2 {
		h = uint32(src[0])<<8 | uint32(src[1])
	}
	for ip < end-2 {
		h = h<<8 | uint32(src[ip+2])
		slot := &e.table[refHashOf(h)]
		ref := int(*slot)
		*slot = uint32(ip)
		if !refCandidate(src, ref, ip) {
			if op >= budget {
				return 0, false
			}
			out[op] = src[ip]
			op, lit, ip = op+1, lit+1, ip+1
			if lit == maxLiteral {
				out[op-lit-1] = byte(lit - 1)
				op, lit = op+1, 0
			}
			continue
		}

		// A back reference needs up to 3 bytes, plus room to open the
		// next literal run; lzf_c.c insists on one more byte than that.
		op = refCloseRun(out, op, lit)
		if op+4 >= budget {
			return 0, false
		}
		n := refMatchLen(src[ref:], src[ip:], end-ip-2)
		op = refPutRef(out, op, ip-ref-1, n)
		op, lit = op+1, 0
		ip += n
		if ip >= end-2 {
			break
		}
		// VERY_FAST: of the positions inside the reference only the last
		// two are hashed.
		e.table[refHash(src[ip-2], src[ip-1], src[ip])] = uint32(ip - 2)
		e.table[refHash(src[ip-1], src[ip], src[ip+1])] = uint32(ip - 1)
		h = uint32(src[ip])<<8 | uint32(src[ip+1])
	}

	// At most two input bytes are left, and at most one more control byte.
	if op+3 > budget {
		return 0, false
	}
	for ; ip < end; ip++ {
		out[op] = src[ip]
		op, lit = op+1, lit+1
		if lit == maxLiteral {
			out[op-lit-1] = byte(lit - 1)
			op, lit = op+1, 0
		}
	}
	return refCloseRun(out, op, lit), true
}

// refCandidate reports whether the position ref taken from the hash table is
// a usable match for ip: strictly after the start of the input (as lzf_c.c
// demands), before ip, within reach, and starting with the same three bytes.
func refCandidate(src []byte, ref, ip int) bool {
	return ref > 0 && ref < ip && ip-ref-1 < maxOffset &&
		src[ref+2] == src[ip+2] && src[ref] == src[ip] && src[ref+1] == src[ip+1]
}

// refCloseRun writes the control byte of the open literal run and returns the
// output position; an empty run gives its reserved byte back.
func refCloseRun(out []byte, op, lit int) int {
	if lit == 0 {
		return op - 1
	}
	out[op-lit-1] = byte(lit - 1)
	return op
}

// refPutRef writes a back reference of n bytes (n >= 3) at distance off+1.
func refPutRef(out []byte, op, off, n int) int {
	l := n - 2
	hi := byte(off >> 8)
	if l < 7 {
		out[op] = hi + byte(l<<5)
		op++
	} else {
		out[op] = hi + 7<<5
		out[op+1] = byte(l - 7)
		op += 2
	}
	out[op] = byte(off)
	return op + 1
}

// refMatchLen returns how many leading bytes of a and b agree, given that the
// first three do, up to a limit derived from maxlen (the input left after the
// first two bytes, capped at maxRef) the way lzf_c.c's loop derives it.
// That loop checks bytes 3..18 unconditionally when maxlen > 16 and only then
// tests the limit, so for maxlen 17 or 18 a match may reach 19 bytes; for
// maxlen < 3 the three known bytes are the match.
func refMatchLen(a, b []byte, maxlen int) int {
	limit := min(maxlen, maxRef)
	switch {
	case limit > 16 && limit < 19:
		limit = 19
	case limit < 3:
		return 3
	}
	n := 3
	for n+8 <= limit {
		x := binary.LittleEndian.Uint64(a[n:]) ^ binary.LittleEndian.Uint64(b[n:])
		if x != 0 {
			return n + bits.TrailingZeros64(x)/8
		}
		n += 8
	}
	for n < limit && a[n] == b[n] {
		n++
	}
	return n
}

// refDecodeInto is decodeInto as it was before the rewrite. It decodes
// src into out and returns the number of bytes written:
// all of src, or as far as the first run that reaches stop bytes of output.
// It fails if the stream would write past len(out).
func refDecodeInto(out, src []byte, stop int) (int, error) {
	op, ip := 0, 0
	for ip < len(src) && op < stop {
		c := int(src[ip])
		ip++
		if c < maxLiteral {
			n := c + 1
			if n > len(src)-ip {
				return op, fmt.Errorf("lzf: literal run of %d bytes at input offset %d is truncated: %w", n, ip-1, ErrCorrupt)
			}
			if n > len(out)-op {
				return op, fmt.Errorf("lzf: literal run at input offset %d overflows the %d-byte output: %w", ip-1, len(out), ErrCorrupt)
			}
			if n <= 16 && ip+16 <= len(src) && op+16 <= len(out) {
				// Most runs are short: two 8-byte moves beat copy's call.
				// The bytes written past the run are overwritten later.
				binary.LittleEndian.PutUint64(out[op:], binary.LittleEndian.Uint64(src[ip:]))
				binary.LittleEndian.PutUint64(out[op+8:], binary.LittleEndian.Uint64(src[ip+8:]))
			} else {
				copy(out[op:], src[ip:ip+n])
			}
			op += n
			ip += n
			continue
		}
		start := ip - 1
		n := c >> 5
		if n == 7 {
			if ip >= len(src) {
				return op, fmt.Errorf("lzf: back reference at input offset %d is truncated: %w", start, ErrCorrupt)
			}
			n += int(src[ip])
			ip++
		}
		if ip >= len(src) {
			return op, fmt.Errorf("lzf: back reference at input offset %d is truncated: %w", start, ErrCorrupt)
		}
		dist := (c&0x1f)<<8 | int(src[ip]) + 1
		ip++
		n += 2
		if dist > op {
			return op, fmt.Errorf("lzf: back reference at input offset %d reaches %d bytes back, only %d decoded: %w", start, dist, op, ErrCorrupt)
		}
		if n > len(out)-op {
			return op, fmt.Errorf("lzf: back reference at input offset %d overflows the %d-byte output: %w", start, len(out), ErrCorrupt)
		}
		if dist >= 8 && n <= 16 && op+16 <= len(out) {
			// A short reference at least 8 back: two 8-byte moves, each
			// reading only bytes already final (the second may read the
			// first's, which is what a forward copy does).
			binary.LittleEndian.PutUint64(out[op:], binary.LittleEndian.Uint64(out[op-dist:]))
			binary.LittleEndian.PutUint64(out[op+8:], binary.LittleEndian.Uint64(out[op+8-dist:]))
		} else {
			refCopyBack(out[op-dist:op+n], dist)
		}
		op += n
	}
	return op, nil
}

// refCopyBack fills w[dist:] from dist bytes back, as a byte-by-byte forward
// copy would: when the regions overlap, the last dist bytes repeat.
func refCopyBack(w []byte, dist int) {
	if len(w) <= 2*dist {
		copy(w[dist:], w[:dist])
		return
	}
	// Each pass copies everything written so far, so the periodic prefix
	// doubles; its length stays a multiple of dist, keeping the phase right.
	for done := dist; done < len(w); {
		done += copy(w[done:], w[:done])
	}
}
