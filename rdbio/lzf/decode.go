// Package lzf reads and writes LZF, the compression of RDB strings stored
// with the 0xC3 encoding and of quicklist nodes Redis compresses in memory
// (list-compress-depth). It decodes a whole stream (Decode), the start of one
// (DecodePrefix, for reading a blob's header), or one of any length in bounded
// memory (Reader); Encoder writes the streams Redis writes, byte for byte,
// and RedisSave makes Redis's choice of whether to store a string so. It does
// not know the RDB grammar: the lengths around a stream are rdbio's.
package lzf

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
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
	maxLiteral = 1 << 5       // longest literal run
	maxOffset  = 1 << 13      // back references reach at most this far
	maxRef     = 1<<8 + 1<<3  // longest back reference, in bytes
	hashLog    = 16           // HLOG as Redis compiles lzf_c.c
	hashSize   = 1 << hashLog // slots in the encoder's table
	hashMask   = hashSize - 1 // IDX() keeps the low HLOG bits
	minSave    = 20           // Redis LZF-compresses strings longer than this
	saveMargin = 4            // ... only if they shrink by at least this much
)

// ErrCorrupt is wrapped by every error of Decode, DecodePrefix and Reader.
var ErrCorrupt = errors.New("corrupt LZF data")

// Decode decodes the LZF stream src, which must expand to exactly ulen
// bytes. The result is written to dst[:0]; dst's storage is reused when its
// capacity is at least ulen, otherwise a buffer of exactly ulen bytes is
// allocated. Every length and back reference is checked, so any input yields
// either the decoded bytes or an error wrapping ErrCorrupt, never a panic.
func Decode(dst, src []byte, ulen int) ([]byte, error) {
	if ulen < 0 {
		return nil, fmt.Errorf("lzf: negative decoded length %d: %w", ulen, ErrCorrupt)
	}
	if !CanDecode(uint64(len(src)), uint64(ulen)) {
		return nil, fmt.Errorf("lzf: %d bytes cannot decode to %d: %w", len(src), ulen, ErrCorrupt)
	}
	out := dst[:0]
	if cap(out) < ulen {
		out = make([]byte, ulen)
	}
	out = out[:ulen]
	op, err := decodeInto(out, src, math.MaxInt)
	if err != nil {
		return nil, err
	}
	if op != ulen {
		return nil, fmt.Errorf("lzf: decoded %d bytes, want %d: %w", op, ulen, ErrCorrupt)
	}
	return out, nil
}

// maxRatio bounds LZF's expansion: the longest back reference, 264
// bytes, takes 3 bytes of stream.
const maxRatio = maxRef / 3

// CanDecode reports whether an LZF stream of clen bytes can decode to
// ulen bytes: at most maxRatio times clen (and one reference of slack),
// computed without overflow. A string that claims more is corrupt, and its
// claim must not size anything.
func CanDecode(clen, ulen uint64) bool {
	return ulen <= maxRef || (ulen-maxRef+maxRatio-1)/maxRatio <= clen
}

// DecodePrefix decodes the start of the LZF stream src, which claims to
// expand to ulen bytes, into dst[:0]: it stops once at least want bytes are
// out (a little more when a run crosses want) or the stream ends, in a
// buffer of min(ulen, want + one back reference) bytes: Decode's loop,
// stopped early. It is for reading headers (a blob's element count) without
// decoding the whole string. The result is an error wrapping ErrCorrupt
// when the part decoded is malformed or overflows ulen.
func DecodePrefix(dst, src []byte, want, ulen int) ([]byte, error) {
	if ulen < 0 || want < 0 {
		return nil, fmt.Errorf("lzf: negative length: %w", ErrCorrupt)
	}
	n := ulen // room for want bytes and the run that crosses it
	if want < ulen-maxRef {
		n = want + maxRef
	}
	out := dst[:0]
	if cap(out) < n {
		out = make([]byte, n)
	}
	op, err := decodeInto(out[:n], src, want)
	return out[:op], err
}

// decodeInto decodes src into out and returns the number of bytes written:
// all of src, or as far as the first run that reaches stop bytes of output.
// It fails if the stream would write past len(out).
//
// Every length and distance is checked before anything is written, as
// before; what is written is moved 8 bytes at a time where the output has
// room for the few bytes more that this may write (the bytes past a run
// are overwritten by the runs that follow, or lie past the output's end
// and are never returned as decoded). The copy of runs over 16 bytes
// called memmove, 5% of the time on app-cache's strings; measured with
// rdbz-bench lzf (docs/performance.md), this decoder runs at 1.1-1.7× the
// speed of lzf_d.c built with gcc -O2, which copies byte by byte.
func decodeInto(out, src []byte, stop int) (int, error) {
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
			if ip+maxLiteral <= len(src) && op+maxLiteral <= len(out) {
				move32((*[maxLiteral]byte)(out[op:op+maxLiteral]), (*[maxLiteral]byte)(src[ip:ip+maxLiteral]))
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
		if n >= longRef && dist >= n {
			// Long and apart: memmove's wide moves. The 8-byte moves
			// below read what the previous reference had just written,
			// straddling two of its stores when dist is not a multiple
			// of 8, which the store buffer cannot forward: decode of a
			// Dragonfly seed (264-byte references 284 back) ran at half
			// lzf_d.c's speed, which calls memcpy there.
			copy(out[op:op+n], out[op-dist:op-dist+n])
		} else if dist >= 8 && op+n+8 <= len(out) {
			// At least 8 back, each 8-byte move reads only bytes already
			// final (the later ones may read what the earlier wrote,
			// which is what a forward copy does).
			for k := 0; k < n; k += 8 {
				binary.LittleEndian.PutUint64(out[op+k:], binary.LittleEndian.Uint64(out[op+k-dist:]))
			}
		} else if op+n+8 <= len(out) {
			shortBack(out[op-dist:op+n+8], dist, n)
		} else {
			copyBack(out[op-dist:op+n], dist)
		}
		op += n
	}
	return op, nil
}

// longRef is the shortest back reference decodeInto copies with memmove
// when its source and destination are apart.
const longRef = 64

// move32 copies *src to *dst in four 8-byte moves. (Assigning one [32]byte
// to another calls memmove: the compiler cannot tell that they do not
// overlap.) Taking arrays, it has no bounds to check.
func move32(dst, src *[32]byte) {
	a, b := binary.LittleEndian.Uint64(src[:]), binary.LittleEndian.Uint64(src[8:])
	c, d := binary.LittleEndian.Uint64(src[16:]), binary.LittleEndian.Uint64(src[24:])
	binary.LittleEndian.PutUint64(dst[:], a)
	binary.LittleEndian.PutUint64(dst[8:], b)
	binary.LittleEndian.PutUint64(dst[16:], c)
	binary.LittleEndian.PutUint64(dst[24:], d)
}

// shortBack writes n bytes at w[dist:] from dist (1 to 7) bytes back, as
// a byte-by-byte forward copy would, where w has 8 bytes of room past
// them: the first bytes one by one until the repeated part spans p, the
// first multiple of dist of at least 8, then 8-byte moves from p back,
// which read only bytes already final. (copyBack's doubling calls memmove
// some log2(n/dist) times a reference: the Dragonfly seed's runs of one
// byte, a third of its references.)
func shortBack(w []byte, dist, n int) {
	p := (8 + dist - 1) / dist * dist
	k := 0
	for ; k < p-dist && k < n; k++ {
		w[dist+k] = w[k]
	}
	for ; k < n; k += 8 {
		binary.LittleEndian.PutUint64(w[dist+k:], binary.LittleEndian.Uint64(w[dist+k-p:]))
	}
}

// copyBack fills w[dist:] from dist bytes back, as a byte-by-byte forward
// copy would: when the regions overlap, the last dist bytes repeat.
func copyBack(w []byte, dist int) {
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
