// Package tstream is format 2's payload T: the record stream of an RDB
// with every faithful LZF string decoded (FORMAT.md §3). EncodeT turns an
// RDB into T, DecodeT and DecodeTRecords turn T back into an RDB, its
// strings as a Target says; both run rdbio's one walk of the grammar, with
// a StringHook (rewrite) that rewrites strings as the Reader reads them,
// and a pipe (pipe.go) that does the LZF work of the strings of values on
// other goroutines. listcodec compresses T in blocks (listcodec/block).
package tstream

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/rdbz/rdbz/rdbio"
	"github.com/rdbz/rdbz/rdbio/crc64"
	"github.com/rdbz/rdbz/rdbio/envelope"
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
// walk of the grammar, rdbio.Reader, with a rewrite of strings (rewrite,
// hook.go) as its StringHook.

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
	Checksum   rdbio.ChecksumStatus
}

// Options configure EncodeT and DecodeT: their Reader's, and the pipe's
// that does the LZF work of their strings.
type Options struct {
	rdbio.Options
	// Workers is how many goroutines EncodeT and DecodeT rewrite LZF
	// strings on (0: GOMAXPROCS); with fewer than GOMAXPROCS their
	// batches in flight weigh proportionally less. A split gives each of
	// its parts one: a part per core, each with a pipe per core, held
	// twice the buffers the cores can use.
	Workers int
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
// the file goes into one record as it is (rdbio.Reader.PassBody). With
// keep, T is that of the filtered file (rdbio.CopyFiltered's output): the
// records an rdbio.Filter of keep leaves out are not in it, and its
// trailer is the CRC-64 of what stays (0 where the source's was 0).
func EncodeT(dst TSink, src io.Reader, opt Options, keep func(*rdbio.Record) bool) (TStats, error) {
	var st TStats
	r, err := rdbio.NewReader(src, opt.Options)
	if err != nil {
		return st, err
	}
	h := r.Header()
	if es, ok := dst.(EnvelopeSink); ok {
		es.Envelope(h.Envelope)
	}
	pipe := newTPipe(dst, mode{toT: true}, h.Version, opt.Workers)
	r.SetStringHook(&rewrite{mode: mode{toT: true}, cap: opt.CapBytes(), st: &st})
	err = encodeT(r, rdbio.NewFilter(r, keep), pipe, &st)
	// A failure in the pipe is of bytes before the reader's position: it
	// comes first.
	if e := pipe.close(err == nil); e != nil {
		err = e
	}
	st.add(pipe.st)
	return st, err
}

func encodeT(r *rdbio.Reader, f *rdbio.Filter, pipe *tpipe, st *TStats) error {
	ts := &tsink{dst: pipe, st: st, pipe: pipe}
	if err := ts.begin(nil, 0); err != nil {
		return err
	}
	h := r.Header()
	if _, err := ts.Write([]byte(h.Magic)); err != nil {
		return err
	}
	if err := f.SetSink(ts); err != nil {
		return err
	}
	if err := encodeRecords(f, ts); err != nil {
		return err
	}
	// The EOF opcode and the stored trailer, then what follows it.
	st.LeftOut = f.Filtered().LeftOut
	tail := []byte{rdbio.OpEOF}
	if h.HasChecksum() {
		tail = binary.LittleEndian.AppendUint64(tail, f.Trailer())
	}
	if _, err := ts.Write(tail); err != nil {
		return err
	}
	if _, err := r.CopyRest(ts); err != nil {
		return fmt.Errorf("rdb: bytes after the trailer: %w", err)
	}
	st.InBytes = r.Offset()
	return nil
}

// encodeRecords sends T's records to ts, each Begun before its first
// byte: the bytes the sink receives from Finish on are held (tsink.hold)
// until Next has returned the record and its key is known.
func encodeRecords(f *rdbio.Filter, ts *tsink) error {
	for {
		err := f.Finish()
		start := f.Offset()
		var rec *rdbio.Record
		if err == nil {
			ts.hold = true
			rec, err = f.Next()
		}
		if errors.Is(err, rdbio.ErrUnsupported) {
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
		if rec.Kind == rdbio.KindKey {
			ts.key = TKey(ts.key, rec.DB, rec.Key)
			key = ts.key
			ts.st.Keys++
		}
		if err := ts.begin(key, rec.Offset); err != nil {
			return err
		}
		if rec.Kind == rdbio.KindEOF {
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
func (t *tsink) take(enc rdbio.Enc, hold, p []byte, ulen int, at int64) (bool, error) {
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
// keep, the keys an rdbio.Filter of it rejects are left out and, when
// something was, the trailer is recomputed whatever the target.
func DecodeT(dst io.Writer, src io.Reader, target Target, opt Options, keep func(*rdbio.Record) bool) (int64, error) {
	ignore := opt.IgnoreChecksum
	r, rw, err := newTReader(src, target, opt.Options)
	if err != nil {
		return 0, err
	}
	h := r.Header()
	w, err := rdbio.NewWriter(dst, h)
	if err != nil {
		return 0, err
	}
	sink := &decodeSink{w: w}
	if target != TargetOriginal && keep == nil && h.HasChecksum() {
		// The output's strings are not T's: the CRC-64 T's trailer holds
		// is summed over the file T stands for, beside the output.
		sink.orig = crc64.New()
		sink.orig.Write([]byte(h.Magic))
		rw.shadow = true
	}
	// The strings to LZF-encode are done on worker goroutines, the Writer
	// (and its CRC) on another: the pipe is drained before the trailer.
	pipe := newTPipe(sink, rw.mode, h.Version, opt.Workers)
	f := rdbio.NewFilter(r, keep)
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
	case !h.HasChecksum():
	case target == TargetOriginal && !filtered:
		w.SetTrailer(rdbio.TrailerValue(stored))
	case stored == 0:
		w.SetTrailer(rdbio.TrailerZero)
	}
	if err := w.Close(); err != nil {
		return w.Written(), fmt.Errorf("write trailer: %w", err)
	}
	if _, err := r.CopyRest(w.Rest()); err != nil {
		return w.Written(), fmt.Errorf("copy bytes after the trailer: %w", err)
	}
	return w.Written(), w.Flush()
}

// passRecords sends every record of f to w, up to the trailer, and
// returns the EOF record. Where the grammar stops (ErrUnsupported) the
// rest is passed on as it is.
func passRecords(f *rdbio.Filter, w io.Writer) (*rdbio.Record, error) {
	if err := f.SetSink(w); err != nil {
		return nil, err
	}
	for {
		rec, err := f.Next()
		if errors.Is(err, rdbio.ErrUnsupported) {
			return f.PassBody()
		}
		if err != nil || rec.Kind == rdbio.KindEOF {
			return rec, err
		}
	}
}

// checkTrailer compares the CRC-64 T's trailer holds (stored; unless it
// is 0, or ignore: the checksum ignored, or a filter left records out) with
// that of the file T stands for: what DecodeT wrote with TargetOriginal,
// else the shadow sum of the sink. So that T's blocks swapped or altered,
// whatever the target, is an error.
func checkTrailer(r *rdbio.Reader, sink *decodeSink, target Target, stored uint64, ignore bool) error {
	h := r.Header()
	if !h.HasChecksum() || stored == 0 || ignore {
		return nil
	}
	var got uint64
	switch {
	case target == TargetOriginal:
		got = crc64.Update(sink.w.Checksum(), []byte{rdbio.OpEOF})
	case sink.orig != nil:
		got = crc64.Update(sink.orig.Sum64(), []byte{rdbio.OpEOF})
	default:
		return nil
	}
	if got == stored {
		return nil
	}
	return &rdbio.Error{Offset: r.Offset() - 8, Version: h.Version, Inner: h.Envelope.Enveloped(), What: "checksum",
		Err: fmt.Errorf("%w: the trailer says %016x, the file restored from T gives %016x", rdbio.ErrChecksum, stored, got)}
}

// decodeSink is DecodeT's TSink: the Writer, and the CRC-64 of the file
// T stands for (orig, nil when the output is that file) beside it.
type decodeSink struct {
	w    *rdbio.Writer
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

// newTReader is a Reader of the T stream src whose strings are stored as
// target says, and its rewrite. T's bytes are not the ones its trailer
// sums: the reader neither sums nor checks them (the caller checks what
// it writes).
func newTReader(src io.Reader, target Target, opt rdbio.Options) (*rdbio.Reader, *rewrite, error) {
	opt.IgnoreChecksum, opt.NoChecksum = true, true
	r, err := rdbio.NewReader(src, opt)
	if err != nil {
		return nil, nil, err
	}
	rw := &rewrite{mode: mode{target: target}, cap: opt.CapBytes()}
	r.SetStringHook(rw)
	return r, rw, nil
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
func DecodeTRecords(dst io.Writer, src io.Reader, target Target, opt rdbio.Options, stop func(*rdbio.Reader, *rdbio.Record) bool, want func(key []byte) bool) error {
	r, rw, err := newTReader(src, target, opt)
	if err != nil {
		return err
	}
	if _, err := dst.Write([]byte(r.Header().Magic)); err != nil {
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
		if rec.Kind == rdbio.KindEOF || stop(r, rec) {
			return nil
		}
		if want != nil {
			rw.cheap = rec.Kind == rdbio.KindKey && !want(rec.Key)
		}
	}
}
