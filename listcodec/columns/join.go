package columns

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
)

// Join writes the T that the split segment seg stands for into dst (grown
// when its capacity is short of seg.TLen() plus a few bytes) and returns
// it: exactly seg.TLen() bytes, whose CRC-32C must be seg.Sum(). It runs
// the tape's ops (encode.go) and nothing else: the only grammar it knows
// is how to rebuild listpacks, ziplists and intsets from their entries.
// A segment that is not well formed — an unknown op, a length or count
// past the end of its stream, of the tape or of T, bytes left over in any
// stream — is an error wrapping ErrCorrupt that names the op and its
// offset in the tape; a wrong sum wraps ErrChecksum.
func Join(dst []byte, seg *Segment) ([]byte, error) {
	var j joiner
	return j.join(dst, seg)
}

// joiner runs a tape. Its zero value is ready; a Decoder keeps one.
type joiner struct {
	seg  *Segment
	out  []byte // T so far; len(out) is tlen + blobPre while joining
	w    int
	tlen int
	tape []byte
	tp   int
	pos  [NumStreams]int
	// Sorted roles (sort.go): their strings as stored, which are taken.
	spans   []span
	used    []bool
	first   [MaxRoles]int // -1: the role is not sorted
	nsorted [MaxRoles]int
	taken   [MaxRoles]int
}

// blobPre is the room a blob is built after before its string prefix is
// known: 0xC5, flags and the longest RDB length.
const blobPre = 2 + 9

// DecodeRoom is the room Decoder.Decode needs in dst beyond the segment's
// T bytes; with less it allocates its own.
const DecodeRoom = blobPre

var (
	errTapeEnd  = errors.New("the tape ends inside an op")
	errRole     = errors.New("role out of range")
	errStream   = errors.New("a stream ends early")
	errVarint   = errors.New("a number of a stream is not a uvarint")
	errRoom     = errors.New("it writes past the end of the segment")
	errOp       = errors.New("unknown op")
	errEntryOp  = errors.New("a blob entry op expected")
	errCount    = errors.New("an entry count the tape cannot hold")
	errInt32    = errors.New("an integer string out of 32 bits")
	errDouble   = errors.New("a double's tag is neither integral nor 1, or its string not 8 bytes")
	errIntOrder = errors.New("intset members out of order")
)

func (j *joiner) join(dst []byte, seg *Segment) ([]byte, error) {
	if seg.tlen < 0 || seg.tlen > MaxSegment {
		return dst[:0], fmt.Errorf("%w: %d T bytes (at most %d)", ErrLimit, seg.tlen, MaxSegment)
	}
	if need := seg.tlen + blobPre; cap(dst) < need {
		dst = make([]byte, need)
	}
	spans, used := j.spans, j.used
	*j = joiner{seg: seg, out: dst[:seg.tlen+blobPre], tlen: seg.tlen, tape: seg.bufs[idTape], spans: spans, used: used}
	if err := j.sortedRoles(); err != nil {
		return dst[:0], fmt.Errorf("%w: sorted roles: %v", ErrCorrupt, err)
	}
	if err := j.run(); err != nil {
		return dst[:0], err
	}
	for r := range MaxRoles {
		if j.taken[r] != j.nsorted[r] {
			return dst[:0], fmt.Errorf("%w: role %d: %d of its %d sorted strings taken", ErrCorrupt, r, j.taken[r], j.nsorted[r])
		}
	}
	j.pos[idTape] = j.tp
	if j.w != j.tlen {
		return dst[:0], fmt.Errorf("%w: the tape gives %d bytes, the segment says %d", ErrCorrupt, j.w, j.tlen)
	}
	for id, b := range seg.bufs {
		if j.pos[id] != len(b) {
			return dst[:0], fmt.Errorf("%w: stream %d: %d of its %d bytes left over", ErrCorrupt, id, len(b)-j.pos[id], len(b))
		}
	}
	out := dst[:j.tlen]
	if sum := crc32.Checksum(out, castagnoli); sum != seg.sum {
		return dst[:0], fmt.Errorf("%w: T gives CRC-32C %08x, the segment says %08x", ErrChecksum, sum, seg.sum)
	}
	return out, nil
}

func (j *joiner) run() error {
	for j.tp < len(j.tape) {
		at := j.tp
		code := j.tape[j.tp]
		j.tp++
		var err error
		switch code {
		case opSkel:
			err = j.skel()
		case opStr, opStrT:
			err = j.str(code == opStrT)
		case opInt:
			err = j.int()
		case opBytes:
			err = j.bytes()
		case opF64:
			err = j.f64()
		case opLP, opLPT:
			err = j.listpack(code == opLPT)
		case opZL, opZLT:
			err = j.ziplist(code == opZLT)
		case opIS, opIST:
			err = j.intset(code == opIST)
		default:
			err = errOp
		}
		if err != nil {
			return fmt.Errorf("%w: tape offset %d (op %d, %s): %v", ErrCorrupt, at, code, opName(code), err)
		}
	}
	return nil
}

// arg reads an operand from the tape.
func (j *joiner) arg() (uint64, error) {
	v, n := binary.Uvarint(j.tape[j.tp:])
	if n <= 0 {
		return 0, errTapeEnd
	}
	j.tp += n
	return v, nil
}

func (j *joiner) role() (int, error) {
	r, err := j.arg()
	if err != nil {
		return 0, err
	}
	if r == 0 || r >= MaxRoles {
		return 0, errRole
	}
	return int(r), nil
}

// num reads the next uvarint of stream id.
func (j *joiner) num(id int) (uint64, error) {
	b := j.seg.bufs[id]
	v, n := binary.Uvarint(b[j.pos[id]:])
	if n <= 0 {
		if n == 0 {
			return 0, fmt.Errorf("stream %d: %w", id, errStream)
		}
		return 0, fmt.Errorf("stream %d: %w", id, errVarint)
	}
	j.pos[id] += n
	return v, nil
}

// take reads the next n bytes of stream id.
func (j *joiner) take(id int, n uint64) ([]byte, error) {
	b := j.seg.bufs[id]
	p := j.pos[id]
	if n > uint64(len(b)-p) {
		return nil, fmt.Errorf("stream %d: %d bytes wanted, %d left: %w", id, n, len(b)-p, errStream)
	}
	j.pos[id] = p + int(n)
	return b[p : p+int(n)], nil
}

// string reads a string of role r: its length, then its bytes (of a
// sorted role: the one its order stream names).
func (j *joiner) string(r int) ([]byte, error) {
	if j.first[r] >= 0 {
		return j.sortedString(r)
	}
	n, err := j.num(lensID(r))
	if err != nil {
		return nil, err
	}
	return j.take(dataID(r), n)
}

// room checks that n more bytes fit in T.
func (j *joiner) room(n uint64) error {
	if n > uint64(j.tlen-j.w) {
		return errRoom
	}
	return nil
}

func (j *joiner) skel() error {
	n, err := j.arg()
	if err != nil {
		return err
	}
	if err := j.room(n); err != nil {
		return err
	}
	b, err := j.take(idSkel, n)
	if err != nil {
		return err
	}
	j.w += copy(j.out[j.w:], b)
	return nil
}

func (j *joiner) str(t bool) error {
	r, err := j.role()
	if err != nil {
		return err
	}
	b, err := j.string(r)
	if err != nil {
		return err
	}
	n := uint64(len(b))
	pre := rdbLenSize(n)
	if t {
		pre += 2
	}
	if err := j.room(uint64(pre) + n); err != nil {
		return err
	}
	j.w += j.prefix(j.w, n, t)
	j.w += copy(j.out[j.w:], b)
	return nil
}

// prefix writes the string prefix for n bytes at out[at:] and returns its size.
func (j *joiner) prefix(at int, n uint64, t bool) int {
	k := 0
	if t {
		j.out[at], j.out[at+1] = 0xC5, 0
		k = 2
	}
	return k + putRDBLen(j.out[at+k:], n)
}

func (j *joiner) int() error {
	r, err := j.role()
	if err != nil {
		return err
	}
	u, err := j.num(numsID(r))
	if err != nil {
		return err
	}
	v := unzigzag(u)
	w := rdbIntWidth(v)
	if w == 0 {
		return errInt32
	}
	if err := j.room(uint64(1 + w)); err != nil {
		return err
	}
	j.w += putRDBInt(j.out[j.w:], v, w)
	return nil
}

func (j *joiner) bytes() error {
	r, err := j.role()
	if err != nil {
		return err
	}
	b, err := j.string(r)
	if err != nil {
		return err
	}
	if err := j.room(uint64(len(b))); err != nil {
		return err
	}
	j.w += copy(j.out[j.w:], b)
	return nil
}

func (j *joiner) f64() error {
	r, err := j.role()
	if err != nil {
		return err
	}
	u, err := j.num(numsID(r))
	if err != nil {
		return err
	}
	if err := j.room(8); err != nil {
		return err
	}
	var bits uint64
	switch {
	case u&1 == 0:
		bits = math.Float64bits(float64(unzigzag(u >> 1)))
	case u == 1:
		b, err := j.string(r)
		if err != nil {
			return err
		}
		if len(b) != 8 {
			return errDouble
		}
		bits = binary.LittleEndian.Uint64(b)
	default:
		return errDouble
	}
	binary.LittleEndian.PutUint64(j.out[j.w:], bits)
	j.w += 8
	return nil
}

// count reads a blob's entry count: each entry takes at least 2 bytes of
// the tape.
func (j *joiner) count() (int, error) {
	k, err := j.arg()
	if err != nil {
		return 0, err
	}
	if k > uint64(len(j.tape)-j.tp)/2 {
		return 0, errCount
	}
	return int(k), nil
}

// entry reads a blob entry's op: its string (isInt false) or integer.
func (j *joiner) entry() (b []byte, v int64, isInt bool, err error) {
	if j.tp >= len(j.tape) {
		return nil, 0, false, errTapeEnd
	}
	code := j.tape[j.tp]
	j.tp++
	r, err := j.role()
	if err != nil {
		return nil, 0, false, err
	}
	switch code {
	case opEStr:
		b, err = j.string(r)
		return b, 0, false, err
	case opEInt:
		u, err := j.num(numsID(r))
		return nil, unzigzag(u), true, err
	}
	return nil, 0, false, errEntryOp
}

// blobAt is where a blob is built: after the room its string prefix most
// often takes (2 bytes, and 0xC5 and its flags); place moves it where its
// prefix ends once its size is known.
func (j *joiner) blobAt(t bool) int {
	if t {
		return j.w + 4
	}
	return j.w + 2
}

// place writes the string prefix of the blob built at out[base:base+size]
// at out[j.w:] and moves the blob right after it.
func (j *joiner) place(base, size int, t bool) error {
	pre := rdbLenSize(uint64(size))
	if t {
		pre += 2
	}
	if err := j.room(uint64(pre + size)); err != nil {
		return err
	}
	if j.w+pre != base {
		copy(j.out[j.w+pre:], j.out[base:base+size])
	}
	j.prefix(j.w, uint64(size), t)
	j.w += pre + size
	return nil
}

func (j *joiner) listpack(t bool) error {
	k, err := j.count()
	if err != nil {
		return err
	}
	base := j.blobAt(t)
	size, err := buildListpack(j.out[:len(j.out)], base, k, j)
	if err != nil {
		return err
	}
	return j.place(base, size, t)
}

func (j *joiner) ziplist(t bool) error {
	k, err := j.count()
	if err != nil {
		return err
	}
	base := j.blobAt(t)
	size, err := buildZiplist(j.out[:len(j.out)], base, k, j)
	if err != nil {
		return err
	}
	return j.place(base, size, t)
}

// entrySource gives a blob's entries one by one: the joiner reads them
// from the tape and the streams, a Splitter checking a blob from its
// parsed entries (elemSource).
type entrySource interface {
	entry() (b []byte, v int64, isInt bool, err error)
}

// buildListpack writes a listpack of k entries from src at out[base:],
// within out, and returns its size: the one builder of listpacks, which
// Join runs and a Splitter runs to check a blob before taking it apart.
func buildListpack(out []byte, base, k int, src entrySource) (int, error) {
	lim := len(out)
	p := base + lpHead
	if p >= lim {
		return 0, errRoom
	}
	for i := 0; i < k; i++ {
		b, v, isInt, err := src.entry()
		if err != nil {
			return 0, fmt.Errorf("entry %d: %w", i, err)
		}
		if isInt {
			size := lpIntSize(v)
			if p+size+1 > lim {
				return 0, errRoom
			}
			putLPInt(out[p:], v, size)
			out[p+size] = byte(size) // a back-length of 1 byte
			p += size + 1
			continue
		}
		hs := lpStrHeadSize(len(b))
		size := hs + len(b)
		bl := backlenSize(size)
		if p+size+bl > lim {
			return 0, errRoom
		}
		putLPStrHead(out[p:], len(b), hs)
		copy(out[p+hs:], b)
		putBacklen(out[p+size:], size, bl)
		p += size + bl
	}
	if p+1 > lim {
		return 0, errRoom
	}
	out[p] = endByte
	size := p + 1 - base
	binary.LittleEndian.PutUint32(out[base:], uint32(size))
	binary.LittleEndian.PutUint16(out[base+4:], uint16(min(k, count16)))
	return size, nil
}

// buildZiplist is buildListpack for ziplists.
func buildZiplist(out []byte, base, k int, src entrySource) (int, error) {
	lim := len(out)
	p, prev, tail := base+zlHead, 0, zlHead
	if p >= lim {
		return 0, errRoom
	}
	for i := 0; i < k; i++ {
		b, v, isInt, err := src.entry()
		if err != nil {
			return 0, fmt.Errorf("entry %d: %w", i, err)
		}
		ps := zlPrevSize(prev)
		var size int
		if isInt {
			enc, w := zlIntEnc(v)
			size = ps + 1 + w
			if p+size > lim {
				return 0, errRoom
			}
			putZLPrev(out[p:], prev, ps)
			out[p+ps] = enc
			putLE(out[p+ps+1:], uint64(v), w)
		} else {
			hs := zlStrHeadSize(len(b))
			size = ps + hs + len(b)
			if p+size > lim {
				return 0, errRoom
			}
			putZLPrev(out[p:], prev, ps)
			putZLStrHead(out[p+ps:], len(b), hs)
			copy(out[p+ps+hs:], b)
		}
		tail, prev = p-base, size
		p += size
	}
	if p+1 > lim {
		return 0, errRoom
	}
	out[p] = endByte
	size := p + 1 - base
	binary.LittleEndian.PutUint32(out[base:], uint32(size))
	binary.LittleEndian.PutUint32(out[base+4:], uint32(tail))
	binary.LittleEndian.PutUint16(out[base+8:], uint16(min(k, count16)))
	return size, nil
}

func (j *joiner) intset(t bool) error {
	r, err := j.role()
	if err != nil {
		return err
	}
	id := numsID(r)
	k, err := j.arg()
	if err != nil {
		return err
	}
	if k == 0 || k > uint64(len(j.seg.bufs[id])-j.pos[id]) {
		return errCount
	}
	// First pass: the last member, for the width; the members are checked
	// to ascend.
	start := j.pos[id]
	u, err := j.num(id)
	if err != nil {
		return err
	}
	first := unzigzag(u)
	last := first
	for i := uint64(1); i < k; i++ {
		d, err := j.num(id)
		if err != nil {
			return err
		}
		if d >= uint64(math.MaxInt64)-uint64(last) {
			return errIntOrder
		}
		last += int64(d) + 1
	}
	w := intsetWidth(first, last)
	size := isHead + k*uint64(w)
	pre := rdbLenSize(size)
	if t {
		pre += 2
	}
	if err := j.room(uint64(pre) + size); err != nil {
		return err
	}
	j.w += j.prefix(j.w, size, t)
	// Second pass: the members (already read once: no error).
	j.pos[id] = start
	j.w += buildIntset(j.out[j.w:], w, int(k), func() int64 {
		u, _ := j.num(id)
		return int64(u)
	})
	return nil
}

// buildIntset writes an intset of k members of width w at out[0:] and
// returns its size: next gives the first member zigzagged, then each
// difference from the previous member less 1 (the one builder of
// intsets, which Join runs and a Splitter runs to check one).
func buildIntset(out []byte, w, k int, next func() int64) int {
	binary.LittleEndian.PutUint32(out, uint32(w))
	binary.LittleEndian.PutUint32(out[4:], uint32(k))
	p := isHead
	var v int64
	for i := 0; i < k; i++ {
		if i == 0 {
			v = unzigzag(uint64(next()))
		} else {
			v += next() + 1
		}
		putLE(out[p:], uint64(v), w)
		p += w
	}
	return p
}
