package rdbio

import (
	"errors"
	"fmt"
)

// Options.Keep: the records of a key — the prefix records that apply to
// it, then the key record — are read with their bytes held back (r.held)
// until Keep has seen the key. A key it rejects is skipped with its value,
// nothing of it going on; a key it keeps has its records returned in turn
// by Next, each one's bytes passed on as it is returned.

// Filtered counts what Options.Keep decided (Reader.Filtered).
type Filtered struct {
	Kept    int64 // key records kept
	LeftOut int64 // key records left out, with their values and prefix records
	// Bytes counts the input bytes left out: those keys' records and
	// values, and the key-count hints (RESIZEDB, SLOT_INFO). They lie right
	// before the record Next returns after them.
	Bytes int64
}

// Filtered counts what Options.Keep kept and left out so far.
func (r *Reader) Filtered() Filtered { return r.left }

// Ctime is the AUX field ctime (Unix seconds: when the dump was saved) of
// the file the record was read from, as far as it was read, and whether
// there was one: Options.Keep can judge a key's expiry against it.
func (rec *Record) Ctime() (int64, bool) {
	if rec.r == nil {
		return 0, false
	}
	return rec.r.ctime, rec.r.hasCtime
}

// aheadRec is a record held back until its key was kept (Reader.ahead).
type aheadRec struct {
	rec    Record
	end    int   // the end of its bytes in held
	endOff int64 // its input offset's (Reader.Offset)
	key    bool  // the key record: r.rec
}

// opDfMask is Dragonfly's per-key flags, written before the key (§6).
const opDfMask = 220

// isKeyOp reports whether op starts a key record: a value type (or a byte
// that is no opcode, which reading the key refuses).
func isKeyOp(op byte) bool { return op < 200 && op != 107 && op != 121 }

// startsKey reports whether op starts a key record or a record that
// applies to the key that follows (expiry, idle, freq, key metadata,
// Dragonfly's mask).
func (r *Reader) startsKey(op byte) bool {
	switch op {
	case OpExpireMs, OpExpireSec, OpIdle, OpFreq, opDfMask:
		return true
	case OpKeyMeta:
		return !r.hdr.Valkey // 243 is Valkey's slot import state
	}
	return isKeyOp(op)
}

// peekOp returns the next record's first byte; false at the end of the
// input or on a read error (the next read reports it).
func (r *Reader) peekOp() (byte, bool) {
	if err := r.in.fill(1); err != nil {
		return 0, false
	}
	return r.in.buf[r.in.pos], true
}

// nextKept is Next under Options.Keep, from a record's first byte with
// nothing pending.
func (r *Reader) nextKept() (*Record, error) {
	for {
		op, ok := r.peekOp()
		switch {
		case ok && (op == OpResizeDB || op == OpSlotInfo):
			if err := r.skipHint(); err != nil {
				return nil, err
			}
			continue
		case !ok || !r.startsKey(op):
			return r.nextRecord()
		}
		rec, err := r.readAhead()
		if err != nil {
			return nil, err
		}
		if rec.Kind != KindKey || r.opt.Keep(rec) {
			return r.keepAhead()
		}
		if err := r.leaveOut(); err != nil {
			return nil, err
		}
	}
}

// skipHint leaves out a key-count hint record (RESIZEDB, SLOT_INFO).
func (r *Reader) skipHint() error {
	start := r.in.offset()
	r.in.out, r.in.aside = nil, true
	_, err := r.nextRecord()
	if err == nil {
		err = r.in.flush()
	}
	r.in.out, r.in.aside = r.sink, false
	r.left.Bytes += r.in.offset() - start
	return err
}

// readAhead reads a key's records with their bytes held: the prefix
// records (into r.ahead) up to the key record, which it returns — or up
// to a record that is not a key's, when it returns the last prefix record
// (they go on unjudged).
func (r *Reader) readAhead() (*Record, error) {
	r.held, r.heldAt, r.ahead, r.aheadAt = r.held[:0], 0, r.ahead[:0], 0
	start, kept := r.in.offset(), r.in.kept
	r.in.out = &r.held
	for {
		rec, err := r.nextRecord()
		if err != nil {
			r.heldFailed(start)
			return nil, err
		}
		if rec.Kind == KindKey {
			r.aheadStart, r.keptBefore = start, kept
			return rec, nil
		}
		if err := r.in.flush(); err != nil { // into held: it does not fail
			return nil, r.fail("write", err)
		}
		r.ahead = append(r.ahead, aheadRec{rec: *rec, end: len(r.held), endOff: r.in.offset()})
		if op, ok := r.peekOp(); !ok || !r.startsKey(op) {
			return rec, nil
		}
	}
}

// heldFailed is readAhead's way out when a read fails: the held bytes go
// on before the rest at the next read, so that PassBody, past a record
// rdbio does not know, still copies everything.
func (r *Reader) heldFailed(start int64) {
	r.in.out = r.sink
	r.ahead = r.ahead[:0]
	if len(r.held) > 0 {
		r.release = true
		if r.onRecord != nil {
			r.onRecord(start)
		}
	}
}

// keepAhead passes on the key's records that readAhead held, returning
// the first; Next returns the others in turn (nextAhead).
func (r *Reader) keepAhead() (*Record, error) {
	key := r.rec.Kind == KindKey
	if key {
		r.left.Kept++
	}
	if len(r.ahead) == 0 && len(r.held) == 0 {
		// A key alone whose bytes are still in the input window: they go
		// on as they would have.
		r.in.out = r.sink
		return &r.rec, nil
	}
	if err := r.in.flush(); err != nil { // the rest of the key, into held
		return nil, r.fail("write", err)
	}
	r.in.out = r.sink
	if key {
		r.ahead = append(r.ahead, aheadRec{end: len(r.held), key: true})
	}
	return r.nextAhead()
}

// nextAhead returns the next held-back record of a kept key, its bytes
// passed on first.
func (r *Reader) nextAhead() (*Record, error) {
	e := &r.ahead[r.aheadAt]
	r.aheadAt++
	rec := &e.rec
	if e.key {
		rec = &r.rec
	}
	if r.onRecord != nil {
		r.onRecord(rec.Offset)
	}
	span := r.held[r.heldAt:e.end]
	r.heldAt = e.end
	if r.in.out != nil && len(span) > 0 {
		if _, err := r.in.out.Write(span); err != nil {
			return nil, r.fail("write", &sinkError{err})
		}
	}
	r.gen++
	rec.gen = r.gen
	return rec, nil
}

// leaveOut skips the key readAhead returned, with its records and its
// value: nothing of them goes on, and the value's strings are walked, not
// rewritten. A value rdbio cannot walk (ErrUnsupported, found before any
// of it is read) cannot be skipped: the key stays, with the rest of the
// file, for PassBody (which refuses it to a sink: unfiltered).
func (r *Reader) leaveOut() error {
	at, kept := r.in.offset(), r.in.kept
	r.in.out, r.in.aside, r.in.kept = nil, true, r.keptBefore
	if r.in.rw != nil {
		r.in.rw.passive = true
	}
	_, err := r.finishValue(false)
	if err == nil {
		err = r.in.flush()
	}
	if r.in.rw != nil {
		r.in.rw.passive = false
	}
	r.in.out, r.in.aside = r.sink, false
	switch {
	case err == nil:
		r.ahead, r.aheadAt = r.ahead[:0], 0
		r.left.LeftOut++
		r.left.Bytes += r.in.offset() - r.aheadStart
		return nil
	case errors.Is(err, ErrUnsupported) && r.in.offset() == at:
		r.in.kept = kept
		r.heldFailed(r.aheadStart)
		return err
	case errors.Is(err, ErrUnsupported):
		r.err = nil
		return r.fail("value", fmt.Errorf("rdb: a key left out is skipped to its end: %v", err))
	}
	return err
}
