package rdbio

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/rdbz/rdbz/rdbio/crc64"
)

// Filter is a stage around a Reader that leaves out the keys its keep
// function rejects: a key record, the records before it that belong to it
// (expiry, idle, freq, key metadata, Dragonfly's mask) and its value never
// reach the sink nor Next's caller. The key-count hints, RESIZEDB and
// SLOT_INFO, are left out too: they count the keys before filtering (a
// server that loads the file sizes its tables as keys come). SELECTDB
// records stay. Filtered counts what was left out; Trailer is the
// checksum of what stays.
//
// keep is asked about every key record once its key is read (Key, Type,
// DB, Expire, Idle, Freq and Ctime set; the record is valid during the
// call only). A nil keep keeps everything: the Filter passes the Reader's
// records on as they come, hints included.
//
// The Filter reads a key's records with the Reader's sink set to a buffer
// of its own, and passes them on, or not, once keep has seen the key; a
// rejected key's value is skipped with no sink (its strings read as they
// are, shown to no StringHook), streamed and never held. Use the Filter's
// methods, not the Reader's, from NewFilter on.
type Filter struct {
	r    *Reader
	keep func(*Record) bool
	sink io.Writer // the caller's (SetSink)
	// held holds the bytes of the records read ahead; ahead are those
	// records, which Next returns in turn from at on, passing held on up
	// to each one's end (heldAt: how far it went).
	held   appender
	ahead  []aheadRec
	at     int
	heldAt int
	ctime  int64 // the AUX field ctime read so far, when hasCtime
	// hasCtime: an AUX ctime was read
	hasCtime bool
	left     Filtered
	hint     int64 // the bytes of a hint left out, not yet in left
	sum      keptSum
	trailer  uint64 // Trailer, set at the EOF record
	err      error  // sticky
}

// Filtered counts what a Filter kept and left out.
type Filtered struct {
	Kept    int64 // key records kept
	LeftOut int64 // key records left out, with their values and prefix records
	// Bytes counts the input bytes left out: those keys' records and
	// values, and the key-count hints (RESIZEDB, SLOT_INFO). They lie right
	// before the record Next returns after them.
	Bytes int64
}

// aheadRec is a record read ahead that Next has yet to return.
type aheadRec struct {
	rec    Record  // a copy, for all but the key record (the Reader's own)
	end    int     // the end of its bytes in held
	endOff int64   // its input offset's (Offset)
	key    *Record // the key record, which it is (the Reader's own), or nil
}

// NewFilter returns a Filter of the records of r that keep keeps. The
// Reader's sink becomes the Filter's (SetSink).
func NewFilter(r *Reader, keep func(*Record) bool) *Filter {
	return &Filter{r: r, keep: keep, sink: r.sink}
}

// Reader is the Reader the Filter reads.
func (f *Filter) Reader() *Reader { return f.r }

// Header is the Reader's Header.
func (f *Filter) Header() Header { return f.r.Header() }

// Dragonfly is the Reader's Dragonfly.
func (f *Filter) Dragonfly() bool { return f.r.Dragonfly() }

// CopyRest is the Reader's CopyRest.
func (f *Filter) CopyRest(w io.Writer) (int64, error) { return f.r.CopyRest(w) }

// Filtered counts what keep kept and left out so far.
func (f *Filter) Filtered() Filtered { return f.left }

// Trailer is, once Next returned the EOF record, what the trailer of the
// filtered file holds: the source's stored checksum when nothing was left
// out, else the CRC-64 of what stays (0 where the source's is 0: checksums
// disabled). It takes a Reader that sums its input (not
// Options.NoChecksum).
func (f *Filter) Trailer() uint64 { return f.trailer }

// SetSink is the Reader's SetSink for the records the Filter passes on.
func (f *Filter) SetSink(w io.Writer) error {
	f.sink = w
	return f.r.SetSink(w)
}

// Offset is the Reader's Offset; after a record read ahead, the offset
// right after it.
func (f *Filter) Offset() int64 {
	if f.at > 0 && f.at < len(f.ahead) {
		return f.ahead[f.at-1].endOff
	}
	return f.r.Offset()
}

// Value is the handle of the value of the key record Next returned last;
// after any other record, a spent one (Reader.Value).
func (f *Filter) Value() Value {
	if f.keep != nil && (f.at == 0 || f.ahead[f.at-1].key == nil) {
		return Value{}
	}
	return f.r.Value()
}

// Finish is the Reader's Finish, once the records read ahead have been
// returned (those are whole).
func (f *Filter) Finish() error {
	if f.err != nil {
		return f.err
	}
	if f.at < len(f.ahead) {
		return nil
	}
	return f.fail(f.r.Finish())
}

// Next returns the next record that passes: the Reader's Next, less what
// keep leaves out.
func (f *Filter) Next() (*Record, error) {
	if f.err != nil {
		return nil, f.err
	}
	if f.keep == nil {
		rec, err := f.r.Next()
		if err == nil && rec.Kind == KindEOF {
			f.trailer = rec.Stored
		}
		return rec, err
	}
	if f.at == len(f.ahead) {
		if err := f.readGroup(); err != nil {
			return nil, f.fail(err)
		}
	}
	return f.nextAhead()
}

// fail makes err sticky.
func (f *Filter) fail(err error) error {
	if err != nil && f.err == nil {
		f.err = err
	}
	return err
}

// readGroup reads the next records that pass with their bytes held: the
// records of a key that keep keeps — its prefix records, then the key
// record — or a record that is not a key's (with the prefix records before
// it, which then go on unjudged). The keys keep rejects and the hints are
// left out on the way.
func (f *Filter) readGroup() error {
	r := f.r
	for {
		if err := r.Finish(); err != nil {
			return err
		}
		f.left.Bytes, f.hint = f.left.Bytes+f.hint, 0 // before what comes now
		start, sum := r.Offset(), r.Checksum()
		f.held, f.heldAt, f.ahead, f.at = f.held[:0], 0, f.ahead[:0], 0
		if err := r.SetSink(&f.held); err != nil {
			return err
		}
		key, err := f.readAhead()
		if err != nil {
			return f.release(err)
		}
		if key == nil && len(f.ahead) == 0 {
			continue // a hint, left out
		}
		if key != nil && !f.judge(key) {
			if err := f.leaveOut(key, start, sum); err != nil {
				return err
			}
			continue
		}
		return f.keepGroup(key)
	}
}

// readAhead reads records into held: prefix records up to a key record,
// which it returns, or up to a record that is not a key's (nil: the
// records read are in ahead). A hint is left out; after prefix records,
// it ends them (nil), and its bytes count once they are returned (they lie
// after them).
func (f *Filter) readAhead() (*Record, error) {
	r := f.r
	for {
		at, sum, mark := r.Offset(), r.Checksum(), len(f.held)
		rec, err := r.Next()
		if err != nil {
			return nil, err
		}
		if rec.Kind == KindKey {
			return rec, nil
		}
		if err := r.Finish(); err != nil { // its bytes, into held
			return nil, err
		}
		f.noteAux(rec)
		if rec.Kind == KindResizeDB || rec.Kind == KindSlotInfo {
			f.held = f.held[:mark]
			f.hint += f.leave(at, sum)
			return nil, nil
		}
		f.ahead = append(f.ahead, aheadRec{rec: *rec, end: len(f.held), endOff: r.Offset()})
		if !belongsToKey(rec) {
			return nil, nil
		}
	}
}

// belongsToKey reports whether rec is a record that applies to the key
// that follows it: expiry, idle, freq, key metadata, Dragonfly's mask.
func belongsToKey(rec *Record) bool {
	switch rec.Kind {
	case KindExpire, KindIdle, KindFreq, KindKeyMeta:
		return true
	}
	return rec.Kind == KindVendor && rec.Op == opDfMask
}

// opDfMask is Dragonfly's per-key flags, written before the key (§6).
const opDfMask = 220

// noteAux notes the AUX field ctime (Record.Ctime) and, at the EOF
// record, the trailer.
func (f *Filter) noteAux(rec *Record) {
	switch {
	case rec.Kind == KindAux && string(rec.Name) == "ctime":
		c, err := strconv.ParseInt(string(rec.Value), 10, 64)
		f.ctime, f.hasCtime = c, err == nil
	case rec.Kind == KindEOF:
		f.setTrailer(rec.Stored, rec.Offset+1)
	}
}

// setTrailer sets Trailer at the EOF, where the trailer stores stored and
// the Reader has summed the input up to offset end.
func (f *Filter) setTrailer(stored uint64, end int64) {
	f.trailer = stored
	if f.left.Bytes > 0 && stored != 0 {
		f.trailer = f.sum.value(f.r.Checksum(), end)
	}
}

// judge asks keep about a key record.
func (f *Filter) judge(rec *Record) bool {
	rec.ctime, rec.hasCtime = f.ctime, f.hasCtime
	return f.keep(rec)
}

// leave notes that the input from offset at (where the Reader's checksum
// was sum) to the Reader's offset was left out, and returns its length.
func (f *Filter) leave(at int64, sum uint64) int64 {
	end := f.r.Offset()
	f.sum.leave(at, sum, end, f.r.Checksum())
	return end - at
}

// keepGroup passes the records read ahead on, from the first (which Next
// returns now) to the key record, if any.
func (f *Filter) keepGroup(key *Record) error {
	if key != nil {
		f.left.Kept++
	}
	if err := f.r.SetSink(f.sink); err != nil { // the rest of the key, into held
		return err
	}
	if key != nil {
		f.ahead = append(f.ahead, aheadRec{end: len(f.held), endOff: f.r.Offset(), key: key})
	}
	return nil
}

// nextAhead returns the next record read ahead, its bytes passed on first.
func (f *Filter) nextAhead() (*Record, error) {
	e := &f.ahead[f.at]
	f.at++
	rec := &e.rec
	if e.key != nil {
		rec = e.key
	}
	span := f.held[f.heldAt:e.end]
	f.heldAt = e.end
	if f.sink != nil && len(span) > 0 {
		if _, err := f.sink.Write(span); err != nil {
			return nil, f.fail(fmt.Errorf("rdb: writing output: %w", err))
		}
	}
	return rec, nil
}

// leaveOut skips the key readAhead returned with its value, from the
// group's start (start, where the Reader's checksum was sum): nothing of
// them goes on. A value rdbio cannot walk (ErrUnsupported, found before
// any of it is read) cannot be skipped: the key stays, with the rest of
// the file, for PassBody (which refuses it to a sink: unfiltered).
func (f *Filter) leaveOut(key *Record, start int64, sum uint64) error {
	r := f.r
	at := r.Offset()
	err := r.Value().Copy(nil)
	switch {
	case err == nil:
		f.left.LeftOut++
		f.left.Bytes += f.leave(start, sum)
		return nil
	case errors.Is(err, ErrUnsupported) && r.Offset() == at:
		return f.release(err)
	case errors.Is(err, ErrUnsupported):
		h := r.Header()
		return &Error{Offset: r.Offset(), Version: h.Version, Inner: h.Envelope.Enveloped(), What: "value",
			Key: bytes.Clone(key.Key), Err: fmt.Errorf("rdb: a key left out is skipped to its end: %v", err)}
	}
	return err
}

// release is readGroup's way out on err: the bytes held go on before the
// rest, so that PassBody, past a record rdbio does not know, still copies
// everything.
func (f *Filter) release(err error) error {
	if e := f.r.SetSink(f.sink); e != nil {
		return e
	}
	if f.sink != nil && len(f.held) > 0 {
		if _, e := f.sink.Write(f.held); e != nil {
			return fmt.Errorf("rdb: writing output: %w", e)
		}
	}
	f.held, f.ahead, f.at = f.held[:0], f.ahead[:0], 0
	return err
}

// PassBody is the Reader's PassBody. With keep, when a sink is set, it
// fails (wrapping the error the Filter stopped at): the keys in the rest
// could not be judged, and would go on unfiltered.
func (f *Filter) PassBody() (*Record, error) {
	if f.keep != nil && f.sink != nil {
		return nil, fmt.Errorf("rdb: the keys past a record rdbio cannot walk cannot be filtered: %w", f.err)
	}
	if f.keep != nil && f.err != nil && !errors.Is(f.err, ErrUnsupported) {
		return nil, f.err
	}
	eof, err := f.r.PassBody()
	if err == nil && f.r.Header().HasChecksum() {
		f.setTrailer(eof.Stored, eof.Offset-8) // up to the trailer
	}
	return eof, err
}

// Ctime is, on a key record a Filter asks its keep function about, the
// AUX field ctime (Unix seconds: when the dump was saved) of the file as
// far as it was read, and whether there was one: keep can judge a key's
// expiry against it.
func (rec *Record) Ctime() (int64, bool) { return rec.ctime, rec.hasCtime }

// keptSum is the CRC-64 of the input less what a Filter left out, kept as
// its difference d from the Reader's checksum of the whole input as it
// stood at offset at. Redis's CRC-64 is linear (crc64.Combine): the bytes
// both sums take in shift the difference alike, and a span only the
// Reader's takes in changes it by the Reader's checksums at its ends.
type keptSum struct {
	d  uint64
	at int64
}

// shift is d carried over n more bytes taken in by both sums.
func (k *keptSum) shift(to int64) uint64 {
	if k.d == 0 {
		return 0
	}
	return crc64.Combine(k.d, 0, int(to-k.at))
}

// leave notes that the bytes from offset from (where the Reader's checksum
// was c0) to offset to (c1) were left out.
func (k *keptSum) leave(from int64, c0 uint64, to int64, c1 uint64) {
	k.d = k.shift(from) ^ c0 ^ c1
	k.at = to
}

// value is the kept sum where the Reader's checksum is c, at offset off.
func (k *keptSum) value(c uint64, off int64) uint64 {
	return c ^ k.shift(off)
}
