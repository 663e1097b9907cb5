package lzf

import (
	"encoding/binary"
	"math"
	"math/bits"
)

// Encoder produces LZF streams identical, byte for byte, to the
// lzf_compress function of Redis 3.2 and later: liblzf 3.6 as p.h
// configures it (HLOG 16, VERY_FAST 1, ULTRA_FAST 0, INIT_HTAB 0,
// CHECK_INPUT 1; AVOID_ERRNO and STRICT_ALIGN change nothing in the output,
// the latter only how two bytes are compared). Redis 3.0 and older shipped
// liblzf 3.5, whose streams are not guaranteed to match. This covers both
// strings saved with rdbcompression and quicklist nodes compressed in memory
// (list-compress-depth), which Redis saves as they are: those use the same
// function with another budget. Its hash table lives in the struct and is
// reused by every call, so encoding does not allocate once dst is large
// enough. The zero value is ready to use; an Encoder must not be used by
// two goroutines at once.
//
// The table is deliberately not cleared between calls. Redis does not clear
// it either (INIT_HTAB 0: a stack array holding whatever was there), and its
// contents cannot change the output:
//
//   - A slot's entry is used as a match only if it points strictly after the
//     start of the input and before the current position, and the three
//     bytes there equal the three bytes here, all checked against the
//     current input. So an entry left from another input matters only if
//     the current input has the same three bytes at an earlier position.
//   - The slot index depends only on those three bytes (IDX keeps the low 16
//     bits, which involve p[0..2] only). Every position is hashed before the
//     next one is looked up, except positions inside a back reference (after
//     its first byte, before its last two), and the three bytes at such a
//     position lie wholly inside the reference, so they also occur earlier.
//     Hence the first occurrence of any three bytes is always hashed.
//   - So if a leftover entry could match, the same three bytes occurred
//     earlier in this input, their first occurrence was hashed into this
//     very slot during this call, and the leftover was overwritten.
//
// Clearing the table would therefore change nothing but the cost; a fresh
// table and a used one give the same output, which TestLZFTableState and
// FuzzLZFEncode check, and TestLZFMatchesRedis compares with redis-server.
type Encoder struct {
	// table maps a hash of three input bytes to the last position hashed
	// there. Position 0 can never be a match (lzf_c.c requires ref > in_data),
	// so zero doubles as "empty".
	table [hashSize]uint32
}

// hash is lzf_c.c's IDX(h) for the three bytes b0 b1 b2 (h = b0<<16 |
// b1<<8 | b2); the rolling value Redis keeps has more bits, but the mask
// discards every bit that depends on them.
func hash(b0, b1, b2 byte) int {
	return hashOf(uint32(b0)<<16 | uint32(b1)<<8 | uint32(b2))
}

// hashOf is IDX(h) of a value whose low 24 bits hold the three bytes;
// bits above them do not reach the result.
func hashOf(h uint32) int {
	return int((h>>(3*8-hashLog) - h*5) & hashMask)
}

// Encode LZF-compresses src into dst[:0] (reusing dst's storage when its
// capacity is at least budget) and reports whether the stream fits in budget
// bytes. It fails exactly when Redis's lzf_compress(src, len(src), out,
// budget) returns 0, which includes empty input and streams that would have
// fit by up to four bytes (lzf_c.c checks for room conservatively); this
// matters because the decision, not just the bytes, must match Redis. The
// bytes produced never depend on budget, only whether they are kept, so a
// generous budget (len(src) + len(src)/32 + 8 always suffices) shows what
// Redis would write whenever it kept the stream.
func (e *Encoder) Encode(dst, src []byte, budget int) ([]byte, bool) {
	if len(src) == 0 || budget <= 0 || uint64(len(src)) > math.MaxUint32 {
		// lzf_compress takes an unsigned int length.
		return dst[:0], false
	}
	out := dst[:0]
	if cap(out) < budget {
		out = make([]byte, budget)
	}
	out = out[:budget]
	n, ok := e.encode(out, src)
	if !ok {
		return out[:0], false
	}
	return out[:n], true
}

// RedisSave applies Redis's rule for saving a string with rdbcompression yes
// (rdbSaveRawString): strings longer than 20 bytes are LZF-compressed with a
// budget of len(src)-4 bytes and stored that way only if the stream fits.
// It returns the stream and true, or dst[:0] and false when Redis would store
// src as it is.
func (e *Encoder) RedisSave(dst, src []byte) ([]byte, bool) {
	if len(src) <= minSave {
		return dst[:0], false
	}
	return e.Encode(dst, src, len(src)-saveMargin)
}

// encode runs the compressor over src, writing into out (len(out) is the
// budget). It returns the stream length, or false where lzf_compress returns 0.
//
// The output holds, at all times, an open literal run: out[op-lit-1] is the
// reserved control byte of a run whose lit bytes precede op. An empty run's
// reserved byte is taken back when a back reference or the end follows.
func (e *Encoder) encode(out, src []byte) (int, bool) {
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
		slot := &e.table[hashOf(h)]
		ref := int(*slot)
		*slot = uint32(ip)
		if !candidate(src, ref, ip) {
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
		op = closeRun(out, op, lit)
		if op+4 >= budget {
			return 0, false
		}
		n := matchLen(src[ref:], src[ip:], end-ip-2)
		op = putRef(out, op, ip-ref-1, n)
		op, lit = op+1, 0
		ip += n
		if ip >= end-2 {
			break
		}
		// VERY_FAST: of the positions inside the reference only the last
		// two are hashed.
		e.table[hash(src[ip-2], src[ip-1], src[ip])] = uint32(ip - 2)
		e.table[hash(src[ip-1], src[ip], src[ip+1])] = uint32(ip - 1)
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
	return closeRun(out, op, lit), true
}

// candidate reports whether the position ref taken from the hash table is
// a usable match for ip: strictly after the start of the input (as lzf_c.c
// demands), before ip, within reach, and starting with the same three bytes.
func candidate(src []byte, ref, ip int) bool {
	return ref > 0 && ref < ip && ip-ref-1 < maxOffset &&
		src[ref+2] == src[ip+2] && src[ref] == src[ip] && src[ref+1] == src[ip+1]
}

// closeRun writes the control byte of the open literal run and returns the
// output position; an empty run gives its reserved byte back.
func closeRun(out []byte, op, lit int) int {
	if lit == 0 {
		return op - 1
	}
	out[op-lit-1] = byte(lit - 1)
	return op
}

// putRef writes a back reference of n bytes (n >= 3) at distance off+1.
func putRef(out []byte, op, off, n int) int {
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

// matchLen returns how many leading bytes of a and b agree, given that the
// first three do, up to a limit derived from maxlen (the input left after the
// first two bytes, capped at maxRef) the way lzf_c.c's loop derives it.
// That loop checks bytes 3..18 unconditionally when maxlen > 16 and only then
// tests the limit, so for maxlen 17 or 18 a match may reach 19 bytes; for
// maxlen < 3 the three known bytes are the match.
func matchLen(a, b []byte, maxlen int) int {
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
