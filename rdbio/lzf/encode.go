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
//
// Leftovers are not merely harmless but recognised: each call stores its
// positions offset by a base that moves past the previous call's positions
// by more than a back reference reaches, and a table the Encoder has not
// used yet is filled with stale, a value past any position. An entry of
// another call, or none, then fails the first and cheapest test (usable)
// instead of passing it and failing on the bytes: with strings of a few
// KiB that is most lookups, and those failures were unpredictable
// branches. The table is filled again only when the base would leave
// uint32 (once per 4 GiB of input).
type Encoder struct {
	// table maps a hash of three input bytes to base + the last position
	// hashed there.
	table [hashSize]uint32
	// next is the base of the next call: past every position stored so
	// far by more than maxOffset; 0 while the table is not filled.
	next int
}

// stale is the table entry of no position: past base + every position of
// a call (encode keeps base + len(src) <= stale).
const stale = math.MaxUint32

// hashOf is lzf_c.c's IDX(h) for h holding the three bytes b0 b1 b2 of a
// position as b0<<16 | b1<<8 | b2. Bits above those 24 (lzf_c.c's rolling
// hval keeps older bytes there) do not reach the result: the shift moves
// them above the mask, and the low 16 bits of h*5 depend on h's low 16
// bits only.
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

// Slack is the room past a stream's own length that Encode (as
// lzf_compress) may need to produce it: with a budget of the stream's
// length and Slack, it comes out whole; with less, it may fail though it
// would fit (lzf_c.c checks for room before a back reference
// conservatively). A caller checking that Encode reproduces a stream can
// give it that budget, and a stream that outgrows it fails early.
const Slack = 4

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
// It makes lzf_c.c's decisions in another order. lzf_c.c copies each
// literal as it passes it, checking the budget every time; here the
// literals since the last back reference stay pending in src until the
// next back reference or the end, and go out in one piece. That is
// equivalent: output only grows while literals are passed, so the last
// literal's check is the strictest, and the check that follows it (before
// a back reference, or at the end) implies it.
//
// fast does the work up to the last 20 bytes of input, while the output
// has room for 32 bytes more; rest finishes. The split is for Go's register
// allocator: Go's calling convention keeps no register across a call, so
// with the calls of the general code (putLiterals' and matchLen's, or the
// memmove a copy makes) in the loop, the loop's state was spilled and
// reloaded on every position. The measurements are in
// docs/performance.md.
func (e *Encoder) encode(out, src []byte) (int, bool) {
	base := e.begin(len(src))
	s := encState{out: out, ref: -1}
	if len(src) >= 3 {
		// Position 0 is hashed but can be no match (lzf_c.c requires
		// ref > in_data): an entry that usable refuses is the same.
		e.table[hashOf(uint32(src[0])<<16|uint32(src[1])<<8|uint32(src[2]))] = stale
		s.ip = 1
	}
	if !e.fast(src, base, &s) {
		return 0, false
	}
	return e.rest(src, base, &s)
}

// begin returns the base of a call on n bytes of input, past every
// position stored so far (see Encoder), filling the table with stale
// first when it is new or the base would leave uint32.
func (e *Encoder) begin(n int) int {
	if e.next == 0 || e.next+n > stale {
		for i := range e.table {
			e.table[i] = stale
		}
		e.next = 0
	}
	base := e.next
	e.next += n + maxOffset
	return base
}

// encState is the encoder's state between fast and rest: op bytes of
// out written, the literals from lit pending, the input hashed up to ip
// (excluded), and ref, when not -1, the match found for ip.
type encState struct {
	out              []byte
	op, lit, ip, ref int
}

// fast runs encode's loop while a match leaves at least 16 bytes of input
// after it, and the output has room to move 32 bytes past the literals
// pending at it. It reports false where lzf_compress returns 0.
//
// It calls nothing, and what only the matches use stays in *s, out of the
// inner loop's values: that loop (the search, lzf_c.c's pass over positions
// that start no match) then has its few values in registers, where Go's
// register allocator otherwise reloaded them from the stack on every
// position.
func (e *Encoder) fast(src []byte, base int, s *encState) bool {
	t := &e.table
	ip := s.ip
	for {
		// The search. Eight bytes read at ip-1 hold the four bytes that
		// end with the three of each of the positions ip to ip+4 (hashOf
		// ignores the first, the compare shifts it out); probe does what
		// lzf_c.c does at each, in the same order.
		var ref int
		var ok bool
		for {
			if ip+4+fastTail > len(src) {
				s.ip, s.ref = ip, -1
				return true
			}
			v := binary.BigEndian.Uint64(src[ip-1 : ip+7])
			if ref, ok = probe(t, src, uint32(v>>32), ip, base); ok {
				break
			}
			if ref, ok = probe(t, src, uint32(v>>24), ip+1, base); ok {
				ip++
				break
			}
			if ref, ok = probe(t, src, uint32(v>>16), ip+2, base); ok {
				ip += 2
				break
			}
			if ref, ok = probe(t, src, uint32(v>>8), ip+3, base); ok {
				ip += 3
				break
			}
			if ref, ok = probe(t, src, uint32(v), ip+4, base); ok {
				ip += 4
				break
			}
			ip += 5
		}
		// A back reference needs up to 3 bytes, plus room to open the
		// next literal run; lzf_c.c insists on one more byte than that.
		out, op, lit := s.out, s.op, s.lit
		end := literalsEnd(op, ip-lit)
		if end+maxLiteral > len(out) {
			if end+4 >= len(out) {
				return false
			}
			s.ip, s.ref = ip, ref
			return true
		}
		// The literals, moved 16 bytes at a time, however long the run:
		// the bytes past a run are overwritten next. Most runs are
		// short, and many empty: then the control byte and the bytes
		// written are overwritten too, which costs less than a branch
		// that guesses wrong. (Written out, as the match below: they are
		// over Go's inlining budget.)
		if n := ip - lit; n <= 16 {
			out[op] = byte(n - 1)
			move16((*[16]byte)(out[op+1:op+17]), (*[16]byte)(src[lit:lit+16]))
		} else {
			for ; lit < ip; lit += maxLiteral {
				out[op] = byte(min(ip-lit, maxLiteral) - 1)
				move16((*[16]byte)(out[op+1:op+17]), (*[16]byte)(src[lit:lit+16]))
				if lit+16 < ip {
					move16((*[16]byte)(out[op+17:op+33]), (*[16]byte)(src[lit+16:lit+32]))
				}
				op += maxLiteral + 1
			}
		}
		// The match: matchLen's loop, 8 bytes compared at a time, the
		// last compare overlapping the one before. The input after ip's
		// first two bytes is at least 14 bytes long, so that bytes 3 to
		// 10 are within the limit. Most matches end there.
		n := 3
		if d := load64(src, ref+3) ^ load64(src, ip+3); d != 0 {
			n += bits.TrailingZeros64(d) / 8
		} else {
			// The rest: inline, as a call would make the compiler
			// spill the values above on every match.
			limit := min(len(src)-2-ip, maxRef)
			if limit > 16 && limit < 19 {
				limit = 19 // lzf_c.c's exception (matchLen)
			}
			for n = 11; n+8 <= limit; n += 8 {
				if d := load64(src, ref+n) ^ load64(src, ip+n); d != 0 {
					n += bits.TrailingZeros64(d) / 8
					goto found
				}
			}
			n = limit
			if d := load64(src, ref+limit-8) ^ load64(src, ip+limit-8); d != 0 {
				n = limit - 8 + bits.TrailingZeros64(d)/8
			}
		}
	found:
		s.op = putRef(out, end, ip-ref-1, n)
		ip += n
		s.lit = ip
		if ip >= len(src)-2 {
			s.ip, s.ref = ip, -1
			return true
		}
		// VERY_FAST: of the positions inside the reference only the last
		// two are hashed.
		x := load32(src, ip-2)
		t[hashOf(x>>8)] = uint32(base + ip - 2)
		t[hashOf(x)] = uint32(base + ip - 1)
	}
}

// fastTail is how many bytes of input fast leaves after the positions it
// probes: the 16 a literal move reads, which covers the first match
// compare's 11.
const fastTail = 16

// probe hashes position ip into t, x holding the byte before it and its
// three, and returns the entry it replaces and whether that is a match:
// usable, and the same three bytes.
func probe(t *[hashSize]uint32, src []byte, x uint32, ip, base int) (int, bool) {
	slot := &t[hashOf(x)]
	ref := int(*slot) - base
	*slot = uint32(base + ip)
	return ref, usable(ref, ip) && (load32(src, ref-1)^x)<<8 == 0
}

// rest finishes what fast left, in the general way: fast's loop with
// calls for the literals and the match, which handle the input's end and
// a tight budget.
func (e *Encoder) rest(src []byte, base int, s *encState) (int, bool) {
	out, op, lit, ip, ref := s.out, s.op, s.lit, s.ip, s.ref
	for ip < len(src)-2 {
		if ref < 0 {
			if ip, ref = e.search(src, ip, base); ref < 0 {
				break
			}
		}
		if literalsEnd(op, ip-lit)+4 >= len(out) {
			return 0, false
		}
		op = putLiterals(out, op, src, lit, ip)
		n := matchLen(src, ref, ip)
		op = putRef(out, op, ip-ref-1, n)
		ip += n
		lit, ref = ip, -1
		if ip >= len(src)-2 {
			break
		}
		x := load32(src, ip-2)
		e.table[hashOf(x>>8)] = uint32(base + ip - 2)
		e.table[hashOf(x)] = uint32(base + ip - 1)
	}
	// lzf_c.c checks here for room for the rest (at most two more input
	// bytes, so at most three more output bytes) with its literal run's
	// control byte reserved.
	if literalsEnd(op, ip-lit)+boolInt((ip-lit)%maxLiteral == 0)+3 > len(out) {
		return 0, false
	}
	return putLiterals(out, op, src, lit, len(src)), true
}

// search hashes the positions of src from ip (at least 1) on, as fast
// does, until it finds one whose three bytes a usable table entry
// matches. It returns that position and the entry's, or the position it
// stopped at (len(src)-2 or later) and -1 when none does.
func (e *Encoder) search(src []byte, ip, base int) (int, int) {
	for ; ip < len(src)-2; ip++ {
		if ref, ok := probe(&e.table, src, load32(src, ip-1), ip, base); ok {
			return ip, ref
		}
	}
	return ip, -1
}

// usable is lzf_c.c's test of a table entry ref for position ip: strictly
// after the start of the input, before ip and within reach. Entries of
// other calls, stale ones and position 0's are all before ip-maxOffset or
// past ip (see Encoder), so one unsigned compare tells.
func usable(ref, ip int) bool {
	return uint(ip-ref-1) < maxOffset
}

// literalsEnd is where the output ends once n literals are written at op:
// a control byte for each run of up to 32.
func literalsEnd(op, n int) int {
	return op + n + int((uint(n)+maxLiteral-1)/maxLiteral)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// putLiterals writes src[from:to] at out[op:] as literal runs of at most
// 32 bytes and returns the output position after them.
func putLiterals(out []byte, op int, src []byte, from, to int) int {
	for from < to {
		n := min(to-from, maxLiteral)
		out[op] = byte(n - 1)
		copy(out[op+1:], src[from:from+n])
		op += n + 1
		from += n
	}
	return op
}

// putRef writes a back reference of n bytes (n >= 3) at distance off+1
// and returns the output position after it.
func putRef(out []byte, op, off, n int) int {
	if n < 9 {
		out[op] = byte(off>>8) + byte(n-2)<<5
		out[op+1] = byte(off)
		return op + 2
	}
	out[op] = byte(off>>8) + 7<<5
	out[op+1] = byte(n - 9)
	out[op+2] = byte(off)
	return op + 3
}

// matchLen returns the length of the match of src at ip with src at ref
// (ref < ip, their first three bytes equal), up to a limit derived from
// the input left after ip's first two bytes (maxlen), capped at maxRef,
// the way lzf_c.c's loop derives it. That loop checks bytes 3..18
// unconditionally when maxlen > 16 and only then tests the limit, so for
// maxlen 17 or 18 a match may reach 19 bytes; for maxlen < 3 the three
// known bytes are the match.
func matchLen(src []byte, ref, ip int) int {
	limit := min(len(src)-ip-2, maxRef)
	switch {
	case limit > 16 && limit < 19:
		limit = 19
	case limit < 3:
		return 3
	}
	n := 3
	for ; n+8 <= limit; n += 8 {
		if d := load64(src, ref+n) ^ load64(src, ip+n); d != 0 {
			return n + bits.TrailingZeros64(d)/8
		}
	}
	for n < limit && src[ref+n] == src[ip+n] {
		n++
	}
	return n
}

// move16 copies *src to *dst in two 8-byte moves. (Assigning one
// [16]byte to another calls memmove: the compiler cannot tell that they do
// not overlap.) Taking arrays, it has no bounds to check.
func move16(dst, src *[16]byte) {
	a, b := binary.LittleEndian.Uint64(src[:]), binary.LittleEndian.Uint64(src[8:])
	binary.LittleEndian.PutUint64(dst[:], a)
	binary.LittleEndian.PutUint64(dst[8:], b)
}

// load32 is the big-endian value of b[i:i+4], read in one move; load64
// the little-endian one of b[i:i+8]. The slice expressions have a constant
// length, which costs two compares and no more (b[i:] would also clamp
// the pointer; indexing, a check per byte).
func load32(b []byte, i int) uint32 { return binary.BigEndian.Uint32(b[i : i+4]) }

func load64(b []byte, i int) uint64 { return binary.LittleEndian.Uint64(b[i : i+8]) }
