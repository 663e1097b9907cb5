package columns

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"slices"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// The compressed segment (doc.go gives the layout).
const (
	// segVersion is the version this writer writes: 2, whose templates
	// may name fields (fields.go). A reader reads 1 as well, whose
	// templates do not.
	segVersion  = 2
	segVersion1 = 1

	methodStored = 0 // the stream's bytes as they are
	methodZstd   = 1 // one zstd frame, no dictionary
	methodDict   = 2 // one zstd frame with the dictionary of the stream's id (none is defined yet)
	methodPlanes = 3 // one zstd frame of the planes of the stream's uvarints (planes.go)
	lastMethod   = methodPlanes

	// minCompress: streams shorter than this are stored.
	minCompress = 32
)

// Options configure an Encoder.
type Options struct {
	// Level is the zstd level of the streams (zstd.SpeedDefault when 0).
	Level zstd.EncoderLevel
	// SegmentSize is the largest segment the Encoder is given, in T bytes
	// (DefaultSegmentSize when 0).
	SegmentSize int
	// Schedule, when several Encoders compress one file's segments, is
	// the trials' schedule they share (NewSchedule); nil: the Encoder's own.
	Schedule *Schedule
	// Window is the zstd window, a power of two (DefaultWindow when 0, or
	// the power of two at or above SegmentSize if that is smaller): a
	// stream's matches reach this far back, and an encoder holds up to
	// this much of the stream it compresses.
	Window int
}

// Defaults of Options (MEASURED.md): with 4 MiB segments, two in flight
// and one filling, the codec holds about 40 MB (Segments, encoders and
// their scratch), with 8 MiB about 70, for 0.5–2.5% less output; a
// stream's matches rarely reach past 2 MiB (8 MiB windows gave 0.1% less
// than 2 MiB ones on godev-raw, nothing on app-cache), and an encoder
// holds its window.
const (
	DefaultSegmentSize = 4 << 20
	DefaultWindow      = 2 << 20
)

func (o Options) withDefaults() Options {
	if o.Level == 0 {
		o.Level = zstd.SpeedDefault
	}
	if o.SegmentSize == 0 {
		o.SegmentSize = DefaultSegmentSize
	}
	if o.Window == 0 {
		o.Window = min(DefaultWindow, windowSize(o.SegmentSize))
	}
	return o
}

// Encoder compresses split segments. It keeps its zstd encoders and
// buffers from one segment to the next; it is not safe for concurrent
// use (a pipeline gives each worker its own).
type Encoder struct {
	opt    Options
	z      *zstd.Encoder
	head   []byte
	body   []byte // during Encode: its dst, the streams appended
	planes []byte
	descs  []desc
	toks   tokens
	fs     fieldSet
	fbody  []byte // a trial's streams, compressed to be measured
	slens  []byte // the lengths of a trial's sample
	sched  *Schedule
	// trial: the segment being encoded tries both representations of its
	// roles' strings (tokens) and of its streams of uvarints (planes), and
	// writes what won into plan; else it takes them from plan, its trial
	// segment's.
	trial bool
	plan  *plan
}

// A plan is what the trials of one segment decided: for each role, whether
// its strings go as tokens, and for each stream of uvarints, whether it
// goes as planes.
type plan struct {
	tried  [MaxRoles]bool // the roles whose strings the trial segment held (at least minTokens bytes)
	tok    [MaxRoles]bool // strings as tokens
	fields [MaxRoles]bool // tokens with fields
	planes [NumStreams]bool
}

// Schedule is the trials' schedule of one file, shared by its Encoders:
// segment n (Segment.Seq) tries both representations when n is a multiple
// of retryTokens, and the segments after it take what that trial decided,
// whichever Encoder encodes which segment — so that the output does not
// depend on how a pipeline spread the segments over its workers. A
// segment whose trial is not done yet waits for it.
type Schedule struct {
	mu      sync.Mutex
	cond    *sync.Cond
	plans   map[int]*plan // by trial segment, once its Encode is done
	aborted bool
}

// NewSchedule returns the Schedule of one file.
func NewSchedule() *Schedule {
	s := &Schedule{plans: map[int]*plan{}}
	s.cond = sync.NewCond(&s.mu)
	return s
}

// Abort wakes every Encoder waiting on a trial that will not come (the
// pipeline stops): they go on with the plain representations.
func (s *Schedule) Abort() {
	s.mu.Lock()
	s.aborted = true
	s.mu.Unlock()
	s.cond.Broadcast()
}

// publish makes trial segment n's plan available, and forgets plans two
// periods old (no segment waits on them any more once n's is done: the
// segments of a period are in flight together, at most).
func (s *Schedule) publish(n int, p *plan) {
	s.mu.Lock()
	s.plans[n] = p
	delete(s.plans, n-2*retryTokens)
	s.mu.Unlock()
	s.cond.Broadcast()
}

// wait returns trial segment n's plan, once it is published (an empty
// plan after Abort).
func (s *Schedule) wait(n int) *plan {
	s.mu.Lock()
	defer s.mu.Unlock()
	for s.plans[n] == nil && !s.aborted {
		s.cond.Wait()
	}
	if p := s.plans[n]; p != nil {
		return p
	}
	return new(plan)
}

// NewEncoder returns an Encoder.
func NewEncoder(opt Options) (*Encoder, error) {
	opt = opt.withDefaults()
	if opt.SegmentSize < 1 || opt.SegmentSize > MaxSegment {
		return nil, fmt.Errorf("columns: segment size %d outside 1..%d", opt.SegmentSize, MaxSegment)
	}
	if opt.Window < zstd.MinWindowSize || opt.Window > MaxSegment || opt.Window&(opt.Window-1) != 0 {
		return nil, fmt.Errorf("columns: window %d: not a power of two in %d..%d", opt.Window, zstd.MinWindowSize, MaxSegment)
	}
	// One zstd encoder: literal entropy coding on at every level (the fast
	// levels otherwise store a stream with no match whole: hex ids came
	// out twice their size), no frame checksum (the segment's covers T).
	z, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(opt.Level), zstd.WithEncoderConcurrency(1),
		zstd.WithEncoderCRC(false), zstd.WithLowerEncoderMem(true), zstd.WithAllLitEntropyCompression(true),
		zstd.WithWindowSize(opt.Window), zstd.WithSingleSegment(true))
	if err != nil {
		return nil, fmt.Errorf("columns: zstd encoder: %w", err)
	}
	sched := opt.Schedule
	if sched == nil {
		sched = NewSchedule()
	}
	return &Encoder{opt: opt, z: z, sched: sched}, nil
}

// Close releases the zstd encoder.
func (e *Encoder) Close() { e.z.Close() }

// windowSize is the power of two at or above n, at least zstd's minimum.
func windowSize(n int) int {
	w := zstd.MinWindowSize
	for w < n && w < zstd.MaxWindowSize {
		w <<= 1
	}
	return w
}

// Encode appends the compressed form of seg to dst and returns it.
//
// The streams are compressed straight into dst, after what it holds, and
// the head, which describes them, is then put in front of them: a buffer
// of the streams beside dst, and the copy from it, held a compressed
// segment more per Encoder (3 MB of compress's live heap on a dump of
// source files, where each MiB held under the memory limit costs time).
func (e *Encoder) Encode(dst []byte, seg *Segment) ([]byte, error) {
	if seg.tlen < 1 || seg.tlen > e.opt.SegmentSize {
		return dst, fmt.Errorf("columns: segment of %d T bytes outside 1..%d", seg.tlen, e.opt.SegmentSize)
	}
	start := len(dst)
	e.descs, e.body = e.descs[:0], dst
	first := seg.seq - seg.seq%retryTokens
	if e.trial = seg.seq == first; e.trial {
		e.plan = new(plan)
		defer e.sched.publish(first, e.plan) // also when Encode fails: no segment waits forever
	} else {
		e.plan = e.sched.wait(first)
	}
	e.fs.reset(seg)
	for r := range MaxRoles {
		e.role(seg, r)
	}
	h := append(e.head[:0], segVersion)
	h = binary.AppendUvarint(h, uint64(seg.tlen))
	h = binary.LittleEndian.AppendUint32(h, seg.sum)
	h = binary.AppendUvarint(h, uint64(len(e.descs)))
	prev := -1
	for _, d := range e.descs {
		h = binary.AppendUvarint(h, uint64(d.id-prev-1))
		h = append(h, byte(d.method))
		h = binary.AppendUvarint(h, uint64(d.raw))
		if d.method != methodStored {
			h = binary.AppendUvarint(h, uint64(d.size))
		}
		prev = d.id
	}
	h = binary.LittleEndian.AppendUint32(h, crc32.Checksum(h, castagnoli))
	e.head = h
	dst, e.body = e.body, nil
	n := len(dst)
	dst = slices.Grow(dst, len(h))[:n+len(h)]
	copy(dst[start+len(h):], dst[start:n])
	copy(dst[start:], h)
	return dst, nil
}

// Tokens (tokens.go) are tried on a role's strings of at least minTokens
// bytes, in one segment of every retryTokens (the first included); the
// segments between take the representation that won (Schedule). Planes
// (planes.go) likewise, per stream of uvarints, in the same segments. (A trial
// compresses the strings twice: in one segment of eight it cost 6% of
// Encode's time on app-cache.)
const (
	minTokens   = 4 << 10
	retryTokens = 16
)

// role compresses role r's streams into e.body and e.descs, in id order:
// nums and order, then its strings as they are, as tokens, or as tokens
// with their JSON values in fields, whichever was smallest at the last
// trial.
func (e *Encoder) role(seg *Segment, r int) {
	if i := e.fs.byRole[r]; i != 0 { // a field: the role holds nothing else
		f := &e.fs.fields[i-1]
		e.put(dataID(r), f.data)
		e.put(lensID(r), f.lens)
		return
	}
	e.parts(seg, r, partNums, partOrder)
	data, lens := seg.bufs[dataID(r)], seg.bufs[lensID(r)]
	if r == 0 || len(data) < minTokens || len(lens) == 0 {
		e.parts(seg, r, partData, partLens)
		return
	}
	// A role the trial segment did not hold is tried in each segment
	// that holds it, for that segment alone (the plan is shared: only its
	// trial segment writes it).
	if e.trial || !e.plan.tried[r] {
		e.tryRole(seg, r)
		return
	}
	if !e.plan.tok[r] || !e.tokenStreams(seg, r, e.plan.fields[r]) {
		e.parts(seg, r, partData, partLens)
	}
}

// trySample: a role's strings past this many bytes are tried on their
// first trySample bytes (the last string cut there), and then written
// once the way that won; a role of fewer is written each way, the
// smallest kept. (Trying the whole of every role took a fifth more CPU on
// godev-raw, where large roles of source files come after segment 0, and
// twice the time on lists-events-lzf.)
const trySample = 256 << 10

// tryRole writes role r's strings as they are, as tokens, or as tokens
// with fields, whichever is smallest, and notes it in the plan when the
// segment is its trial.
func (e *Encoder) tryRole(seg *Segment, r int) {
	data, lens := seg.bufs[dataID(r)], seg.bufs[lensID(r)]
	sd, sl := e.sampleOf(data, lens, trySample)
	if len(sd) == len(data) {
		e.tryAll(seg, r)
		return
	}
	best, size := 0, e.wayCost(r, sd, sl, 0)
	if c := e.wayCost(r, sd, sl, 2); c < size {
		best, size = 2, c
	}
	if e.toks.sawJSON { // else tokens without fields are the same bytes
		if c := e.wayCost(r, sd, sl, 1); c <= size {
			best = 1
		}
	}
	if e.trial {
		e.plan.tried[r], e.plan.tok[r], e.plan.fields[r] = true, best > 0, best == 2
	}
	if best == 0 || !e.tokenStreams(seg, r, best == 2) {
		e.parts(seg, r, partData, partLens)
	}
}

// sampleOf returns the first n bytes of data as strings: those of lens
// up to there, the last one cut at n (a piece of a list longer than a
// segment is one string of the whole segment); all of data when it is
// shorter, or when lens do not cut it.
func (e *Encoder) sampleOf(data, lens []byte, n int) ([]byte, []byte) {
	if len(data) <= n {
		return data, lens
	}
	sum := 0
	for p := 0; p < len(lens); {
		v, k := binary.Uvarint(lens[p:])
		if k <= 0 || v > uint64(len(data)-sum) {
			return data, lens
		}
		if sum+int(v) >= n {
			e.slens = binary.AppendUvarint(append(e.slens[:0], lens[:p]...), uint64(n-sum))
			return data[:n], e.slens
		}
		p += k
		sum += int(v)
	}
	return data, lens
}

// wayCost is what the strings data (cut by lens) of role r take
// compressed one way: 0 as they are, 1 as tokens, 2 as tokens with fields
// (math.MaxInt when lens do not cut data). It leaves no field given out.
func (e *Encoder) wayCost(r int, data, lens []byte, way int) int {
	if way == 0 {
		return e.cost(dataID(r), data) + e.cost(lensID(r), lens)
	}
	e.toks.reset()
	e.toks.fields = nil
	mark := e.fs.n
	if way == 2 {
		e.toks.fields = &e.fs
		e.fs.begin(r)
	}
	defer e.fs.drop(mark)
	if !e.toks.tokenize(data, lens) {
		return math.MaxInt
	}
	n := e.cost(streamID(r, partTmpl), e.toks.tmpl) + e.cost(streamID(r, partTNums), e.toks.nums) +
		e.cost(streamID(r, partTHex), e.toks.hex) + e.cost(streamID(r, partTLens), e.toks.lens)
	if way == 2 {
		n += e.fieldsSize(mark)
	}
	return n
}

// cost is what stream id's bytes b take compressed, and about their
// descriptor.
func (e *Encoder) cost(id int, b []byte) int {
	if len(b) == 0 {
		return 0
	}
	e.fbody, _ = e.stream(e.fbody[:0], id, b)
	return len(e.fbody) + 4
}

// tryAll writes role r's strings in each of the three ways, keeps the
// smallest, and notes it in the plan when the segment is its trial.
func (e *Encoder) tryAll(seg *Segment, r int) {
	var at [4]int // the body and descriptors at the start of each way, and after the last
	var dat [4]int
	at[0], dat[0] = len(e.body), len(e.descs)
	e.parts(seg, r, partData, partLens)
	at[1], dat[1] = len(e.body), len(e.descs)
	size := [3]int{at[1] - at[0], math.MaxInt, math.MaxInt}
	if e.tokenStreams(seg, r, false) {
		at[2], dat[2] = len(e.body), len(e.descs)
		size[1] = at[2] - at[1]
	} else {
		at[2], dat[2] = at[1], dat[1]
	}
	mark := e.fs.n
	if e.tokenStreams(seg, r, true) {
		size[2] = len(e.body) - at[2] + e.fieldsSize(mark)
	}
	at[3], dat[3] = len(e.body), len(e.descs)
	best := 0
	for w := 1; w < 3; w++ {
		if size[w] < size[best] {
			best = w
		}
	}
	if e.trial {
		e.plan.tried[r], e.plan.tok[r], e.plan.fields[r] = true, best > 0, best == 2
	}
	if best != 2 {
		e.fs.drop(mark)
	}
	e.body = append(e.body[:at[0]], e.body[at[best]:at[best+1]]...)
	e.descs = append(e.descs[:dat[0]], e.descs[dat[best]:dat[best+1]]...)
}

// tokenStreams writes role r's strings as tokens, with their JSON values
// in fields or not; false (nothing written) when its lens do not cut its
// data, which a Splitter never makes.
func (e *Encoder) tokenStreams(seg *Segment, r int, fields bool) bool {
	e.toks.reset()
	e.toks.fields = nil
	mark := e.fs.n
	if fields {
		e.toks.fields = &e.fs
		e.fs.begin(r)
	}
	if !e.toks.tokenize(seg.bufs[dataID(r)], seg.bufs[lensID(r)]) {
		e.fs.drop(mark)
		return false
	}
	e.put(streamID(r, partTmpl), e.toks.tmpl)
	e.put(streamID(r, partTNums), e.toks.nums)
	e.put(streamID(r, partTHex), e.toks.hex)
	e.put(streamID(r, partTLens), e.toks.lens)
	return true
}

// fieldsSize is what the fields given out since mark take compressed (a
// trial's measure: their streams are written in their roles' turn).
func (e *Encoder) fieldsSize(mark int) int {
	n := 0
	for i := mark; i < e.fs.n; i++ {
		f := &e.fs.fields[i]
		n += e.cost(dataID(f.role), f.data) + e.cost(lensID(f.role), f.lens)
	}
	return n
}

// parts compresses the parts from..to of role r that hold bytes.
func (e *Encoder) parts(seg *Segment, r, from, to int) {
	for part := from; part <= to; part++ {
		e.put(streamID(r, part), seg.bufs[streamID(r, part)])
	}
}

// put compresses stream id into e.body and notes its descriptor.
func (e *Encoder) put(id int, b []byte) {
	if len(b) == 0 {
		return
	}
	n0 := len(e.body)
	var method int
	e.body, method = e.stream(e.body, id, b)
	e.descs = append(e.descs, desc{id: id, method: method, raw: len(b), size: len(e.body) - n0})
}

// stream appends stream id's bytes b, compressed (or not) as it takes
// fewest bytes, to body, and returns the method.
func (e *Encoder) stream(body []byte, id int, b []byte) ([]byte, int) {
	n0 := len(body)
	if len(b) < minCompress {
		return append(body, b...), methodStored
	}
	z := e.z
	// No room is reserved ahead (half the stream's bytes, before): the
	// Writer passes the same frame buffer back segment after segment, and
	// where streams shrink fifty-fold (the corpus's Dragonfly seed) the
	// reserve was 1 MB of fresh pages cleared and never written.
	method := methodZstd
	uv := id >= 1<<partBits && uvarintPart(id&(1<<partBits-1))
	switch {
	case uv && e.trial: // a trial: both ways, the smaller kept
		body = z.EncodeAll(b, body)
		e.planes = toPlanes(e.planes[:0], b)
		n1 := len(body)
		body = z.EncodeAll(e.planes, body)
		use := len(body)-n1 < n1-n0
		e.plan.planes[id] = use
		if use {
			body = append(body[:n0], body[n1:]...)
			method = methodPlanes
		} else {
			body = body[:n1]
		}
	case uv && e.plan.planes[id]:
		e.planes = toPlanes(e.planes[:0], b)
		body = z.EncodeAll(e.planes, body)
		method = methodPlanes
	default:
		body = z.EncodeAll(b, body)
	}
	if len(body)-n0 >= len(b) {
		return append(body[:n0], b...), methodStored
	}
	return body, method
}

// Decoder turns compressed segments back into T. It keeps its buffers from
// one segment to the next; it is not safe for concurrent use.
type Decoder struct {
	dec    *zstd.Decoder
	limit  int
	seg    Segment
	arena  []byte
	planes []byte
	tdata  []byte // the strings of roles stored as tokens
	tlens  []byte
	j      joiner
	descs  []desc
	fr     fieldReader
	ver    byte // the segment's version
}

type desc struct {
	id, method int
	raw, size  int
}

// NewDecoder returns a Decoder of segments of at most limit T bytes
// (MaxSegment when 0): a segment that declares more is refused before
// anything is allocated for it.
func NewDecoder(limit int) (*Decoder, error) {
	if limit <= 0 || limit > MaxSegment {
		limit = MaxSegment
	}
	d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.IgnoreChecksum(true), zstd.WithDecodeAllCapLimit(true),
		zstd.WithDecoderMaxMemory(uint64(maxRaw(limit))), zstd.WithDecoderMaxWindow(uint64(windowSize(maxRaw(limit)))))
	if err != nil {
		return nil, fmt.Errorf("columns: zstd decoder: %w", err)
	}
	return &Decoder{dec: d, limit: limit}, nil
}

// Close releases the zstd decoder.
func (d *Decoder) Close() { d.dec.Close() }

// Decode turns the compressed segment src (all of it: nothing may follow)
// into T, written to dst (grown when short) and returned. Errors wrap
// ErrCorrupt, ErrLimit, ErrChecksum or ErrDict, and name what is wrong.
func (d *Decoder) Decode(dst, src []byte) ([]byte, error) {
	seg, err := d.Unpack(src)
	if err != nil {
		return dst[:0], err
	}
	return d.j.join(dst, seg)
}

// Unpack decompresses the streams of the compressed segment src into a
// Segment (the Decoder's own, valid until its next use), for Join or for
// a reader that wants some streams only (Segment.Stream).
func (d *Decoder) Unpack(src []byte) (*Segment, error) {
	d.seg.Reset()
	// The decoder's streams are views of d.arena and d.tdata: a stream
	// absent from this segment must not keep a view of an arena since
	// outgrown (verify held 12 MB of old arenas through them).
	clear(d.seg.bufs[:])
	p, err := d.header(src)
	if err != nil {
		return nil, err
	}
	total := 0
	for _, ds := range d.descs {
		total += ds.raw
	}
	d.arena = grown(d.arena, total)
	off := 0
	for _, ds := range d.descs {
		b := src[p : p+ds.size]
		p += ds.size
		out := d.arena[off : off : off+ds.raw]
		off += ds.raw
		if out, err = d.stream(out, b, ds); err != nil {
			return nil, fmt.Errorf("%w: stream %d (%d bytes): %v", ErrCorrupt, ds.id, ds.raw, err)
		}
		d.seg.bufs[ds.id] = out
	}
	if err := d.untokenize(); err != nil {
		return nil, err
	}
	return &d.seg, nil
}

// grown returns b when it can hold n bytes, else an empty buffer of a
// quarter more. A Decoder sizes its buffers by each segment in turn, and
// grown to the byte they were made again at every segment larger than the
// ones before: decompress of gen-realdata's godev-raw allocated (and
// cleared) 43 MB of them for 2 Decoders. (Not grownCap, which doubles a
// stream under 1 MiB as it grows by appends: here, where n is known, it
// took that decompress from 36 to 44 MiB.)
func grown(b []byte, n int) []byte {
	if cap(b) >= n {
		return b
	}
	return make([]byte, 0, n+n/4)
}

// untokenize rebuilds the data and lens streams of the roles stored as
// tokens (tokens.go) into d.tdata and d.tlens, sized first so that they
// never move.
func (d *Decoder) untokenize() error {
	seg := &d.seg
	total, nlens := uint64(0), 0
	for r := 1; r < MaxRoles; r++ {
		tl := seg.bufs[streamID(r, partTLens)]
		if len(tl) == 0 {
			if len(seg.bufs[streamID(r, partTmpl)])+len(seg.bufs[streamID(r, partTNums)])+len(seg.bufs[streamID(r, partTHex)]) > 0 {
				return fmt.Errorf("%w: role %d: tokens without their lengths", ErrCorrupt, r)
			}
			continue
		}
		if len(seg.bufs[dataID(r)])+len(seg.bufs[lensID(r)]) > 0 {
			return fmt.Errorf("%w: role %d: both strings and tokens", ErrCorrupt, r)
		}
		n, k := binary.Uvarint(tl)
		if k <= 0 || n > uint64(maxRaw(seg.tlen)) {
			return fmt.Errorf("%w: role %d: tokens of %d bytes", ErrCorrupt, r, n)
		}
		total += n
		nlens += binary.MaxVarintLen64 * len(tl)
	}
	if total == 0 && nlens == 0 {
		return nil
	}
	if total > uint64(maxRaw(seg.tlen)) {
		return fmt.Errorf("%w: tokens of %d bytes for %d T bytes", ErrLimit, total, seg.tlen)
	}
	d.tdata, d.tlens = grown(d.tdata, int(total)), grown(d.tlens, nlens)
	data, lens := d.tdata[:0], d.tlens[:0]
	var fields *fieldReader // version 1: no fields
	if d.ver != segVersion1 {
		fields = &d.fr
		fields.start(seg)
	}
	for r := 1; r < MaxRoles; r++ {
		t := tokens{tmpl: seg.bufs[streamID(r, partTmpl)], nums: seg.bufs[streamID(r, partTNums)], hex: seg.bufs[streamID(r, partTHex)], lens: seg.bufs[streamID(r, partTLens)]}
		if len(t.lens) == 0 {
			continue
		}
		d0, l0 := len(data), len(lens)
		var err error
		if fields != nil {
			fields.owner = r
		}
		if data, lens, err = untokenize(data, lens, t, int(total)-d0, fields); err != nil {
			return fmt.Errorf("%w: role %d: tokens: %v", ErrCorrupt, r, err)
		}
		seg.bufs[dataID(r)], seg.bufs[lensID(r)] = data[d0:len(data):len(data)], lens[l0:len(lens):len(lens)]
		for part := partTmpl; part <= partTLens; part++ {
			seg.bufs[streamID(r, part)] = nil
		}
	}
	if fields != nil {
		if err := fields.finish(); err != nil {
			return fmt.Errorf("%w: fields: %v", ErrCorrupt, err)
		}
	}
	return nil
}

var (
	errFrameSize = errors.New("the zstd frame does not say it holds the stream's length")
	errFrameDict = errors.New("the zstd frame names a dictionary")
	errFrameBits = errors.New("the zstd frame header's reserved or unused bit is set")
	errDecoded   = errors.New("the zstd frame decodes to another length")
)

// stream decompresses one stream into out (its capacity is its length).
func (d *Decoder) stream(out, b []byte, ds desc) ([]byte, error) {
	if ds.method == methodStored {
		return append(out, b...), nil
	}
	var fh zstd.Header
	if err := fh.Decode(b); err != nil {
		return nil, err
	}
	if b[4]&0x18 != 0 {
		// No decoder reads the unused bit: flipped, it would change the
		// segment and not the T it decodes to (the reserved bit alike).
		return nil, errFrameBits
	}
	if !fh.HasFCS {
		return nil, errFrameSize
	}
	size := ds.raw
	if ds.method == methodPlanes {
		// The planes are the raw bytes after their count N ≤ raw.
		if fh.FrameContentSize <= uint64(ds.raw) || fh.FrameContentSize > uint64(ds.raw+uvarintLen(uint64(ds.raw))) {
			return nil, errFrameSize
		}
		size = int(fh.FrameContentSize)
		d.planes = grown(d.planes, size)
	}
	if fh.FrameContentSize != uint64(size) {
		return nil, errFrameSize
	}
	if fh.DictionaryID != 0 {
		return nil, errFrameDict
	}
	to := out
	if ds.method == methodPlanes {
		to = d.planes[:0:size]
	}
	got, err := d.dec.DecodeAll(b, to)
	if err != nil {
		return nil, err
	}
	if len(got) != size || &got[:1][0] != &to[:1][0] {
		return nil, errDecoded
	}
	if ds.method == methodPlanes {
		return fromPlanes(out, got, ds.raw)
	}
	return got, nil
}

func uvarintLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

// header reads the segment's header into d.seg (T length and sum) and
// d.descs, checking every bound, and returns the offset of the first
// stream.
func (d *Decoder) header(src []byte) (int, error) {
	r := hdrReader{b: src}
	v := r.byte()
	if r.err != nil {
		return 0, r.fail("version")
	}
	if err := checkVersion(v); err != nil {
		return 0, err
	}
	d.ver = v
	tlen := r.uvarint("T length")
	if r.err == nil && (tlen == 0 || tlen > uint64(d.limit)) {
		return 0, fmt.Errorf("%w: %d T bytes, the limit is 1..%d", ErrLimit, tlen, d.limit)
	}
	sum := r.u32("T checksum")
	m := r.uvarint("stream count")
	if r.err == nil && m > NumStreams {
		return 0, fmt.Errorf("%w: %d streams, at most %d", ErrCorrupt, m, NumStreams)
	}
	d.descs = d.descs[:0]
	id, total, stored := -1, uint64(0), uint64(0)
	for i := uint64(0); i < m && r.err == nil; i++ {
		id += int(min(r.uvarint("stream id"), NumStreams)) + 1
		method := int(r.byte())
		raw := r.uvarint("raw length")
		size := raw
		if method != methodStored {
			size = r.uvarint("stored length")
		}
		switch {
		case r.err != nil:
		case id >= NumStreams:
			return 0, fmt.Errorf("%w: stream %d: id over %d", ErrCorrupt, i, NumStreams-1)
		case method > lastMethod:
			return 0, fmt.Errorf("%w: stream %d: method %d", ErrCorrupt, id, method)
		case method == methodDict:
			return 0, fmt.Errorf("%w: stream %d uses a dictionary, none was given", ErrDict, id)
		case raw == 0 || size == 0:
			return 0, fmt.Errorf("%w: stream %d: empty", ErrCorrupt, id)
		case raw > uint64(maxRaw(int(tlen)))+16 || size > uint64(len(src)):
			return 0, fmt.Errorf("%w: stream %d: %d bytes (%d stored) for %d T bytes", ErrLimit, id, raw, size, tlen)
		}
		total += raw
		stored += size
		d.descs = append(d.descs, desc{id: id, method: method, raw: int(raw), size: int(size)})
	}
	end := r.p
	crc := r.u32("header checksum")
	if r.err != nil {
		return 0, r.err
	}
	if got := crc32.Checksum(src[:end], castagnoli); got != crc {
		return 0, fmt.Errorf("%w: header CRC-32C %08x, it says %08x", ErrChecksum, got, crc)
	}
	if total > uint64(maxRaw(int(tlen)))+16 {
		return 0, fmt.Errorf("%w: streams of %d bytes for %d T bytes", ErrLimit, total, tlen)
	}
	if stored != uint64(len(src)-r.p) {
		return 0, fmt.Errorf("%w: the streams take %d bytes, %d follow the header", ErrCorrupt, stored, len(src)-r.p)
	}
	d.seg.tlen, d.seg.sum = int(tlen), sum
	return r.p, nil
}

// hdrReader reads a segment header; the first failure sticks.
type hdrReader struct {
	b   []byte
	p   int
	err error
}

func (r *hdrReader) fail(what string) error {
	return fmt.Errorf("%w: the header ends in its %s (offset %d)", ErrCorrupt, what, r.p)
}

func (r *hdrReader) byte() byte {
	if r.err != nil || r.p >= len(r.b) {
		if r.err == nil {
			r.err = r.fail("byte")
		}
		return 0
	}
	r.p++
	return r.b[r.p-1]
}

func (r *hdrReader) uvarint(what string) uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b[r.p:])
	if n <= 0 {
		r.err = r.fail(what)
		return 0
	}
	r.p += n
	return v
}

func (r *hdrReader) u32(what string) uint32 {
	if r.err != nil || len(r.b)-r.p < 4 {
		if r.err == nil {
			r.err = r.fail(what)
		}
		return 0
	}
	r.p += 4
	return binary.LittleEndian.Uint32(r.b[r.p-4:])
}
