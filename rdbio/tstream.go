package rdbio

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/rdbz/rdbz/rdbio/crc64"
	"github.com/rdbz/rdbz/rdbio/envelope"
	"github.com/rdbz/rdbz/rdbio/lzf"
)

// T is the record stream of an RDB with every LZF string decoded: what
// format 2 compresses (FORMAT.md §3). It is the source byte for byte —
// magic, opcodes, lengths, integers, raw strings, the EOF opcode and the
// stored trailer, the bytes after it — except that each LZF string (0xC3
// clen ulen data, wherever a string stands) that the Redis-faithful encoder
// reproduces exactly, header included, and whose decoded length is within
// the cap, is stored as
//
//	0xC5  flags (1 byte, 0)  ulen (RDB length, ≥ 1)  ulen decoded bytes
//
// LZF strings the encoder would not reproduce, or over the cap, stay as
// they are. EncodeT and DecodeT are the two directions; both run the one
// walk of the grammar, with a rewrite of strings (rewrite below) on the
// input's one string decoder.

// Target says how DecodeT stores the strings of the RDB it writes.
type Target uint8

// Targets.
const (
	// TargetOriginal: T's 0xC5 strings LZF-encoded again, everything else
	// as in T: the source byte for byte, its stored trailer included.
	TargetOriginal Target = iota
	// TargetRaw: every string within the cap raw (rdbcompression no).
	TargetRaw
	// TargetLZF: every string within the cap as Redis saves it with
	// rdbcompression yes (LZF when longer than 20 bytes and the stream fits
	// in its length − 4, else raw).
	TargetLZF
)

func (t Target) String() string {
	switch t {
	case TargetOriginal:
		return "original"
	case TargetRaw:
		return "raw"
	case TargetLZF:
		return "lzf"
	}
	return fmt.Sprintf("target(%d)", uint8(t))
}

// TSink receives T record by record: Begin before each record's first
// byte, with the record's key (nil for records without one) and the
// record's offset in the RDB; then the record's bytes through Write.
// listcodec/block's Writer is one.
type TSink interface {
	Begin(key []byte, input int64) error
	Write(p []byte) (int, error)
}

// EnvelopeSink is a TSink that keeps the input's VKCS envelope (format 2
// records it): EncodeT gives it Header.Envelope before the first byte of T.
type EnvelopeSink interface {
	TSink
	Envelope(envelope.Info)
}

// TStats sums up what EncodeT did.
type TStats struct {
	Records    int64 // records, the magic and the EOF trailer included
	Keys       int64 // key records
	LeftOut    int64 // key records the filter left out (not in T)
	InBytes    int64 // RDB bytes read
	TBytes     int64 // T bytes written
	Decoded    int64 // LZF strings stored decoded (0xC5)
	LZFBytes   int64 // their stored bytes in the RDB
	DecBytes   int64 // their decoded bytes
	Unfaithful int64 // LZF strings kept as stored: the encoder does not reproduce them
	OverCap    int64 // LZF strings kept as stored: longer than the cap
	Checksum   ChecksumStatus
}

// TKey is the key a T record gives TSink.Begin: the db number as 2 bytes
// little-endian (its low 16 bits), ':', the key (FORMAT.md §2.5).
func TKey(dst []byte, db uint64, key []byte) []byte {
	dst = binary.LittleEndian.AppendUint16(dst[:0], uint16(db))
	dst = append(dst, ':')
	return append(dst, key...)
}

// TKeyDB is the db a TKey names (its low 16 bits, as TKey keeps them).
func TKeyDB(tkey []byte) uint64 {
	if len(tkey) < 2 {
		return 0
	}
	return uint64(binary.LittleEndian.Uint16(tkey))
}

// EncodeT reads an RDB from src and writes its T stream to dst, record by
// record. The source's checksum is checked unless opt.IgnoreChecksum; a
// record whose layout rdbio does not know ends the walk and the rest of
// the file goes into one record as it is (Reader.PassBody). With keep,
// T is that of the filtered file (CopyFiltered's output): the records a
// Filter of keep leaves out are not in it, and its trailer is the CRC-64
// of what stays (0 where the source's was 0).
func EncodeT(dst TSink, src io.Reader, opt Options, keep func(*Record) bool) (TStats, error) {
	var st TStats
	r, err := NewReader(src, opt)
	if err != nil {
		return st, err
	}
	if es, ok := dst.(EnvelopeSink); ok {
		es.Envelope(r.hdr.Envelope)
	}
	pipe := newTPipe(dst, mode{toT: true}, r.hdr.Version, opt.Workers)
	st, err = encodeT(r, NewFilter(r, keep), pipe)
	// A failure in the pipe is of bytes before the reader's position: it
	// comes first.
	if e := pipe.close(err == nil); e != nil {
		err = e
	}
	st.add(pipe.st)
	return st, err
}

func encodeT(r *Reader, f *Filter, pipe *tpipe) (TStats, error) {
	var st TStats
	ts := &tsink{dst: pipe, st: &st, pipe: pipe}
	r.in.rw = &rewrite{mode: mode{toT: true}, cap: r.opt.Cap, st: &st}
	if err := ts.begin(nil, 0); err != nil {
		return st, err
	}
	if _, err := ts.Write([]byte(r.hdr.Magic)); err != nil {
		return st, err
	}
	if err := f.SetSink(ts); err != nil {
		return st, err
	}
	if err := encodeRecords(f, ts); err != nil {
		return st, err
	}
	// The EOF opcode and the stored trailer, then what follows it.
	st.LeftOut = f.Filtered().LeftOut
	tail := []byte{OpEOF}
	if r.hdr.HasChecksum() {
		tail = binary.LittleEndian.AppendUint64(tail, f.Trailer())
	}
	if _, err := ts.Write(tail); err != nil {
		return st, err
	}
	if _, err := r.CopyRest(ts); err != nil {
		return st, fmt.Errorf("rdb: bytes after the trailer: %w", err)
	}
	st.InBytes = r.in.offset()
	return st, nil
}

// encodeRecords sends T's records to ts, each Begun before its first
// byte: the bytes the sink receives from Finish on are held (tsink.hold)
// until Next has returned the record and its key is known.
func encodeRecords(f *Filter, ts *tsink) error {
	for {
		err := f.Finish()
		start := f.Offset()
		var rec *Record
		if err == nil {
			ts.hold = true
			rec, err = f.Next()
		}
		if errors.Is(err, ErrUnsupported) {
			// The rest goes on as it is: in a record of its own when the
			// walk stopped at a record's start, else in the value's.
			if ts.hold {
				if err := ts.begin(nil, start); err != nil {
					return err
				}
			}
			_, err := f.PassBody()
			return err
		}
		if err != nil {
			return err
		}
		var key []byte
		if rec.Kind == KindKey {
			ts.key = TKey(ts.key, rec.DB, rec.Key)
			key = ts.key
			ts.st.Keys++
		}
		if err := ts.begin(key, rec.Offset); err != nil {
			return err
		}
		if rec.Kind == KindEOF {
			ts.st.Checksum = rec.Checksum
			return nil
		}
	}
}

// tsink passes T on to a TSink, holding the bytes a record sends before
// Next returns it (its key) until its Begin.
type tsink struct {
	dst  TSink
	pipe *tpipe
	st   *TStats
	hold bool
	buf  []byte
	key  []byte
}

func (t *tsink) Write(p []byte) (int, error) {
	if t.hold {
		t.buf = append(t.buf, p...)
		return len(p), nil
	}
	t.st.TBytes += int64(len(p))
	return t.dst.Write(p)
}

// take hands a string of a value to the pipe; false: the caller does it
// (the sink is holding a record's first bytes).
func (t *tsink) take(enc Enc, hold, p []byte, ulen int, at int64) (bool, error) {
	if t.hold {
		return false, nil
	}
	return t.pipe.take(enc, hold, p, ulen, at)
}

func (t *tsink) drain() error { return t.pipe.drain() }

func (t *tsink) begin(key []byte, off int64) error {
	t.hold = false
	t.st.Records++
	if err := t.dst.Begin(key, off); err != nil {
		return err
	}
	if len(t.buf) == 0 {
		return nil
	}
	_, err := t.Write(t.buf)
	if cap(t.buf) > 1<<20 {
		t.buf = nil // a large key: do not keep its buffer
	}
	t.buf = t.buf[:0]
	return err
}

// DecodeT reads a T stream from src and writes the RDB it stands for to
// dst, its strings stored as target says. With TargetOriginal the output
// is the source of T byte for byte; its CRC-64 is checked against the
// trailer T holds (unless opt.IgnoreChecksum). With the other targets the
// trailer is recomputed (0 where the source's was 0). A 0xC5 string whose
// length is over opt.Cap (the cap must be at least the one T was made
// with), or whose flags are not 0, is an error naming its offset. With
// keep, the keys a Filter of it rejects are left out and, when something
// was, the trailer is recomputed whatever the target.
func DecodeT(dst io.Writer, src io.Reader, target Target, opt Options, keep func(*Record) bool) (int64, error) {
	ignore := opt.IgnoreChecksum
	r, err := newTReader(src, target, opt)
	if err != nil {
		return 0, err
	}
	w, err := NewWriter(dst, r.Header())
	if err != nil {
		return 0, err
	}
	sink := &decodeSink{w: w}
	if target != TargetOriginal && keep == nil && r.hdr.HasChecksum() {
		// The output's strings are not T's: the CRC-64 T's trailer holds
		// is summed over the file T stands for, beside the output.
		sink.orig = crc64.New()
		sink.orig.Write([]byte(r.hdr.Magic))
		r.in.rw.shadow = true
	}
	// The strings to LZF-encode are done on worker goroutines, the Writer
	// (and its CRC) on another: the pipe is drained before the trailer.
	pipe := newTPipe(sink, r.in.rw.mode, r.hdr.Version, opt.Workers)
	f := NewFilter(r, keep)
	eof, err := passRecords(f, pipe)
	if e := pipe.close(err == nil); e != nil {
		err = e
	}
	if err != nil {
		return w.Written(), err
	}
	stored, filtered := eof.Stored, f.Filtered().Bytes != 0
	if err := checkTrailer(r, sink, target, stored, ignore || filtered); err != nil {
		return w.Written(), err
	}
	switch {
	case !r.hdr.HasChecksum():
	case target == TargetOriginal && !filtered:
		w.SetTrailer(TrailerValue(stored))
	case stored == 0:
		w.SetTrailer(TrailerZero)
	}
	if err := w.Close(); err != nil {
		return w.Written(), fmt.Errorf("write trailer: %w", err)
	}
	if _, err := r.CopyRest(w.Rest()); err != nil {
		return w.Written(), fmt.Errorf("copy bytes after the trailer: %w", err)
	}
	return w.Written(), w.Flush()
}

// checkTrailer compares the CRC-64 T's trailer holds (stored; unless it
// is 0, or ignore: the checksum ignored, or a filter left records out) with
// that of the file T stands for: what DecodeT wrote with TargetOriginal,
// else the shadow sum of the sink. So that T's blocks swapped or altered,
// whatever the target, is an error.
func checkTrailer(r *Reader, sink *decodeSink, target Target, stored uint64, ignore bool) error {
	if !r.hdr.HasChecksum() || stored == 0 || ignore {
		return nil
	}
	var got uint64
	switch {
	case target == TargetOriginal:
		got = crc64.Update(sink.w.crc.Sum64(), []byte{OpEOF})
	case sink.orig != nil:
		got = crc64.Update(sink.orig.Sum64(), []byte{OpEOF})
	default:
		return nil
	}
	if got == stored {
		return nil
	}
	return r.failAt(r.in.offset()-8, "checksum", fmt.Errorf("%w: the trailer says %016x, the file restored from T gives %016x", ErrChecksum, stored, got))
}

// decodeSink is DecodeT's TSink: the Writer, and the CRC-64 of the file
// T stands for (orig, nil when the output is that file) beside it.
type decodeSink struct {
	w    *Writer
	orig *crc64.Digest
}

func (d *decodeSink) Begin([]byte, int64) error { return nil }

// Write writes bytes that are the same in the output and the original.
func (d *decodeSink) Write(p []byte) (int, error) {
	if d.orig != nil {
		d.orig.Write(p)
	}
	return d.w.Write(p)
}

// WriteOut writes bytes of the output that stand for others in the
// original (given to WriteOrig).
func (d *decodeSink) WriteOut(p []byte) error {
	_, err := d.w.Write(p)
	return err
}

// WriteOrig sums bytes of the original that the output holds in another
// form.
func (d *decodeSink) WriteOrig(p []byte) error {
	if d.orig != nil {
		d.orig.Write(p)
	}
	return nil
}

// altSink is a sink that tells the output from the original, for the
// strings a rewrite changes (decodeSink, and the tpipe in front of one).
type altSink interface {
	WriteOut(p []byte) error
	WriteOrig(p []byte) error
}

// sendAlt writes a string's replacement (head, body) to the sink, and its
// original form (orig...) to the shadow sum when the sink keeps one.
func sendAlt(sink io.Writer, head, body []byte, orig ...[]byte) error {
	a, ok := sink.(altSink)
	if !ok {
		return (&rewrite{}).send(sink, head, body)
	}
	for _, p := range [][]byte{head, body} {
		if len(p) > 0 {
			if err := a.WriteOut(p); err != nil {
				return &sinkError{err}
			}
		}
	}
	for _, p := range orig {
		if len(p) > 0 {
			if err := a.WriteOrig(p); err != nil {
				return &sinkError{err}
			}
		}
	}
	return nil
}

// newTReader is a Reader of the T stream src whose strings are stored as
// target says. T's bytes are not the ones its trailer sums: the reader
// neither sums nor checks them (the caller checks what it writes).
func newTReader(src io.Reader, target Target, opt Options) (*Reader, error) {
	opt.IgnoreChecksum = true
	r, err := NewReader(src, opt)
	if err != nil {
		return nil, err
	}
	r.in.nosum = true
	r.in.rw = &rewrite{mode: mode{target: target}, cap: r.opt.Cap}
	return r, nil
}

// rewrite is the string rewrite of a T stream, on the input's string
// decoder: toT turns faithful LZF strings into 0xC5 ones; otherwise the
// input is T and strings are stored as target says.
type rewrite struct {
	mode
	cheap bool // the strings of values go raw, whatever the mode says
	cap   int
	st    *TStats
	hold  appender // the prefix of the string being rewritten
	comp  []byte   // its stored payload
	work  strWork
}

// mode is what a rewrite makes of strings.
type mode struct {
	toT    bool
	target Target
	// shadow: the sink also sums the original form of each string it
	// rewrites (altSink), T's 0xC5 strings LZF-encoded as --to original
	// writes them.
	shadow bool
}

// costly tells whether rewriting a string of encoding enc takes an LZF
// encoder or decoder (not just a new prefix): worth another goroutine.
func (m mode) costly(enc Enc) bool {
	return enc == EncLZF || m.toT || m.target != TargetRaw
}

// wants tells, from a string's first byte, whether the rewrite may change it.
func (w *rewrite) wants(b byte) bool {
	const lzfByte, tByte = 0xC0 | encLZF, 0xC0 | EncodingT
	switch {
	case w.toT:
		return b == lzfByte
	case w.target == TargetOriginal:
		return b == tByte
	case b == lzfByte || b == tByte:
		return true
	}
	// TargetLZF: a raw string longer than 20 bytes (6-bit lengths up to
	// 20 are told by their first byte).
	return w.target == TargetLZF && b>>6 != 3 && b > 20
}

// string reads the next string, rewriting it when that applies.
func (w *rewrite) string(in *input) (strHead, error) {
	if w.cheap && in.skipping && !w.toT {
		saved := w.mode
		w.mode.target = TargetRaw
		defer func() { w.mode = saved }()
	}
	if err := in.fill(1); err != nil {
		return strHead{}, err
	}
	// With no output (the value of a key a Filter leaves out), strings are
	// read as they are, not rewritten nor handed to the pipe.
	if in.out == nil || !w.wants(in.buf[in.pos]) {
		return in.plainHeader(!w.toT)
	}
	start := in.offset()
	if err := in.flush(); err != nil {
		return strHead{}, err
	}
	sink := in.out
	w.hold = w.hold[:0]
	in.out = &w.hold
	h, err := in.plainHeader(!w.toT)
	if err == nil {
		err = in.flush()
	}
	in.out = sink
	if err != nil {
		return strHead{}, err
	}
	over := h.size > uint64(w.cap) || h.ulen > uint64(w.cap)
	switch {
	case h.enc == EncT && over:
		return strHead{}, fmt.Errorf("%w: 0xC5 string at offset %d claims %d bytes, over the cap of %d", ErrTooLarge, start, h.ulen, w.cap)
	case over && h.enc == EncLZF && !w.toT && w.target == TargetRaw:
		return w.streamRaw(in, sink, h)
	case h.enc == EncInt, h.enc == EncZstd, h.enc == EncRaw && h.size <= 20, over:
		if over && h.enc == EncLZF && w.st != nil {
			w.st.OverCap++
		}
		return h, w.send(sink, w.hold, nil)
	}
	in.out = nil
	w.comp, err = in.appendN(w.comp[:0], h.size)
	if err == nil {
		err = in.flush()
	}
	in.out = sink
	if err != nil {
		return strHead{}, err
	}
	if t, ok := sink.(stringTaker); ok {
		if in.skipping && h.ulen <= pipeMaxString && w.costly(h.enc) {
			if took, err := t.take(h.enc, w.hold, w.comp, int(h.ulen), start); took || err != nil {
				return strHead{enc: EncRaw, ulen: h.ulen, done: true}, err
			}
		}
		// Done here, sent after what the pipe holds. A large one is not
		// copied into a batch: the pipe is drained first.
		if h.ulen > pipeMaxString {
			if err := t.drain(); err != nil {
				return strHead{}, err
			}
		}
	}
	head, body, dec, err := w.work.rewrite(w.mode, h.enc, w.hold, w.comp, int(h.ulen), w.st)
	if err != nil {
		return strHead{}, fmt.Errorf("%w (string at offset %d)", err, start)
	}
	if w.shadow {
		oh, ob, err := w.work.original(h.enc, w.hold, w.comp, dec, head, body)
		if err != nil {
			return strHead{}, fmt.Errorf("%w (string at offset %d)", err, start)
		}
		return strHead{enc: EncRaw, ulen: uint64(len(dec)), done: true, data: dec}, sendAlt(sink, head, body, oh, ob)
	}
	return strHead{enc: EncRaw, ulen: uint64(len(dec)), done: true, data: dec}, w.send(sink, head, body)
}

// streamRaw writes an LZF string longer than the cap as a raw one (--to
// raw), decoding it as it is read: its prefix is read, its payload not.
func (w *rewrite) streamRaw(in *input, sink io.Writer, h strHead) (strHead, error) {
	var head [10]byte
	if err := sendAlt(sink, AppendLen(head[:0], h.ulen), nil, w.hold); err != nil {
		return strHead{}, err
	}
	if t, ok := sink.(stringTaker); ok {
		if err := t.drain(); err != nil { // the decoded bytes go straight on
			return strHead{}, err
		}
	}
	in.out = nil
	var comp io.Reader = &inputReader{in: in, left: h.size}
	var out io.Writer = sinkWriter{sink}
	if a, ok := sink.(altSink); ok && w.shadow {
		// The stored LZF bytes are the original's, the decoded ones
		// the output's.
		comp, out = io.TeeReader(comp, origWriter{a}), outWriter{a}
	}
	n, err := io.Copy(out, lzf.NewReader(comp, int64(h.ulen)))
	if err == nil {
		err = in.flush()
	}
	in.out = sink
	if err == nil && n != int64(h.ulen) {
		err = fmt.Errorf("%w: LZF string decodes to %d bytes, not %d", ErrCorrupt, n, h.ulen)
	}
	if err != nil {
		return strHead{}, err
	}
	return strHead{enc: EncRaw, ulen: h.ulen, done: true}, nil
}

// origWriter and outWriter write to one side of an altSink.
type origWriter struct{ a altSink }

func (o origWriter) Write(p []byte) (int, error) { return len(p), o.a.WriteOrig(p) }

type outWriter struct{ a altSink }

func (o outWriter) Write(p []byte) (int, error) { return len(p), o.a.WriteOut(p) }

// inputReader reads the next left bytes of an input.
type inputReader struct {
	in   *input
	left uint64
}

func (r *inputReader) Read(p []byte) (int, error) {
	if r.left == 0 {
		return 0, io.EOF
	}
	if err := r.in.fill(1); err != nil {
		return 0, err
	}
	n := int(min(uint64(len(p)), uint64(r.in.end-r.in.pos), r.left))
	copy(p, r.in.buf[r.in.pos:r.in.pos+n])
	r.in.pos += n
	r.left -= uint64(n)
	return n, nil
}

// send writes a string's replacement, head then body, to the sink.
func (w *rewrite) send(sink io.Writer, head, body []byte) error {
	if sink == nil {
		return nil
	}
	if _, err := sink.Write(head); err != nil {
		return &sinkError{err}
	}
	if len(body) == 0 {
		return nil
	}
	if _, err := sink.Write(body); err != nil {
		return &sinkError{err}
	}
	return nil
}

// tHeader reads the rest of a 0xC5 prefix: flags (0) and the decoded
// length (≥ 1); the caller checks it against the cap before reading.
func (in *input) tHeader() (strHead, error) {
	at := in.offset() - 1
	flags, err := in.byte()
	if err != nil {
		return strHead{}, err
	}
	if flags != 0 {
		return strHead{}, fmt.Errorf("%w: 0xC5 string at offset %d with flags 0x%02x (none is defined)", ErrCorrupt, at, flags)
	}
	n, err := in.readLen()
	if err != nil {
		return strHead{}, err
	}
	if n == 0 {
		return strHead{}, fmt.Errorf("%w: 0xC5 string at offset %d of 0 bytes", ErrCorrupt, at)
	}
	return strHead{enc: EncT, size: n, ulen: n}, nil
}

// DecodeTRecords writes the RDB that the T stream src stands for (its
// magic, then its records, strings stored as target says) to dst record by
// record and unbuffered, for a reader of part of T (listcodec/lookup):
// each record reaches dst before the next one is read past its first
// bytes. It returns nil before the first record for which stop reports
// true (of which dst may have received a part) and at the EOF record,
// writing no trailer; the checksum is not checked.
//
// want, when set, tells from a key which records are wanted: the values of
// the others are written with their strings raw (no LZF encoding: they are
// only there to be read past), their keys as target says.
func DecodeTRecords(dst io.Writer, src io.Reader, target Target, opt Options, stop func(*Reader, *Record) bool, want func(key []byte) bool) error {
	r, err := newTReader(src, target, opt)
	if err != nil {
		return err
	}
	if _, err := dst.Write([]byte(r.hdr.Magic)); err != nil {
		return fmt.Errorf("rdb: writing output: %w", err)
	}
	if err := r.SetSink(dst); err != nil {
		return err
	}
	for {
		rec, err := r.Next()
		if err != nil {
			return err
		}
		if rec.Kind == KindEOF || stop(r, rec) {
			return nil
		}
		if want != nil {
			r.in.rw.cheap = rec.Kind == KindKey && !want(rec.Key)
		}
	}
}
