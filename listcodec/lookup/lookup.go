// Package lookup finds keys in a format-2 file through its index
// (FORMAT.md §2.4–2.5, §3): `rdbz get`. The index's key filters say which
// blocks a key's record may start in; only those blocks are read and
// decoded (with the block before, when the key's record starts its block:
// an expiry record before it would end that one), by ReadAt, never the
// whole file. The records found are handed to the caller on a Reader of the
// RDB they stand for, as if read from the source file.
//
// A block's bytes are T from a record boundary on: to read them, a Reader
// is given the file's magic (from block 0, whose records before the first
// key also tell a Dragonfly file), a SELECTDB of the db asked for, then the
// block's T from its first record, turned back into the source's records
// byte for byte by tstream.DecodeTRecords (so a RESTORE payload is the one
// the source file gives). A SELECTDB inside the block says which db the
// records after it belong to; the records before it are taken to be in the
// db asked for when each of their keys passes the filter of its block with
// that db (a key of another db passes with a probability of 2^-P per key,
// P the filter's parameter) — a key found first in its run has only its
// own filter to go by.
package lookup

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/rdbz/rdbz/listcodec/block"
	"github.com/rdbz/rdbz/listcodec/format2"
	"github.com/rdbz/rdbz/listcodec/tstream"
	"github.com/rdbz/rdbz/rdbio"
)

// File is a format-2 file opened for lookups.
type File struct {
	bf    *block.File
	ra    *countingReaderAt
	opt   rdbio.Options
	keep  func(*rdbio.Record) bool // the keys Find finds (rdbio.Filter); nil: all
	hdr   rdbio.Header
	dfly  bool
	ready bool
	cache map[int][]byte // decoded blocks, a few
	order []int          // cache keys, oldest first
	decs  int
	trace []int          // when not nil, the blocks decoded in turn (the tests')
	dbs   map[int]uint64 // the db selected at a block's first record (dbAt)
}

// cacheBlocks is how many decoded blocks File keeps: a run and the block
// before it.
const cacheBlocks = 4

// Open reads the header and index of the format-2 file ra, of size bytes.
// Find finds only the keys that keep keeps (nil: every key).
func Open(ra io.ReaderAt, size int64, opt rdbio.Options, keep func(*rdbio.Record) bool) (*File, error) {
	opt.Cap = opt.CapBytes()
	cra := &countingReaderAt{ra: ra}
	bf, err := block.OpenFile(cra, size, block.ReaderOptions{Workers: 1})
	if err != nil {
		return nil, err
	}
	if err := format2.CheckHeader(bf.Header()); err != nil {
		bf.Close()
		return nil, err
	}
	return &File{bf: bf, ra: cra, opt: opt, keep: keep, cache: map[int][]byte{}, dbs: map[int]uint64{}}, nil
}

// Close releases the decoders.
func (f *File) Close() error { return f.bf.Close() }

// BytesRead is how many bytes of the file were read so far.
func (f *File) BytesRead() int64 { return f.ra.n }

// BlocksDecoded is how many blocks were decoded so far.
func (f *File) BlocksDecoded() int { return f.decs }

// Header is the magic of the RDB the file holds (read from block 0).
func (f *File) Header() (rdbio.Header, error) {
	if err := f.prepare(); err != nil {
		return rdbio.Header{}, err
	}
	return f.hdr, nil
}

// block returns block i decoded, from the cache when it is there.
func (f *File) block(i int) ([]byte, error) {
	if b, ok := f.cache[i]; ok {
		return b, nil
	}
	var reuse []byte
	if len(f.order) >= cacheBlocks {
		reuse = f.cache[f.order[0]]
		delete(f.cache, f.order[0])
		f.order = f.order[1:]
	}
	b, err := f.bf.DecodeBlock(i, reuse)
	if err != nil {
		return nil, err
	}
	f.decs++
	if f.trace != nil {
		f.trace = append(f.trace, i)
	}
	f.cache[i] = b
	f.order = append(f.order, i)
	return b, nil
}

// prepare reads what every lookup needs from block 0: the magic, and
// whether the records before the first key mark a Dragonfly file.
func (f *File) prepare() error {
	if f.ready {
		return nil
	}
	if len(f.bf.Blocks()) == 0 {
		return fmt.Errorf("rdbz format 2: no blocks: %w", rdbio.ErrCorrupt)
	}
	b0, err := f.block(0)
	if err != nil {
		return err
	}
	r, err := rdbio.NewReader(bytes.NewReader(b0), rdbio.Options{Cap: f.opt.Cap})
	if err != nil {
		return err
	}
	f.hdr = r.Header()
	src := &tSource{f: f, i: 0, end: 1}
	err = tstream.DecodeTRecords(io.Discard, src, tstream.TargetOriginal, rdbio.Options{Cap: f.opt.Cap}, func(r *rdbio.Reader, rec *rdbio.Record) bool {
		f.dfly = r.Dragonfly()
		return rec.Kind == rdbio.KindKey
	}, nil)
	if errors.Is(err, errEnd) { // block 0 holds no key: what it held decides
		err = nil
	}
	if err != nil {
		return err
	}
	f.ready = true
	return nil
}

// errEnd ends a T source at the end of the blocks it may read.
var errEnd = errors.New("lookup: end of the blocks read")

// tSource reads T from offset start of block i on, decoding blocks as it
// needs them, up to block end (excluded).
type tSource struct {
	f      *File
	i, end int
	start  int
	buf    []byte
	pos    int
	loaded bool
}

func (s *tSource) Read(p []byte) (int, error) {
	for s.pos == len(s.buf) {
		if s.loaded {
			s.i++
		}
		if s.i >= s.end {
			return 0, errEnd
		}
		b, err := s.f.block(s.i)
		if err != nil {
			return 0, err
		}
		s.buf, s.pos = b, 0
		if !s.loaded {
			s.pos = s.start
		}
		s.loaded = true
	}
	n := copy(p, s.buf[s.pos:])
	s.pos += n
	return n, nil
}

// Find looks for the key in db. When the file holds it, it calls fn with a
// Reader at the key's record (its value unread, its expiry, idle and freq
// as the file gives them) and reports true.
func (f *File) Find(db uint64, key []byte, fn func(*rdbio.Reader, *rdbio.Record) error) (bool, error) {
	if err := f.prepare(); err != nil {
		return false, err
	}
	blocks := f.bf.Blocks()
	cands, err := f.bf.Lookup(tstream.TKey(nil, db, key))
	if err != nil {
		return false, err
	}
	for _, i := range cands {
		if blocks[i].First < 0 {
			continue
		}
		q := query{db: db, key: key, fn: fn, from: i, last: i}
		// An expiry record before the key's would end the block before.
		q.deferFirst = i > 0 && blocks[i-1].First >= 0
		q.startDB, q.claimed = startDB(blocks[i], db)
		ok, err := f.search(&q)
		if ok || err != nil {
			return ok, err
		}
	}
	return false, nil
}

// search runs q until its outcome is known: again from the block before
// when the key's record comes first (deferFirst), and again with the db
// read from the blocks before (dbAt) when it is uncertain. It reports
// whether the key was found and handed on.
func (f *File) search(q *query) (bool, error) {
	for {
		res, err := f.run(q)
		switch {
		case err != nil:
			return false, err
		case res == firstInRun:
			q.from, q.deferFirst = q.from-1, false
			q.startDB, q.claimed = startDB(f.bf.Blocks()[q.from], q.db)
		case res == uncertain:
			if q.startDB, err = f.dbAt(q.from, q.db); err != nil {
				return false, err
			}
			q.known, q.claimed = true, false
		default:
			return res == found, nil
		}
	}
}

// startDB is the db selected at block b's first record as the index
// claims it (format 2.1): its state is the db of the first key from there
// on, which is the db in effect unless a SELECTDB comes first, and the run
// then reads that. The state holds a db's low 16 bits, as the filters do:
// for a db above that, dbAt reads the SELECTDB before. A claim is checked
// against the keys' filters before a key is taken on it (matcher).
func startDB(b block.BlockInfo, db uint64) (uint64, bool) {
	if b.State < 0 || db > 0xffff {
		return 0, false
	}
	return uint64(b.State), true
}

// query is one key looked for in a run of blocks.
type query struct {
	db         uint64
	key        []byte
	fn         func(*rdbio.Reader, *rdbio.Record) error
	from, last int  // the blocks whose records are read
	deferFirst bool // the key's record first in the run: do not hand it on
	known      bool // startDB is the db at the run's start, read back (dbAt)
	claimed    bool // startDB is what block from's index entry claims (to be checked)
	startDB    uint64
}

// A run's outcome.
type outcome uint8

const (
	notFound   outcome = iota
	found              // and handed to fn
	firstInRun         // found as the run's first record, not handed on: its expiry may be in the block before
	uncertain          // found before any SELECTDB of the run, with too little evidence that its db is the one asked for
)

// evidenceBits is how much the key filters of blocks without a SELECTDB
// must vouch for the db assumed for them before it is taken: each key of
// such a block is of the block's db, and passes the filter with another db
// with a probability of 2^-P (a block with a SELECTDB proves nothing: the
// keys of the other db, maybe of the same names, are in its filter too).
const evidenceBits = 24

// run reads the records that start in blocks q.from to q.last (and what
// they continue into) for the key, and hands it to fn when found.
func (f *File) run(q *query) (outcome, error) {
	blocks := f.bf.Blocks()
	db := q.db
	if q.known || q.claimed {
		db = q.startDB
	}
	m := matcher{q: q, known: q.known, claimed: q.claimed && !q.known, assumed: db, b: blocks[q.from], bf: f.bf, bi: q.from}
	res := notFound
	end := blocks[q.last].TOffset + int64(blocks[q.last].TSize)
	want := func(k []byte) bool { return bytes.Equal(k, q.key) }
	err := f.records(q.from, end, db, want, func(r *rdbio.Reader, rec *rdbio.Record) (bool, error) {
		res = m.record(rec)
		switch {
		case m.err != nil:
			return true, m.err
		case res != notFound && m.seen == 1 && q.deferFirst:
			res = firstInRun
		case res == found:
			return true, q.fn(r, rec)
		case res == notFound:
			return false, nil
		}
		return true, nil
	})
	return res, err
}

// records reads the records that start from block from's first record up
// to T offset end (excluded), on a Reader given the file's magic and a
// SELECTDB of db first, and calls fn with each until fn reports true.
//
// want (nil: every key) tells which keys' values must come out as the
// source stored them; the others' strings are decoded raw, cheaper.
func (f *File) records(from int, end int64, db uint64, want func([]byte) bool, fn func(*rdbio.Reader, *rdbio.Record) (bool, error)) error {
	blocks := f.bf.Blocks()
	prefix := f.prefix(db)
	start := blocks[from].First
	if from == 0 {
		start = max(start, len(f.hdr.Magic)) // T's first record is the magic
	}
	limit := int64(len(prefix)) + end - (blocks[from].TOffset + int64(start))
	src := io.MultiReader(bytes.NewReader(prefix), &tSource{f: f, i: from, start: start, end: len(blocks)})
	pr, pw := io.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		// The T side reads every record: f.opt's choices apply to the Reader
		// of the RDB.
		err := tstream.DecodeTRecords(pw, src, tstream.TargetOriginal, rdbio.Options{Cap: f.opt.Cap}, func(_ *rdbio.Reader, rec *rdbio.Record) bool {
			return rec.Offset >= limit
		}, want)
		if err == nil {
			err = errEnd
		}
		pw.CloseWithError(err)
	}()
	defer func() {
		pr.CloseWithError(errEnd)
		<-done
	}()
	r, err := rdbio.NewReader(pr, f.opt)
	if err != nil {
		return err
	}
	fr := rdbio.NewFilter(r, f.keep)
	for skip := prefixRecords(f.dfly); ; skip-- {
		rec, err := fr.Next()
		if errors.Is(err, errEnd) || errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil || skip > 0 {
			if err != nil {
				return err
			}
			continue
		}
		if stop, err := fn(r, rec); stop || err != nil {
			return err
		}
	}
}

// dbAt is the db selected at the first record of block j, read from the
// blocks before it, back from j-1: the last SELECTDB of the nearest block
// that has one (0 when none has), or want once the keys of the blocks
// without one vouch for it (evidenceBits), or, when a key of theirs fails
// its filter with want, a db that is not want.
func (f *File) dbAt(j int, want uint64) (uint64, error) {
	if db, ok := f.dbs[j]; ok {
		return db, nil
	}
	blocks := f.bf.Blocks()
	end := blocks[j].TOffset + int64(blocks[j].First) // where the records read so far start
	bits := 0
	for k := j - 1; k >= 0; k-- {
		if blocks[k].First < 0 {
			continue
		}
		v := blockDB{want: want, b: blocks[k], bf: f.bf, bi: k}
		if err := f.records(k, end, 0, func([]byte) bool { return false }, v.record); err != nil {
			return 0, err
		}
		db, cached := f.dbs[k]
		switch {
		case v.selected:
			return f.knownDB(j, v.db), nil
		case v.wrong:
			return want + 1, nil
		case cached: // the db at block k's start, and no SELECTDB since
			return f.knownDB(j, db), nil
		}
		if bits += v.bits; bits >= evidenceBits {
			return f.knownDB(j, want), nil
		}
		end = blocks[k].TOffset + int64(blocks[k].First)
	}
	return f.knownDB(j, 0), nil
}

// knownDB notes that db is selected at block j's first record (dbAt's
// answers, kept up to maxDBs of them).
func (f *File) knownDB(j int, db uint64) uint64 {
	if len(f.dbs) >= maxDBs {
		clear(f.dbs)
	}
	f.dbs[j] = db
	return db
}

// maxDBs bounds the answers of dbAt kept.
const maxDBs = 1 << 16

// blockDB reads the records of one block for dbAt.
type blockDB struct {
	want     uint64
	b        block.BlockInfo
	bf       *block.File
	bi       int  // b's index
	selected bool // a SELECTDB: db
	db       uint64
	wrong    bool // a key that fails the filter with want
	bits     int
	tkey     []byte
}

func (v *blockDB) record(_ *rdbio.Reader, rec *rdbio.Record) (bool, error) {
	switch rec.Kind {
	case rdbio.KindSelectDB:
		v.selected, v.db = true, rec.DB
	case rdbio.KindKey:
		if v.bits >= evidenceBits || v.wrong {
			break // enough: each check decodes the filter (0.2 ms for 1 MiB blocks)
		}
		v.tkey = tstream.TKey(v.tkey, v.want, rec.Key)
		ok, err := v.bf.MayHold(v.bi, block.KeyHash(v.tkey))
		if err != nil {
			return true, err
		}
		if !ok {
			v.wrong = true
		}
		v.bits += v.b.FilterP()
	}
	return false, nil
}

// matcher tells the key's record among those of a run.
type matcher struct {
	q     *query
	b     block.BlockInfo // block from, where every record before the key's starts
	bf    *block.File
	bi    int   // b's index
	err   error // of reading the index's filters
	seen  int   // records of the run
	known bool  // the db of the records is known: a SELECTDB of the run was read, or the start's was read back
	// claimed: the db at the run's start (assumed) is the index entry's
	// claim; assumed is the db taken for the records before any SELECTDB.
	claimed bool
	assumed uint64
	wrong   bool // a key before any SELECTDB failed its filter: the db assumed is not the run's
	bits    int  // evidence from block from that the db assumed is the run's
	tkey    []byte
}

// record judges one record: found, uncertain, or notFound. A key found
// before any SELECTDB is taken only in a run from the block before the
// key's (whose records then all came before the key) whose keys vouch for
// the db; else it is uncertain.
func (m *matcher) record(rec *rdbio.Record) outcome {
	m.seen++
	switch rec.Kind {
	case rdbio.KindSelectDB:
		m.known = true
		return notFound
	case rdbio.KindKey:
	default:
		return notFound
	}
	q := m.q
	if m.known {
		if rec.DB == q.db && bytes.Equal(rec.Key, q.key) {
			return found
		}
		return notFound
	}
	if m.assumed == q.db && bytes.Equal(rec.Key, q.key) {
		switch {
		case m.wrong:
			return notFound
		case m.claimed && m.bits+m.b.FilterP() >= evidenceBits:
			// The key passed its own filter with this db too: it
			// is a lookup's candidate.
			return found
		case q.from < q.last && m.bits >= evidenceBits:
			return found
		}
		return uncertain
	}
	// Before any SELECTDB: each key must be in its block's filter with the
	// db assumed, or the run's first records are of another db — which the
	// index entry, when it claimed the db, may not say.
	if m.bits >= evidenceBits || m.wrong {
		return notFound // enough evidence already: no more filter decodes
	}
	m.tkey = tstream.TKey(m.tkey, m.assumed, rec.Key)
	ok, err := m.bf.MayHold(m.bi, block.KeyHash(m.tkey))
	if err != nil {
		m.err = err
		return notFound
	}
	if !ok {
		m.wrong = true
		if m.claimed {
			m.err = fmt.Errorf("rdbz format 2: the index entry of block %d claims db %d, and key %s of the block is not in its filter with that db: %w",
				m.bi, m.assumed, rdbio.QuoteKey(rec.Key, 64), block.ErrFormat)
		}
	}
	m.bits += m.b.FilterP()
	return notFound
}

// prefix is what a Reader of a run reads before the run's records: the
// magic, an AUX df-ver for a Dragonfly file (which decides what its type
// bytes mean), a SELECTDB of db.
func (f *File) prefix(db uint64) []byte {
	b := []byte(f.hdr.Magic)
	if f.dfly {
		b = rdbio.AppendAux(b, []byte("df-ver"), []byte("rdbz-lookup"))
	}
	b = append(b, rdbio.OpSelectDB)
	return rdbio.AppendLen(b, db)
}

// prefixRecords is how many records prefix holds after the magic.
func prefixRecords(dfly bool) int {
	if dfly {
		return 2
	}
	return 1
}

// countingReaderAt counts the bytes read.
type countingReaderAt struct {
	ra io.ReaderAt
	n  int64
}

func (c *countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.ra.ReadAt(p, off)
	c.n += int64(n)
	return n, err
}
