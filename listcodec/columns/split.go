package columns

import (
	"encoding/binary"
	"hash/crc32"
	"math"
	"strconv"

	"github.com/rdbz/rdbz/rdbio"
)

// Splitter cuts the records of T into the streams of a segment: Start a
// segment, hand it the records in order (Record, and Raw for bytes that
// are not a whole record), Finish it. It walks each key record's value by
// the RDB grammar, sends each string to the stream of its role and
// everything else (opcodes, types, lengths, expiries, AUX fields, modules,
// what it does not know) to the skeleton, and writes on the tape the ops
// that put them back together. The walk only classifies: whatever it
// makes of a record, Join gives the record's bytes back, because every
// op stands for exactly the bytes it was made from (a string whose
// prefix, or a blob whose bytes, Join would not write identically is sent
// on as it is). A record it cannot walk goes to the skeleton whole.
//
// One Splitter serves one file: it learns the file's header from its
// first record (T's magic) and keeps its dynamic roles (roles.go) from
// segment to segment. Once its buffers have grown it allocates nothing
// per record, but for the names of hash fields and key prefixes it counts
// (at most 4096 at a time). It is not safe for concurrent use.
type Splitter struct {
	seg     *Segment
	next    int // the number of the next segment (Segment.Seq)
	roles   roleTable
	hdr     rdbio.Header
	started bool // the first record was seen
	dfly    bool // the file is Dragonfly's
	keys    bool // a key record was seen

	// The record being walked.
	rec   []byte
	done  int    // rec[:done] is in the segment
	key   []byte // the key's bytes (nil for an integer key)
	stamp [NumStreams]uint32
	recNo uint32
	undo  []undoRec
	mark  [5]int // tape and skeleton lengths, pend, sort items and keys, at the record's start
	total int    // bytes of all the streams

	pend  int // skeleton bytes no opSkel covers yet
	elems []elem
	check []byte // a blob rebuilt from its entries (rebuilds)
	src   elemSource
	name  []byte
	sort  sorter
	spare spares
}

type undoRec struct{ id, n int }

// NewSplitter returns a Splitter for one file.
func NewSplitter() *Splitter {
	s := &Splitter{roles: newRoleTable()}
	s.sort.spare = &s.spare
	return s
}

// Start empties seg and makes it the segment the next records go to.
func (s *Splitter) Start(seg *Segment) {
	s.spare.age()
	seg.reset(s.spare.put)
	seg.seq, s.next = s.next, s.next+1
	s.seg, s.total, s.pend = seg, 0, 0
	s.sort.reset()
}

// Len is the number of T bytes in the segment so far.
func (s *Splitter) Len() int { return s.seg.tlen }

// Finish ends the segment and returns it.
func (s *Splitter) Finish() *Segment {
	s.flushSkel()
	s.sort.sortRoles(s.seg)
	seg := s.seg
	s.seg = nil
	return seg
}

// Record adds rec, one whole record of T (from one TSink.Begin to the
// next), to the segment; key says it is a key record (Begin had a key).
func (s *Splitter) Record(rec []byte, key bool) {
	if len(rec) == 0 {
		return
	}
	s.seg.add(rec)
	if !s.started {
		s.started = true
		if h, ok := parseMagic(rec); ok && !key {
			s.hdr = h
		}
	}
	if !key {
		s.noteOther(rec)
		s.skel(rec)
		return
	}
	s.keys = true
	s.begin(rec)
	ok := s.keyRecord()
	// The order streams of sorted roles will take at most 4 bytes a string.
	if ok && s.total+16+4*len(s.sort.items) > maxRaw(s.seg.tlen) {
		ok = false
	}
	if !ok {
		s.rollback()
		s.skel(rec)
	}
	s.rec, s.key = nil, nil
}

// Raw adds bytes of T that are not a whole record: a piece of a record
// longer than a segment.
func (s *Splitter) Raw(p []byte) {
	if len(p) == 0 {
		return
	}
	s.seg.add(p)
	if len(p) < 64 {
		s.skel(p)
		return
	}
	s.op(opBytes, roleBulk)
	s.putUvarint(lensID(roleBulk), uint64(len(p)))
	s.put(dataID(roleBulk), p)
}

func (seg *Segment) add(p []byte) {
	seg.tlen += len(p)
	seg.sum = crc32.Update(seg.sum, castagnoli, p)
}

// maxRaw bounds the stream bytes of a segment of tlen T bytes.
func maxRaw(tlen int) int { return 2*tlen + streamSlack }

// parseMagic reads T's first record, the RDB magic.
func parseMagic(rec []byte) (rdbio.Header, bool) {
	if len(rec) < 9 {
		return rdbio.Header{}, false
	}
	m := string(rec[:9])
	var h rdbio.Header
	digits := ""
	switch {
	case m[:5] == "REDIS":
		digits = m[5:]
	case m[:6] == "VALKEY":
		digits, h.Valkey = m[6:], true
	default:
		return h, false
	}
	v, err := strconv.Atoi(digits)
	if err != nil || v < 1 {
		return rdbio.Header{}, false
	}
	h.Magic, h.Version = m, v
	return h, true
}

// noteOther notes what a record without a key tells about the file: an
// AUX df-ver or a Dragonfly opcode before the first key makes it
// Dragonfly's (as rdbio's Reader decides).
func (s *Splitter) noteOther(rec []byte) {
	if s.keys {
		return
	}
	op := rec[0]
	if op >= 200 && op <= 224 {
		s.dfly = true
	}
	if op == rdbio.OpAux {
		r := rd{b: rec, p: 1}
		if name := r.str(); !r.bad && name.enc != sInt && string(name.data) == "df-ver" {
			s.dfly = true
		}
	}
}

// The stream writers. Every append but to the tape and the skeleton is
// noted (touch) so that rollback can undo a record.

func (s *Splitter) touch(id int) {
	if s.stamp[id] != s.recNo {
		s.stamp[id] = s.recNo
		s.undo = append(s.undo, undoRec{id, len(s.seg.bufs[id])})
	}
}

func (s *Splitter) put(id int, p []byte) {
	s.touch(id)
	s.seg.bufs[id] = append(s.room(s.seg.bufs[id], len(p)), p...)
	s.total += len(p)
}

func (s *Splitter) putUvarint(id int, v uint64) {
	s.touch(id)
	b := s.room(s.seg.bufs[id], binary.MaxVarintLen64)
	n := len(b)
	s.seg.bufs[id] = binary.AppendUvarint(b, v)
	s.total += len(s.seg.bufs[id]) - n
}

func (s *Splitter) skel(p []byte) {
	s.seg.bufs[idSkel] = append(s.room(s.seg.bufs[idSkel], len(p)), p...)
	s.pend += len(p)
	s.total += len(p)
}

// room makes room for n more bytes in b, doubling its capacity when it
// must grow up to 1 MiB and growing it by a quarter beyond (append's
// policy grows by a quarter from 256 bytes on: copying a stream some ten
// times over as it fills a segment; doubling all the way held streams at
// up to 2.6 times their bytes, 12 MB of compress's heap on a dump of
// source files). Segments are recycled, so a stream grows rarely.
func room(b []byte, n int) []byte {
	if cap(b)-len(b) >= n {
		return b
	}
	nb := make([]byte, len(b), grownCap(b, n))
	copy(nb, b)
	return nb
}

// grownCap is the capacity room gives b to take n more bytes.
func grownCap(b []byte, n int) int {
	grown := 2 * cap(b)
	if cap(b) >= 1<<20 {
		grown = cap(b) + cap(b)/4
	}
	return max(grown, len(b)+n, 4096)
}

// room is room for a stream of the segment: a buffer it grows into comes
// from the spares, and the one it leaves goes there.
func (s *Splitter) room(b []byte, n int) []byte { return s.spare.grow(b, n) }

func (s *Splitter) flushSkel() {
	if s.pend > 0 {
		s.tape(opSkel, uint64(s.pend))
		s.pend = 0
	}
}

func (s *Splitter) tape(code byte, arg uint64) {
	t := s.room(s.seg.bufs[idTape], 1+binary.MaxVarintLen64)
	n := len(t)
	t = append(t, code)
	s.seg.bufs[idTape] = binary.AppendUvarint(t, arg)
	s.total += len(s.seg.bufs[idTape]) - n
}

// op writes an op on the tape after the skeleton bytes before it.
func (s *Splitter) op(code byte, arg uint64) {
	s.flushSkel()
	s.tape(code, arg)
}

// begin starts walking the key record rec.
func (s *Splitter) begin(rec []byte) {
	s.recNo++
	if s.recNo == 0 { // wrapped: forget every stamp
		s.stamp = [NumStreams]uint32{}
		s.recNo = 1
	}
	s.undo = s.undo[:0]
	s.mark = [5]int{len(s.seg.bufs[idTape]), len(s.seg.bufs[idSkel]), s.pend, len(s.sort.items), len(s.sort.keys)}
	s.sort.recKey[0] = -1
	s.rec, s.done = rec, 0
}

// rollback takes back everything the record being walked added.
func (s *Splitter) rollback() {
	seg := s.seg
	for _, u := range s.undo {
		s.total -= len(seg.bufs[u.id]) - u.n
		seg.bufs[u.id] = seg.bufs[u.id][:u.n]
	}
	s.undo = s.undo[:0]
	s.total -= len(seg.bufs[idTape]) - s.mark[0] + len(seg.bufs[idSkel]) - s.mark[1]
	seg.bufs[idTape] = seg.bufs[idTape][:s.mark[0]]
	seg.bufs[idSkel] = seg.bufs[idSkel][:s.mark[1]]
	s.pend = s.mark[2]
	s.sort.items, s.sort.keys = s.sort.items[:s.mark[3]], s.sort.keys[:s.mark[4]]
}

// upto sends the record's bytes before at, not sent yet, to the skeleton.
func (s *Splitter) upto(at int) {
	if at > s.done {
		s.skel(s.rec[s.done:at])
		s.done = at
	}
}

// keyRecord walks the key record s.rec: its type byte, key and value.
func (s *Splitter) keyRecord() bool {
	r := rd{b: s.rec, p: 1}
	typ, known := s.hdr.TypeOf(s.rec[0], s.dfly)
	at := r.p
	k := r.str()
	if r.bad {
		return false
	}
	if k.enc == sRaw || k.enc == sT {
		s.key = k.data
	}
	s.emit(at, k, roleKeys, r.p)
	if known {
		s.value(&r, typ)
	}
	if r.bad {
		return false
	}
	s.upto(len(s.rec)) // what the walk left: the value's tail, or all of it
	return true
}

// emit writes the ops of the string st, which stands at rec[at:end].
func (s *Splitter) emit(at int, st rstr, role int, end int) {
	s.upto(at)
	switch {
	case st.enc == sRaw && st.canon:
		s.strOp(opStr, role, st.data)
	case st.enc == sT && st.canon:
		s.strOp(opStrT, role, st.data)
	case st.enc == sInt && st.canon:
		s.op(opInt, uint64(role))
		s.putUvarint(numsID(role), zigzag(st.v))
	case st.enc == sInt:
		s.skel(st.head)
	default:
		if st.enc == sKept {
			role = roleBulk
		}
		s.skel(st.head)
		s.strOp(opBytes, role, st.data)
	}
	s.done = end
}

func (s *Splitter) strOp(code byte, role int, data []byte) {
	s.op(code, uint64(role))
	s.putUvarint(lensID(role), uint64(len(data)))
	if s.sort.ok[role] {
		s.sort.note(role, len(s.seg.bufs[dataID(role)]), len(data), s.key)
	}
	s.put(dataID(role), data)
}

// str reads a string of the value and emits it in role.
func (s *Splitter) str(r *rd, role int) rstr {
	at := r.p
	st := r.str()
	if !r.bad {
		s.emit(at, st, role, r.p)
	}
	return st
}

// value walks a value of type t.
func (s *Splitter) value(r *rd, t rdbio.Type) {
	switch t {
	case rdbio.TypeString:
		at := r.p
		if v := r.str(); !r.bad {
			role := s.prefixRole(famString, len(v.data), roleStrings)
			s.sort.ok[role] = true
			s.emit(at, v, role, r.p)
		}
	case rdbio.TypeList:
		s.strings(r, famList, roleList)
	case rdbio.TypeSet:
		s.strings(r, famSet, roleSet)
	case rdbio.TypeZset, rdbio.TypeZset2:
		s.zset(r, t == rdbio.TypeZset2)
	case rdbio.TypeHash:
		s.hash(r, 0)
	case rdbio.TypeListZiplist:
		s.blob(r, kindZL, layList)
	case rdbio.TypeSetIntset:
		s.blob(r, kindIS, laySet)
	case rdbio.TypeZsetZiplist:
		s.blob(r, kindZL, layZset)
	case rdbio.TypeHashZiplist:
		s.blob(r, kindZL, layHash)
	case rdbio.TypeHashListpack:
		s.blob(r, kindLP, layHash)
	case rdbio.TypeZsetListpack:
		s.blob(r, kindLP, layZset)
	case rdbio.TypeSetListpack:
		s.blob(r, kindLP, laySet)
	case rdbio.TypeListQuicklist, rdbio.TypeListQuicklist2:
		s.quicklist(r, t == rdbio.TypeListQuicklist2)
	case rdbio.TypeStreamListpacks, rdbio.TypeStream2, rdbio.TypeStream3, rdbio.TypeStream4, rdbio.TypeStream5:
		s.stream(r)
	case rdbio.TypeHashMetaPreGA: // n × (ttl, field, value)
		s.hash(r, -1)
	case rdbio.TypeHashMetadata: // min expiry, n × (ttl, field, value)
		r.take(8)
		s.hash(r, -1)
	case rdbio.TypeHash2: // Valkey: n × (field, value, 8-byte expiry)
		s.hash(r, 8)
	case rdbio.TypeHashLpExPreGA:
		s.blob(r, kindLP, layHashEx)
	case rdbio.TypeHashListpackEx:
		r.take(8)
		s.blob(r, kindLP, layHashEx)
	}
	// Other types (modules, Dragonfly's): the value goes to the skeleton.
}

// strings walks `len n`, n strings, each in the role of the key's prefix
// in family fam, or fallback.
func (s *Splitter) strings(r *rd, fam byte, fallback int) {
	n := r.count(1)
	role := s.prefixRole(fam, r.left(), fallback)
	for i := 0; i < n && !r.bad; i++ {
		s.str(r, role)
	}
}

// hash walks `len n`, n × (field, value); extra −1: an RDB length (the
// field's expiry) before each field; extra > 0: that many bytes after
// each value.
func (s *Splitter) hash(r *rd, extra int) {
	n := r.count(2)
	for i := 0; i < n && !r.bad; i++ {
		if extra < 0 {
			r.rdbLen()
		}
		f := s.str(r, roleFields)
		at := r.p
		v := r.str()
		if r.bad {
			return
		}
		s.emit(at, v, s.fieldRole(f.enc != sInt, f.data, len(v.data)), r.p)
		if extra > 0 {
			r.take(uint64(extra))
		}
	}
}

// zset walks `len n`, n × (member, score): a double as 8 bytes (type 5)
// or as text after a length byte (type 3: 253–255 stand for NaN and the
// infinities, with no text).
func (s *Splitter) zset(r *rd, binary bool) {
	n := r.count(2)
	for i := 0; i < n && !r.bad; i++ {
		s.str(r, roleZMember)
		if !binary {
			if c := r.byte(); c < 253 {
				r.take(uint64(c))
			}
			continue
		}
		at := r.p
		if p := r.take(8); p != nil {
			s.f64(at, p)
		}
	}
}

// f64 emits the double whose 8 bytes stand at rec[at:].
func (s *Splitter) f64(at int, p []byte) {
	s.upto(at)
	s.op(opF64, roleZScore)
	bits := binary.LittleEndian.Uint64(p)
	f := math.Float64frombits(bits)
	if v := int64(f); f == math.Trunc(f) && math.Abs(f) < 1<<53 && math.Float64bits(float64(v)) == bits {
		s.putUvarint(numsID(roleZScore), zigzag(v)<<1)
	} else {
		s.putUvarint(numsID(roleZScore), 1)
		s.putUvarint(lensID(roleZScore), 8)
		s.put(dataID(roleZScore), p)
	}
	s.done = at + 8
}

// quicklist walks a list of nodes: ziplists (type 14), or listpacks and
// plain elements after their container (type 18: 1 plain, 2 packed).
func (s *Splitter) quicklist(r *rd, v2 bool) {
	role := s.prefixRole(famList, r.left(), roleList)
	n := r.count(2)
	for i := 0; i < n && !r.bad; i++ {
		if !v2 {
			s.blobIn(r, kindZL, layList, role)
			continue
		}
		if c := r.rdbLen(); c == 1 {
			s.str(r, role)
		} else {
			s.blobIn(r, kindLP, layList, role)
		}
	}
}

// stream walks a stream's listpacks (node key, listpack); what follows
// them (length, IDs, consumer groups) goes to the skeleton.
func (s *Splitter) stream(r *rd) {
	n := r.count(2)
	for i := 0; i < n && !r.bad; i++ {
		s.str(r, roleStreamID)
		s.blob(r, kindLP, layStream)
	}
	r.p = len(r.b)
}

// prefixRole is the role of the current key's prefix in family fam, for
// a value of about size bytes.
func (s *Splitter) prefixRole(fam byte, size int, fallback int) int {
	p := keyPrefix(s.key)
	if p == nil {
		return fallback
	}
	s.name = append(append(s.name[:0], fam), p...)
	return s.roles.role(s.name, size, fallback)
}

// fieldRole is the role of a value of size bytes of the hash field f (str:
// a string field; an integer field has none).
func (s *Splitter) fieldRole(str bool, f []byte, size int) int {
	if !str || len(f) > 64 {
		return roleHashValues
	}
	s.name = append(append(s.name[:0], famField), f...)
	return s.roles.role(s.name, size, roleHashValues)
}
