package rdbio

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
)

// LZF stream format (the payload of an RDB 0xC3 string). Each item starts
// with a control byte c:
//
//	c < 32        literal run: the next c+1 bytes are copied to the output
//	c >> 5 in 1-6 back reference of (c>>5)+2 bytes
//	c >> 5 == 7   back reference of 7+next byte+2 bytes
//
// A back reference then carries one more byte; the distance back from the
// current output position is ((c&0x1f)<<8 | that byte) + 1. Source and
// destination may overlap, in which case the copy repeats the pattern.
const (
	lzfMaxLiteral = 1 << 5          // longest literal run
	lzfMaxOffset  = 1 << 13         // back references reach at most this far
	lzfMaxRef     = 1<<8 + 1<<3     // longest back reference, in bytes
	lzfHashLog    = 16              // HLOG as Redis compiles lzf_c.c
	lzfHashSize   = 1 << lzfHashLog // slots in the encoder's table
	lzfHashMask   = lzfHashSize - 1 // IDX() keeps the low HLOG bits
	lzfMinSave    = 20              // Redis LZF-compresses strings longer than this
	lzfSaveMargin = 4               // ... only if they shrink by at least this much
)

// ErrLZFCorrupt is wrapped by every LZFDecode error.
var ErrLZFCorrupt = errors.New("corrupt LZF data")

// LZFDecode decodes the LZF stream src, which must expand to exactly ulen
// bytes. The result is written to dst[:0]; dst's storage is reused when its
// capacity is at least ulen, otherwise a buffer of exactly ulen bytes is
// allocated. Every length and back reference is checked, so any input yields
// either the decoded bytes or an error wrapping ErrLZFCorrupt, never a panic.
func LZFDecode(dst, src []byte, ulen int) ([]byte, error) {
	if ulen < 0 {
		return nil, fmt.Errorf("lzf: negative decoded length %d: %w", ulen, ErrLZFCorrupt)
	}
	if !lzfCanDecode(uint64(len(src)), uint64(ulen)) {
		return nil, fmt.Errorf("lzf: %d bytes cannot decode to %d: %w", len(src), ulen, ErrLZFCorrupt)
	}
	out := dst[:0]
	if cap(out) < ulen {
		out = make([]byte, ulen)
	}
	out = out[:ulen]
	op, err := lzfDecodeInto(out, src)
	if err != nil {
		return nil, err
	}
	if op != ulen {
		return nil, fmt.Errorf("lzf: decoded %d bytes, want %d: %w", op, ulen, ErrLZFCorrupt)
	}
	return out, nil
}

// lzfMaxRatio bounds LZF's expansion: the longest back reference, 264
// bytes, takes 3 bytes of stream.
const lzfMaxRatio = lzfMaxRef / 3

// lzfCanDecode reports whether an LZF stream of clen bytes can decode to
// ulen bytes: at most lzfMaxRatio times clen (and one reference of slack),
// computed without overflow. A string that claims more is corrupt, and its
// claim must not size anything.
func lzfCanDecode(clen, ulen uint64) bool {
	return ulen <= lzfMaxRef || (ulen-lzfMaxRef+lzfMaxRatio-1)/lzfMaxRatio <= clen
}

// LZFDecodePrefix decodes the start of the LZF stream src, which claims to
// expand to ulen bytes, into dst[:0]: it stops once at least want bytes are
// out (a little more when a run crosses want) or the stream ends, and holds
// at most min(want, ulen) + one run of output. It is for reading headers
// (a blob's element count) without decoding the whole string. The result is
// an error wrapping ErrLZFCorrupt when the part decoded is malformed or
// overflows ulen.
func LZFDecodePrefix(dst, src []byte, want, ulen int) ([]byte, error) {
	if ulen < 0 || want < 0 {
		return nil, fmt.Errorf("lzf: negative length: %w", ErrLZFCorrupt)
	}
	out := dst[:0]
	for ip := 0; ip < len(src) && len(out) < want; {
		c := int(src[ip])
		ip++
		if c < lzfMaxLiteral {
			n := c + 1
			if n > len(src)-ip || len(out)+n > ulen {
				return out, fmt.Errorf("lzf: literal run at input offset %d is truncated or overflows: %w", ip-1, ErrLZFCorrupt)
			}
			out = append(out, src[ip:ip+n]...)
			ip += n
			continue
		}
		start, n := ip-1, c>>5
		if n == 7 {
			if ip >= len(src) {
				return out, fmt.Errorf("lzf: back reference at input offset %d is truncated: %w", start, ErrLZFCorrupt)
			}
			n += int(src[ip])
			ip++
		}
		if ip >= len(src) {
			return out, fmt.Errorf("lzf: back reference at input offset %d is truncated: %w", start, ErrLZFCorrupt)
		}
		dist := (c&0x1f)<<8 | int(src[ip]) + 1
		ip++
		n += 2
		op := len(out)
		if dist > op || op+n > ulen {
			return out, fmt.Errorf("lzf: back reference at input offset %d is out of range: %w", start, ErrLZFCorrupt)
		}
		out = append(out, make([]byte, n)...)
		lzfCopyBack(out[op-dist:op+n], dist)
	}
	return out, nil
}

// lzfDecodeInto decodes src into out and returns the number of bytes written.
// It fails if the stream would write past len(out).
func lzfDecodeInto(out, src []byte) (int, error) {
	op, ip := 0, 0
	for ip < len(src) {
		c := int(src[ip])
		ip++
		if c < lzfMaxLiteral {
			n := c + 1
			if n > len(src)-ip {
				return op, fmt.Errorf("lzf: literal run of %d bytes at input offset %d is truncated: %w", n, ip-1, ErrLZFCorrupt)
			}
			if n > len(out)-op {
				return op, fmt.Errorf("lzf: literal run at input offset %d overflows the %d-byte output: %w", ip-1, len(out), ErrLZFCorrupt)
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
				return op, fmt.Errorf("lzf: back reference at input offset %d is truncated: %w", start, ErrLZFCorrupt)
			}
			n += int(src[ip])
			ip++
		}
		if ip >= len(src) {
			return op, fmt.Errorf("lzf: back reference at input offset %d is truncated: %w", start, ErrLZFCorrupt)
		}
		dist := (c&0x1f)<<8 | int(src[ip]) + 1
		ip++
		n += 2
		if dist > op {
			return op, fmt.Errorf("lzf: back reference at input offset %d reaches %d bytes back, only %d decoded: %w", start, dist, op, ErrLZFCorrupt)
		}
		if n > len(out)-op {
			return op, fmt.Errorf("lzf: back reference at input offset %d overflows the %d-byte output: %w", start, len(out), ErrLZFCorrupt)
		}
		if dist >= 8 && n <= 16 && op+16 <= len(out) {
			// A short reference at least 8 back: two 8-byte moves, each
			// reading only bytes already final (the second may read the
			// first's, which is what a forward copy does).
			binary.LittleEndian.PutUint64(out[op:], binary.LittleEndian.Uint64(out[op-dist:]))
			binary.LittleEndian.PutUint64(out[op+8:], binary.LittleEndian.Uint64(out[op+8-dist:]))
		} else {
			lzfCopyBack(out[op-dist:op+n], dist)
		}
		op += n
	}
	return op, nil
}

// lzfCopyBack fills w[dist:] from dist bytes back, as a byte-by-byte forward
// copy would: when the regions overlap, the last dist bytes repeat.
func lzfCopyBack(w []byte, dist int) {
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

// LZFEncoder produces LZF streams identical, byte for byte, to the
// lzf_compress function of Redis 3.2 and later: liblzf 3.6 as lzfP.h
// configures it (HLOG 16, VERY_FAST 1, ULTRA_FAST 0, INIT_HTAB 0,
// CHECK_INPUT 1; AVOID_ERRNO and STRICT_ALIGN change nothing in the output,
// the latter only how two bytes are compared). Redis 3.0 and older shipped
// liblzf 3.5, whose streams are not guaranteed to match. This covers both
// strings saved with rdbcompression and quicklist nodes compressed in memory
// (list-compress-depth), which Redis saves as they are: those use the same
// function with another budget. Its hash table lives in the struct and is
// reused by every call, so encoding does not allocate once dst is large
// enough. The zero value is ready to use; an LZFEncoder must not be used by
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
type LZFEncoder struct {
	// table maps a hash of three input bytes to the last position hashed
	// there. Position 0 can never be a match (lzf_c.c requires ref > in_data),
	// so zero doubles as "empty".
	table [lzfHashSize]uint32
}

// lzfHash is lzf_c.c's IDX(h) for the three bytes b0 b1 b2 (h = b0<<16 |
// b1<<8 | b2); the rolling value Redis keeps has more bits, but the mask
// discards every bit that depends on them.
func lzfHash(b0, b1, b2 byte) int {
	return lzfHashOf(uint32(b0)<<16 | uint32(b1)<<8 | uint32(b2))
}

// lzfHashOf is IDX(h) of a value whose low 24 bits hold the three bytes;
// bits above them do not reach the result.
func lzfHashOf(h uint32) int {
	return int((h>>(3*8-lzfHashLog) - h*5) & lzfHashMask)
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
func (e *LZFEncoder) Encode(dst, src []byte, budget int) ([]byte, bool) {
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
func (e *LZFEncoder) RedisSave(dst, src []byte) ([]byte, bool) {
	if len(src) <= lzfMinSave {
		return dst[:0], false
	}
	return e.Encode(dst, src, len(src)-lzfSaveMargin)
}

// encode runs the compressor over src, writing into out (len(out) is the
// budget). It returns the stream length, or false where lzf_compress returns 0.
//
// The output holds, at all times, an open literal run: out[op-lit-1] is the
// reserved control byte of a run whose lit bytes precede op. An empty run's
// reserved byte is taken back when a back reference or the end follows.
func (e *LZFEncoder) encode(out, src []byte) (int, bool) {
	budget := len(out)
	end := len(src)
	op, lit := 1, 0
	ip := 0
	// h rolls the bytes at ip, ip+1, ip+2 in its low 24 bits, as lzf_c.c's
	// hval: one load per position instead of three (lzfHash masks off what
	// lies above).
	var h uint32
	if end >= 2 {
		h = uint32(src[0])<<8 | uint32(src[1])
	}
	for ip < end-2 {
		h = h<<8 | uint32(src[ip+2])
		slot := &e.table[lzfHashOf(h)]
		ref := int(*slot)
		*slot = uint32(ip)
		if !lzfCandidate(src, ref, ip) {
			if op >= budget {
				return 0, false
			}
			out[op] = src[ip]
			op, lit, ip = op+1, lit+1, ip+1
			if lit == lzfMaxLiteral {
				out[op-lit-1] = byte(lit - 1)
				op, lit = op+1, 0
			}
			continue
		}

		// A back reference needs up to 3 bytes, plus room to open the
		// next literal run; lzf_c.c insists on one more byte than that.
		op = lzfCloseRun(out, op, lit)
		if op+4 >= budget {
			return 0, false
		}
		n := lzfMatchLen(src[ref:], src[ip:], end-ip-2)
		op = lzfPutRef(out, op, ip-ref-1, n)
		op, lit = op+1, 0
		ip += n
		if ip >= end-2 {
			break
		}
		// VERY_FAST: of the positions inside the reference only the last
		// two are hashed.
		e.table[lzfHash(src[ip-2], src[ip-1], src[ip])] = uint32(ip - 2)
		e.table[lzfHash(src[ip-1], src[ip], src[ip+1])] = uint32(ip - 1)
		h = uint32(src[ip])<<8 | uint32(src[ip+1])
	}

	// At most two input bytes are left, and at most one more control byte.
	if op+3 > budget {
		return 0, false
	}
	for ; ip < end; ip++ {
		out[op] = src[ip]
		op, lit = op+1, lit+1
		if lit == lzfMaxLiteral {
			out[op-lit-1] = byte(lit - 1)
			op, lit = op+1, 0
		}
	}
	return lzfCloseRun(out, op, lit), true
}

// lzfCandidate reports whether the position ref taken from the hash table is
// a usable match for ip: strictly after the start of the input (as lzf_c.c
// demands), before ip, within reach, and starting with the same three bytes.
func lzfCandidate(src []byte, ref, ip int) bool {
	return ref > 0 && ref < ip && ip-ref-1 < lzfMaxOffset &&
		src[ref+2] == src[ip+2] && src[ref] == src[ip] && src[ref+1] == src[ip+1]
}

// lzfCloseRun writes the control byte of the open literal run and returns the
// output position; an empty run gives its reserved byte back.
func lzfCloseRun(out []byte, op, lit int) int {
	if lit == 0 {
		return op - 1
	}
	out[op-lit-1] = byte(lit - 1)
	return op
}

// lzfPutRef writes a back reference of n bytes (n >= 3) at distance off+1.
func lzfPutRef(out []byte, op, off, n int) int {
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

// lzfMatchLen returns how many leading bytes of a and b agree, given that the
// first three do, up to a limit derived from maxlen (the input left after the
// first two bytes, capped at lzfMaxRef) the way lzf_c.c's loop derives it.
// That loop checks bytes 3..18 unconditionally when maxlen > 16 and only then
// tests the limit, so for maxlen 17 or 18 a match may reach 19 bytes; for
// maxlen < 3 the three known bytes are the match.
func lzfMatchLen(a, b []byte, maxlen int) int {
	limit := min(maxlen, lzfMaxRef)
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
