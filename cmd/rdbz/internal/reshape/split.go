package reshape

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/rdbz/rdbz/cmd/rdbz/internal/cluster"
	"github.com/rdbz/rdbz/rdbio"
)

// ErrDB is wrapped by the error of a key outside db 0 that Split was not
// told to move there (SplitOptions.DBTo0).
var ErrDB = errors.New("a cluster holds db 0 only")

// ErrSlot is wrapped by the error of a key whose slot no part serves.
var ErrSlot = errors.New("slot served by no part")

// SplitOptions configure Split. The zero value refuses keys outside db 0
// and writes 32 MiB of queues at most.
type SplitOptions struct {
	// Options say how the input is read (Cap, IgnoreChecksum).
	rdbio.Options
	// Keep, when set, selects the keys split (rdbio.Filter); nil: every
	// key.
	Keep func(*rdbio.Record) bool
	// DBTo0 moves the keys of every db into db 0 (false: such a key is an
	// error, ErrDB). A key held in two dbs is then an error.
	DBTo0 bool
	// QueueBytes bounds the bytes queued for all the parts together
	// (0: DefaultQueueBytes); each part has at least two 64 KiB chunks.
	QueueBytes int
	// Phase, when set, is called as the work moves on: "counting" (the
	// first pass, for an input that can be read twice), "splitting".
	Phase func(name string)
	// Counted, when set, is SplitReport.Counted of an earlier Split of
	// the same input into the same parts: the counting pass is not made
	// again (a split in several passes, each writing some of the parts).
	Counted []PartReport
}

// DefaultQueueBytes is the default SplitOptions.QueueBytes.
const DefaultQueueBytes = 32 << 20

// SplitReport is what Split did.
type SplitReport struct {
	Magic string
	Parts []PartReport
	// Moved counts, by db, the keys moved into db 0 (DBTo0).
	Moved map[uint64]int64
	// Shared counts the records written into every part: AUX fields,
	// function libraries, module AUX data.
	Shared int64
	// Sized says that each part's RESIZEDB holds its key counts (the
	// input was read twice); without it the parts have none.
	Sized bool
	// Counted is what the counting pass found: each part's keys (nil
	// without one).
	Counted []PartReport
}

// PartReport is what one part received.
type PartReport struct {
	Keys, Expires int64
	Bytes         int64 // the RDB bytes written
}

// Split reads the RDB of in and writes, to dst[i], an RDB of the keys whose
// hash slots t gives to part i, each value as it is stored (its record's
// bytes), with the input's magic, every AUX field, function library and
// module AUX record, a SELECTDB 0 and RESIZEDB of its own (when in can be
// read twice: a first pass counts the keys of each part) and a CRC64
// trailer of its own. The parts are written concurrently, each through a
// bounded queue (QueueBytes). A key outside db 0 is refused (ErrDB) unless
// DBTo0, a key whose slot no part serves is an error (ErrSlot), each naming
// its offset in the input and the key. dst are not closed; a nil dst[i]
// is a part not written in this pass (its records go nowhere, its report
// stays empty). It returns the report, also when it fails.
func Split(ctx context.Context, in Input, dst []io.Writer, t *cluster.Table, opt SplitOptions) (*SplitReport, error) {
	rep := &SplitReport{Parts: make([]PartReport, len(dst)), Moved: map[uint64]int64{}}
	if t.Parts() != len(dst) {
		return rep, fmt.Errorf("split: %d outputs for %d parts", len(dst), t.Parts())
	}
	s := &splitter{ctx: ctx, t: t, opt: opt, rep: rep, in: in}
	if opt.Counted != nil {
		if len(opt.Counted) != len(dst) {
			return rep, fmt.Errorf("split: counts of %d parts for %d parts", len(opt.Counted), len(dst))
		}
		s.sizes, s.checked, rep.Sized, rep.Counted = opt.Counted, true, true, opt.Counted
	} else if !in.Once {
		phase(opt.Phase, "counting")
		if err := s.count(); err != nil {
			return rep, err
		}
	}
	phase(opt.Phase, "splitting")
	return rep, s.split(dst)
}

func phase(fn func(string), name string) {
	if fn != nil {
		fn(name)
	}
}

// splitter is the state of one Split.
type splitter struct {
	ctx     context.Context
	in      Input
	t       *cluster.Table
	opt     SplitOptions
	rep     *SplitReport
	sizes   []PartReport // from count: each part's RESIZEDB
	checked bool         // count found no key in two dbs
	parts   []*part
	r       *rdbio.Filter
	g       *gate
	dups    *keyIndex
}

// part is one output being written.
type part struct {
	q        *queueWriter
	w        *rdbio.Writer
	selected bool // SELECTDB 0 written
	skip     bool // not written in this pass: w is the splitter's discard
}

// dest is where a record's bytes go: a part, or one of these.
type dest int

const (
	toNone   dest = -1 - iota // left out (SELECTDB, RESIZEDB: each part has its own)
	toAll                     // every part
	toPrefix                  // with the next key
)

// count is the first pass: the keys of each part, refusals before anything
// is written, and keys held in two dbs when they move to db 0.
func (s *splitter) count() error {
	sizes := make([]PartReport, len(s.rep.Parts))
	var dups *keyIndex
	if s.opt.DBTo0 {
		dups = newKeyIndex()
		defer dups.close()
	}
	_, err := eachRecord(s.ctx, s.in, s.opt.Options, s.opt.Keep, func(_ *rdbio.Filter, rec *rdbio.Record) error {
		if rec.Kind != rdbio.KindKey {
			return nil
		}
		p, err := s.route(rec)
		if err != nil {
			return err
		}
		sizes[p].Keys++
		if rec.Expire >= 0 {
			sizes[p].Expires++
		}
		if dups != nil {
			return dups.add(0, rec.DB, rec.Key, 0, rec.Offset, false)
		}
		return nil
	})
	if err == nil && dups != nil {
		err = s.checkDups(dups)
	}
	s.sizes, s.checked, s.rep.Sized = sizes, true, err == nil
	if err == nil {
		s.rep.Counted = sizes
	}
	return err
}

// route is the part of a key record, or the error that refuses it.
func (s *splitter) route(rec *rdbio.Record) (int, error) {
	if rec.DB != 0 && !s.opt.DBTo0 {
		return 0, fmt.Errorf("offset %d, key %s: db %d: %w (--db-to-0 moves the keys of every db into db 0)",
			rec.Offset, rdbio.QuoteKey(rec.Key, quoteMax), rec.DB, ErrDB)
	}
	slot := cluster.KeySlot(rec.Key)
	p := s.t.Part(slot)
	if p == cluster.Unassigned {
		return 0, fmt.Errorf("offset %d, key %s: slot %d: %w (unserved: %s)",
			rec.Offset, rdbio.QuoteKey(rec.Key, quoteMax), slot, ErrSlot, s.t.Unserved())
	}
	return p, nil
}

// quoteMax is how much of a key an error shows.
const quoteMax = 200

// split is the pass that writes the parts.
func (s *splitter) split(dst []io.Writer) error {
	src, err := s.in.Open()
	if err != nil {
		return err
	}
	defer src.Close()
	r, err := rdbio.NewReader(src, s.opt.Options)
	if err != nil {
		return inputError(s.in, err)
	}
	s.r = rdbio.NewFilter(r, s.opt.Keep)
	s.rep.Magic = s.r.Header().Magic
	if err := s.openParts(dst); err != nil {
		return err
	}
	defer s.closeQueues()
	if s.opt.DBTo0 && !s.checked {
		s.dups = newKeyIndex()
		defer s.dups.close()
	}
	if s.g, err = newGate(s.r, s.opt.Options); err != nil {
		return err
	}
	if err := s.records(); err != nil {
		return inputError(s.in, err)
	}
	return inputError(s.in, finish(src))
}

// openParts starts a Writer with the input's magic on a queue per part.
func (s *splitter) openParts(dst []io.Writer) error {
	qb := s.opt.QueueBytes
	if qb <= 0 {
		qb = DefaultQueueBytes
	}
	written := 0
	for _, d := range dst {
		if d != nil {
			written++
		}
	}
	depth := min(max(qb/(queueChunk*max(written, 1)), 2), 16)
	var discard *rdbio.Writer
	for _, d := range dst {
		if d == nil {
			if discard == nil {
				var err error
				if discard, err = rdbio.NewWriter(io.Discard, s.r.Header()); err != nil {
					return err
				}
			}
			s.parts = append(s.parts, &part{w: discard, skip: true})
			continue
		}
		q := newQueueWriter(d, depth)
		w, err := rdbio.NewWriter(q, s.r.Header())
		s.parts = append(s.parts, &part{q: q, w: w})
		if err != nil {
			return err
		}
	}
	return nil
}

// closeQueues stops the parts' goroutines (after an error: their bytes
// are discarded with the outputs).
func (s *splitter) closeQueues() {
	for _, p := range s.parts {
		if !p.skip {
			p.q.Close()
		}
	}
}

// records routes every record of the input, then ends the parts.
func (s *splitter) records() error {
	if err := route(s.ctx, s.r, s.g, s); err != nil {
		return err
	}
	return s.end()
}

// deliver is where the bytes of a record whose destination is d go.
func (s *splitter) deliver(d dest) func([]byte) error {
	switch d {
	case toNone:
		return nil
	case toAll, toPrefix: // a prefix not followed by its key: everywhere
		return func(b []byte) error {
			for _, p := range s.parts {
				if p.skip {
					continue
				}
				if _, err := p.w.Write(b); err != nil {
					return err
				}
			}
			return nil
		}
	}
	w := s.parts[d].w
	return func(b []byte) error { _, err := w.Write(b); return err }
}

// other says where a record other than a key goes.
func (s *splitter) other(rec *rdbio.Record) (dest, error) {
	switch rec.Kind {
	case rdbio.KindSelectDB, rdbio.KindResizeDB:
		return toNone, nil
	case rdbio.KindExpire, rdbio.KindIdle, rdbio.KindFreq, rdbio.KindKeyMeta:
		return toPrefix, nil
	case rdbio.KindSlotInfo:
		return s.slotInfo(rec)
	case rdbio.KindVendor:
		if perKey[rec.Op] {
			return toPrefix, nil
		}
	}
	s.rep.Shared++
	return toAll, nil
}

// perKey are the vendor opcodes that stand before the key they describe:
// Dragonfly's DF_MASK (220) and Redis Enterprise's RAM_LRU (107).
var perKey = map[byte]bool{220: true, 107: true}

// slotInfo sends a SLOT_INFO record (a slot's key counts, a hint for the
// loader) to the part serving its slot; one for a slot no part serves is
// left out.
func (s *splitter) slotInfo(rec *rdbio.Record) (dest, error) {
	if rec.Slot >= cluster.Slots {
		return 0, fmt.Errorf("offset %d: slot info for slot %d: %w: slots end at %d", rec.Offset, rec.Slot, rdbio.ErrCorrupt, cluster.Slots-1)
	}
	p := s.t.Part(int(rec.Slot))
	if p == cluster.Unassigned {
		return toNone, nil
	}
	return dest(p), s.selectDB(p)
}

// key writes a key record, its prefix records and its value to its part.
func (s *splitter) key(rec *rdbio.Record) error {
	p, err := s.route(rec)
	if err != nil {
		return err
	}
	if rec.DB != 0 {
		s.rep.Moved[rec.DB]++
	}
	if s.dups != nil {
		if err := s.dups.add(0, rec.DB, rec.Key, 0, rec.Offset, false); err != nil {
			return err
		}
	}
	if err := s.selectDB(p); err != nil {
		return err
	}
	pt := s.parts[p]
	if pt.skip {
		return s.g.copyValue(s.r, nil) // not written in this pass
	}
	pr := &s.rep.Parts[p]
	pr.Keys++
	if rec.Expire >= 0 {
		pr.Expires++
	}
	return s.g.copyValue(s.r, pt.w)
}

// selectDB writes SELECTDB 0 and, when the counts are known, RESIZEDB to
// part p before its first key.
func (s *splitter) selectDB(p int) error {
	pt := s.parts[p]
	if pt.selected {
		return nil
	}
	pt.selected = true
	b := rdbio.AppendLen([]byte{rdbio.OpSelectDB}, 0)
	if s.sizes != nil && s.sizes[p].Keys > 0 && s.r.Header().Version >= 7 { // RESIZEDB came with RDB 7
		b = append(b, rdbio.OpResizeDB)
		b = rdbio.AppendLen(b, uint64(s.sizes[p].Keys))
		b = rdbio.AppendLen(b, uint64(s.sizes[p].Expires))
	}
	_, err := pt.w.Write(b)
	return err
}

// end writes each part's trailer and waits for its queue; then, for keys
// moved to db 0 in this one pass, checks that none is held twice.
func (s *splitter) end() error {
	for i, p := range s.parts {
		if p.skip {
			continue
		}
		err := p.w.Close()
		if qerr := p.q.Close(); err == nil {
			err = qerr
		}
		if err != nil {
			return fmt.Errorf("writing part %d: %w", i, err)
		}
		s.rep.Parts[i].Bytes = p.w.Written()
	}
	if s.dups != nil {
		return s.checkDups(s.dups)
	}
	return nil
}

// checkDups fails on the first key held in two dbs (moved to db 0, they
// would be one key twice, which a server refuses to load).
func (s *splitter) checkDups(x *keyIndex) error {
	var first *[2]keyRec
	err := x.pairs(func(prev, cur keyRec) error {
		if first == nil || cur.id < first[1].id {
			first = &[2]keyRec{prev, cur}
		}
		return nil
	})
	if err != nil || first == nil {
		return err
	}
	_, off := splitID(first[1].id)
	_, prevOff := splitID(first[0].id)
	key := "a key"
	if !s.in.Once {
		if k, err := keyAt(s.ctx, s.in, s.opt.Options, s.opt.Keep, off); err == nil {
			key = "key " + rdbio.QuoteKey(k, quoteMax)
		}
	}
	return fmt.Errorf("offset %d, %s in db %d: db %d holds it too (offset %d): %w: --db-to-0 would make them one key twice",
		off, key, first[1].meta>>1, first[0].meta>>1, prevOff, ErrDuplicate)
}

// unwalkable explains the error of a record rdbio cannot walk: what
// follows cannot be routed.
func unwalkable(err error) error {
	if errors.Is(err, rdbio.ErrUnsupported) {
		return fmt.Errorf("%w; the records after it cannot be told apart, so the file cannot be reshaped", err)
	}
	return err
}
