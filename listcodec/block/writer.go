package block

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"

	"github.com/klauspost/compress/zstd"
	"github.com/rdbz/rdbz/listcodec/columns"
)

// Defaults, chosen by the measurements in docs/compress.md ("Format 2
// design measurements"): on the decoded app-cache dump at scale 4, 128 KiB
// blocks with a 32 KiB dictionary at SpeedFastest give 1.06× the bytes of
// whole-file `zstd -3` of the same bytes (0.78× of zstd -3 of the dump as
// Redis saves it, LZF) for 1.3× its CPU; SpeedDefault gives 1.03× for
// 1.9×, SpeedBetterCompression 1.01× for 3×.
const (
	DefaultBlockSize  = 128 << 10
	DefaultLevel      = zstd.SpeedFastest
	DefaultIndexShare = 0.01 // the index's share of the output
	// DefaultDictSize is the dictionary size to train for these blocks:
	// 32 KiB did as well as or better than 64 and 110 KiB on every dump
	// measured (a larger one also costs its bytes in the header).
	DefaultDictSize = 32 << 10
)

// Options configure a Writer. Zero fields take the defaults.
type Options struct {
	BlockSize int               // largest decoded block (DefaultBlockSize)
	Level     zstd.EncoderLevel // zstd level (DefaultLevel)
	// Workers is the number of compressing goroutines (GOMAXPROCS, at
	// most 2 by default: the writer's own goroutine and the caller's
	// share the cores). Memory: Workers+2 blocks and their frames.
	Workers int
	// IndexShare bounds the index: after each block, the index written so
	// far is at most this share of the frames written so far (filters are
	// sized to it; the fixed part of each entry, a few bytes, is counted
	// too but never dropped).
	IndexShare float64
	// MinMove is the least offset within a full block at which a record
	// that does not fit is moved whole to the next block; a record that
	// starts before it continues in the next block instead (default
	// BlockSize/4).
	MinMove int
	// Source, when set, is stored in the header (Header.Source, at most
	// MaxSourceLen bytes): what the input was wrapped in, opaque to block.
	Source []byte
	// State, when set, gives the state of a record's key, which the index
	// keeps for each block where a record starts (BlockInfo.State): that
	// of the first record with a key at or after the block's first record,
	// 0 when no key follows. rdbz: the key's db, so that a block's records
	// can be read without the SELECTDB before them.
	State func(key []byte) uint64
	// SpillAt is how many bytes of filters the Writer holds in memory
	// before it moves them to a temporary file, removed at once
	// (DefaultSpillAt; held.go).
	SpillAt int
	// Columns writes each block as a column segment (listcodec/columns;
	// format 2.2) at Level, without a dictionary: the Writer splits each
	// record into the block's streams on the caller's goroutine as soon as
	// it is whole (the splitter learns the file as it goes), the workers
	// compress them.
	Columns bool
	// Encoder, when set, compresses the blocks (not column segments) in
	// place of an encoder of the Writer's own: one made by NewEncoder
	// with the same dictionary, BlockSize and Level, which Writers running
	// at once may share (split's parts: each encoder holds ~3 MiB). The
	// Writer does not close it.
	Encoder *zstd.Encoder
}

func (o Options) withDefaults() Options {
	if o.BlockSize == 0 {
		o.BlockSize = DefaultBlockSize
	}
	if o.Level == 0 {
		o.Level = DefaultLevel
	}
	if o.Workers <= 0 {
		o.Workers = min(runtime.GOMAXPROCS(0), 2)
	}
	if o.IndexShare == 0 {
		o.IndexShare = DefaultIndexShare
	}
	if o.MinMove == 0 {
		o.MinMove = o.BlockSize / 4
	}
	if o.SpillAt == 0 {
		o.SpillAt = DefaultSpillAt
	}
	return o
}

// Stats sum up what a Writer wrote.
type Stats struct {
	Blocks      int
	Records     int64
	Keys        int64 // records with a key
	TBytes      int64 // bytes of T
	HeaderBytes int64 // the header frame, dictionary included
	FrameBytes  int64 // the block frames
	IndexBytes  int64 // the index frame, footer included
	FilterBytes int64 // the filters inside the index
}

// Total is the file's length.
func (s Stats) Total() int64 { return s.HeaderBytes + s.FrameBytes + s.IndexBytes }

// Writer writes a format-2 file: Begin a record, Write its bytes (any
// number of times; a record larger than a block continues in the next
// blocks, so memory stays bounded whatever its size), Begin the next, and
// Close. Blocks are compressed by Options.Workers goroutines and written in
// order by one more; with one worker on one thread (GOMAXPROCS 1), by the
// caller's goroutine as each block fills. A Writer is not safe for
// concurrent use.
type Writer struct {
	opt    Options
	hdr    Header
	split  *columns.Splitter // Options.Columns
	sched  *columns.Schedule // Options.Columns: the trials' schedule the compressors share
	ctx    context.Context
	cancel context.CancelCauseFunc
	enc    *zstd.Encoder
	ownEnc bool // enc is the Writer's own, closed with it
	// sync: the caller's goroutine compresses and writes each block
	// (NewWriter says when), with ce for column segments.
	sync bool
	ce   *columns.Encoder

	free  chan *wjob // jobs not in flight
	work  chan *wjob // to the compressors
	order chan *wjob // to the writing goroutine, in order
	wg    sync.WaitGroup
	done  chan struct{} // the writing goroutine has ended

	// cur is the block filling. Its data is the block's T, but with
	// Options.Columns only what is not split yet: the open record's bytes
	// in the block (or, when it began in a block before, those since the
	// block's start). A record is split when the next Begin, a cut or
	// Close ends it, so a block's T is not held twice (its bytes, then its
	// streams) nor copied once more; the split is the same as of the
	// whole block at once.
	cur      *wjob
	blockLen int  // bytes of T in cur
	pendRec  bool // Options.Columns: cur.data starts with the open record (else it continues a record begun in a block before)
	recStart int  // offset in the block where the open record starts; -1: before this block (or none)
	recKey   bool
	recHash  uint64
	recState int64
	recInput int64
	recBytes int64 // bytes of the open record so far
	inRecord bool
	lastIn   int64
	tOff     int64
	closed   bool
	err      error // the caller's sticky error

	// The writing goroutine's state.
	out       io.Writer
	written   int64
	entries   []BlockInfo // so far, without their filters
	headBytes int         // what they and their cells' counts take in the index (an upper bound)
	filters   heldFilters // the blocks' filters, one after another
	frefs     []fref      // where each filter lies in filters
	prevInput int64
	stats     Stats // but Records and Keys
	records   int64 // the caller's goroutine's counts
	keys      int64
	vs        []uint64
	werr      error
}

// fref is one block's filter among Writer.filters.
type fref struct {
	keys int
	p    uint
	off  int64
	n    int
}

type wjob struct {
	data   []byte
	hashes []uint64
	first  int
	input  int64
	state  int64 // of the block's first key, -1 for none
	frame  []byte
	err    error
	done   chan struct{}

	tlen int              // bytes of T in the block
	seg  *columns.Segment // Options.Columns: the block split
}

// NewWriter writes the header (and dict, a complete zstd dictionary, or
// nil for none) to w and returns a Writer for the blocks. Cancelling ctx
// stops it: every later call returns the context's error.
func NewWriter(ctx context.Context, w io.Writer, dict []byte, opt Options) (*Writer, error) {
	opt = opt.withDefaults()
	if opt.BlockSize < MinBlockSize || opt.BlockSize > MaxBlockSize {
		return nil, fmt.Errorf("rdbz format 2: block size %d outside %d..%d: %w", opt.BlockSize, MinBlockSize, MaxBlockSize, ErrUsage)
	}
	if opt.MinMove < 1 || opt.MinMove > opt.BlockSize {
		return nil, fmt.Errorf("rdbz format 2: MinMove %d outside 1..%d: %w", opt.MinMove, opt.BlockSize, ErrUsage)
	}
	id, err := dictID(dict)
	if err != nil {
		return nil, err
	}
	if id != 0 && opt.Columns {
		return nil, fmt.Errorf("rdbz format 2: column segments take no dictionary: %w", ErrUsage)
	}
	enc, own := opt.Encoder, false
	if enc == nil {
		if enc, err = newEncoder(dict, id, opt); err != nil {
			return nil, err
		}
		own = true
	}
	if len(opt.Source) > MaxSourceLen {
		return nil, fmt.Errorf("rdbz format 2: source record of %d bytes over %d: %w", len(opt.Source), MaxSourceLen, ErrUsage)
	}
	h := Header{Minor: VersionMinor, BlockSize: opt.BlockSize, DictID: id, Dict: dict, Source: opt.Source}
	if opt.Columns {
		h.Minor, h.Columns = ColumnsMinor, true
	}
	hdr := appendHeader(nil, h)
	if _, err := w.Write(hdr); err != nil {
		if own {
			enc.Close()
		}
		return nil, fmt.Errorf("rdbz format 2: write header: %w", err)
	}
	cctx, cancel := context.WithCancelCause(ctx)
	// Blocks in flight: one per worker and one filling, but blocks over
	// 4 MiB no more than writerBytes of them (three of 8 MiB, with their
	// frames, took compress past 64 MiB).
	inflight := max(min(opt.Workers+1, writerBytes/opt.BlockSize), 2)
	// With one worker and one thread nothing can run beside the caller:
	// it compresses and writes each block itself, and the second job only
	// carries the open record into the next block (cut), so one block's
	// buffers and one segment's streams are held, not two. Compress of the
	// corpus's Dragonfly seed (0.7 MB, one thread by default): peak RSS
	// 28.0 -> 26.3 MiB (medians of 11), same time.
	bw := &Writer{
		sync: opt.Workers == 1 && runtime.GOMAXPROCS(0) == 1,
		opt:  opt, hdr: h, ctx: cctx, cancel: cancel, enc: enc, ownEnc: own,
		free:  make(chan *wjob, inflight),
		work:  make(chan *wjob, inflight),
		order: make(chan *wjob, inflight),
		done:  make(chan struct{}),
		out:   w, written: int64(len(hdr)),
		recStart: -1, lastIn: 0,
	}
	bw.stats.HeaderBytes = int64(len(hdr))
	for range inflight {
		j := &wjob{done: make(chan struct{}, 1), first: -1, input: -1, state: -1}
		if opt.Columns {
			j.seg = new(columns.Segment)
		} else {
			j.data = make([]byte, 0, firstBlockCap(opt.BlockSize))
		}
		bw.free <- j
	}
	if opt.Columns {
		bw.split, bw.sched = columns.NewSplitter(), columns.NewSchedule()
		context.AfterFunc(cctx, bw.sched.Abort) // no compressor waits for a trial that will not come
	}
	bw.cur = <-bw.free
	if opt.Columns {
		bw.cur.data = make([]byte, 0, firstBlockCap(opt.BlockSize))
		bw.split.Start(bw.cur.seg)
	}
	bw.filters.spillAt = opt.SpillAt
	if bw.sync {
		var err error
		if opt.Columns {
			bw.ce, err = bw.columnEncoder()
		}
		if err != nil {
			bw.cancel(err)
			if own {
				enc.Close()
			}
			return nil, err
		}
		close(bw.done)
		return bw, nil
	}
	for range opt.Workers {
		bw.wg.Add(1)
		go bw.compressor()
	}
	go bw.writeLoop()
	return bw, nil
}

// writerBytes bounds the blocks a Writer holds in flight (see NewWriter).
const writerBytes = 16 << 20

// NewEncoder returns an encoder for Options.Encoder: what a Writer with
// dict and opt compresses its blocks with.
func NewEncoder(dict []byte, opt Options) (*zstd.Encoder, error) {
	opt = opt.withDefaults()
	id, err := dictID(dict)
	if err != nil {
		return nil, err
	}
	return newEncoder(dict, id, opt)
}

// dictID checks a dictionary (nil: none) and returns its ID (0: none).
func dictID(dict []byte) (uint32, error) {
	if len(dict) == 0 {
		return 0, nil
	}
	if len(dict) < 8 || binary.LittleEndian.Uint32(dict) != dictMagic {
		return 0, fmt.Errorf("rdbz format 2: the dictionary is not a zstd dictionary: %w", ErrDictionary)
	}
	if len(dict) > MaxDictSize {
		return 0, fmt.Errorf("rdbz format 2: dictionary of %d bytes over %d: %w", len(dict), MaxDictSize, ErrLimit)
	}
	id := binary.LittleEndian.Uint32(dict[4:])
	if id == 0 {
		return 0, fmt.Errorf("rdbz format 2: dictionary ID 0: %w", ErrDictionary)
	}
	return id, nil
}

// newEncoder is the blocks' encoder: opt's level, Workers at once, a
// window of a block, a checksum per frame, dict when id is not 0.
func newEncoder(dict []byte, id uint32, opt Options) (*zstd.Encoder, error) {
	eopts := []zstd.EOption{
		zstd.WithEncoderLevel(opt.Level),
		zstd.WithEncoderConcurrency(opt.Workers),
		zstd.WithWindowSize(windowFor(opt.BlockSize)),
		zstd.WithEncoderCRC(true),
		zstd.WithSingleSegment(true),
	}
	if id != 0 {
		eopts = append(eopts, zstd.WithEncoderDict(dict))
	}
	enc, err := zstd.NewWriter(nil, eopts...)
	if err != nil {
		return nil, fmt.Errorf("rdbz format 2: encoder: %w", err)
	}
	return enc, nil
}

// windowFor is the zstd window for blocks of size bs: the power of two at
// or above it (klauspost requires a power of two of at least 1 KiB).
func windowFor(bs int) int {
	w := zstd.MinWindowSize
	for w < bs {
		w <<= 1
	}
	return w
}

// Begin ends the open record (if any) and starts one whose key is key (nil
// for a record without a key: the file's header, AUX fields, opcodes) at
// offset input of the caller's input (an RDB offset: the index gives it
// back for the first record of each block). input must not decrease. A
// record must get at least one byte before the next Begin or Close.
func (w *Writer) Begin(key []byte, input int64) error {
	if err := w.check(); err != nil {
		return err
	}
	if w.inRecord && w.recBytes == 0 {
		return w.usage("Begin after an empty record")
	}
	if input < w.lastIn {
		return w.usage(fmt.Sprintf("input offset %d before the previous record's %d", input, w.lastIn))
	}
	if w.blockLen == w.opt.BlockSize {
		w.recStart, w.inRecord = -1, false // the record before ends with the block
		if err := w.cut(); err != nil {
			return err
		}
	}
	if w.opt.Columns {
		w.splitPending(true)
		w.pendRec = true
	}
	w.lastIn = input
	w.inRecord, w.recBytes = true, 0
	w.recStart = w.blockLen
	w.recKey = key != nil
	w.recInput = input
	if w.recKey {
		w.recHash = KeyHash(key)
		w.recState = 0
		if w.opt.State != nil {
			w.recState = int64(w.opt.State(key) & (1<<63 - 1))
		}
		if len(w.cur.hashes) == 0 {
			w.cur.state = w.recState
		}
		w.cur.hashes = append(w.cur.hashes, w.recHash)
		w.keys++
	}
	if w.cur.first < 0 {
		w.cur.first, w.cur.input = w.recStart, input
	}
	w.records++
	return nil
}

// Write appends p to the open record.
func (w *Writer) Write(p []byte) (int, error) {
	if err := w.check(); err != nil {
		return 0, err
	}
	if !w.inRecord {
		return 0, w.usage("Write before Begin")
	}
	n := 0
	for len(p) > 0 {
		if w.blockLen == w.opt.BlockSize {
			if err := w.cut(); err != nil {
				return n, err
			}
		}
		// data ends where the block does: with Options.Columns it holds
		// the block's last len(data) bytes so far.
		end := len(w.cur.data) + w.opt.BlockSize - w.blockLen
		if need := len(w.cur.data) + len(p); need > cap(w.cur.data) && cap(w.cur.data) < end {
			// Up to a block, not to this block's end: the buffer serves
			// the blocks after (capped at the end, a record that began
			// mid-block grew it to less, and the next such record again:
			// on the corpus's Dragonfly seed 5.3 MB allocated, now 3.3).
			w.cur.data = growBlock(w.cur.data, need, w.opt.BlockSize)
		}
		k := copy(w.cur.data[len(w.cur.data):min(cap(w.cur.data), end)], p)
		w.cur.data = w.cur.data[:len(w.cur.data)+k]
		w.blockLen += k
		p = p[k:]
		n += k
		w.recBytes += int64(k)
		w.tOff += int64(k)
	}
	return n, nil
}

func (w *Writer) check() error {
	if w.err != nil {
		return w.err
	}
	if w.closed {
		return w.usage("use after Close")
	}
	if err := context.Cause(w.ctx); err != nil {
		w.err = err
		return err
	}
	return nil
}

func (w *Writer) usage(msg string) error {
	return fmt.Errorf("rdbz format 2: %s: %w", msg, ErrUsage)
}

// cut sends the full current block to the compressors. If the open record
// started in it at MinMove or later, the record's bytes so far move to the
// next block instead, so that it starts there.
func (w *Writer) cut() error {
	var next *wjob
	select {
	case next = <-w.free:
	case <-w.ctx.Done():
		w.err = context.Cause(w.ctx)
		return w.err
	}
	cur := w.cur
	next.hashes = next.hashes[:0]
	next.first, next.input, next.state, next.err = -1, -1, -1, nil
	cur.tlen = w.blockLen
	s := w.recStart
	move := s >= w.opt.MinMove && s < w.blockLen
	if w.opt.Columns {
		// The pending bytes go on with the next block: the open record
		// moved there whole, or nothing once they are split here (the
		// last piece of the block, whole when its record ended with it).
		if !move {
			w.splitPending(!w.inRecord)
		}
		cur.seg = w.split.Finish()
		next.data, cur.data = cur.data, nil
		w.pendRec = move
	} else {
		next.data = next.data[:0]
	}
	if move {
		if !w.opt.Columns {
			next.data = append(next.data, cur.data[s:]...)
			cur.data = cur.data[:s]
		}
		cur.tlen = s
		if w.recKey {
			cur.hashes = cur.hashes[:len(cur.hashes)-1]
			next.hashes = append(next.hashes, w.recHash)
			next.state = w.recState
			if len(cur.hashes) == 0 {
				cur.state = -1
			}
		}
		if cur.first == s {
			cur.first, cur.input = -1, -1
		}
		next.first, next.input = 0, w.recInput
		w.recStart = 0
	} else {
		w.recStart = -1
	}
	w.blockLen -= cur.tlen // the moved record's bytes, or none
	w.cur = next
	if err := w.submit(cur); err != nil {
		return err
	}
	if w.sync {
		// cur is written: its segment and frame buffer serve the next
		// block, and it goes back to carry the next cut's open record.
		next.seg, cur.seg = cur.seg, next.seg
		next.frame, cur.frame = cur.frame, next.frame
		w.free <- cur
	}
	if w.opt.Columns {
		w.split.Start(next.seg)
	}
	return nil
}

// splitPending splits the bytes not split yet (Options.Columns): as a
// whole record when they are one (whole, and they start with their
// record), else as a piece of one.
func (w *Writer) splitPending(whole bool) {
	if p := w.cur.data; len(p) > 0 {
		if whole && w.pendRec {
			w.split.Record(p, w.recKey)
		} else {
			w.split.Raw(p)
		}
		w.cur.data = p[:0]
	}
}

func (w *Writer) submit(j *wjob) error {
	if w.sync {
		w.encode(w.ce, j)
		err := w.writeBlock(j)
		j.frame = shrink(j.frame, w.hdr.maxFrame())
		if err != nil {
			w.err = err
			w.cancel(err)
		}
		return err
	}
	select {
	case w.order <- j:
	case <-w.ctx.Done():
		w.err = context.Cause(w.ctx)
		return w.err
	}
	// work has room for every job in flight: this never blocks for long.
	select {
	case w.work <- j:
	case <-w.ctx.Done():
		w.err = context.Cause(w.ctx)
		return w.err
	}
	return nil
}

func (w *Writer) compressor() {
	defer w.wg.Done()
	var ce *columns.Encoder
	if w.opt.Columns {
		var err error
		if ce, err = w.columnEncoder(); err != nil {
			w.cancel(err)
			return
		}
		defer ce.Close()
	}
	for {
		select {
		case j, ok := <-w.work:
			if !ok {
				return
			}
			w.encode(ce, j)
			j.done <- struct{}{}
		case <-w.ctx.Done():
			return
		}
	}
}

// columnEncoder is a compressor's encoder of column segments.
func (w *Writer) columnEncoder() (*columns.Encoder, error) {
	ce, err := columns.NewEncoder(columns.Options{Level: w.opt.Level, SegmentSize: w.opt.BlockSize, Schedule: w.sched})
	if err != nil {
		return nil, fmt.Errorf("rdbz format 2: column encoder: %w", err)
	}
	return ce, nil
}

// encode compresses j's block into j.frame: its segment with ce, or its T
// with the Writer's zstd encoder.
func (w *Writer) encode(ce *columns.Encoder, j *wjob) {
	if ce != nil {
		j.frame, j.err = encodeSegment(ce, j.frame[:0], j.seg)
	} else {
		j.frame = w.enc.EncodeAll(j.data, j.frame[:0])
	}
}

// encodeSegment compresses a split segment into its frame: a skippable
// frame (segMagic, its payload's length) around the segment.
func encodeSegment(ce *columns.Encoder, dst []byte, seg *columns.Segment) ([]byte, error) {
	dst = binary.LittleEndian.AppendUint32(dst, segMagic)
	dst = append(dst, 0, 0, 0, 0)
	dst, err := ce.Encode(dst, seg)
	if err != nil {
		return dst, fmt.Errorf("rdbz format 2: column segment: %w", err)
	}
	binary.LittleEndian.PutUint32(dst[4:], uint32(len(dst)-8))
	return dst, nil
}

// writeLoop writes the frames in order and builds the index.
func (w *Writer) writeLoop() {
	defer close(w.done)
	for j := range w.order {
		select {
		case <-j.done:
		case <-w.ctx.Done():
			return
		}
		if err := w.writeBlock(j); err != nil {
			w.werr = err
			w.cancel(err)
			return
		}
		j.frame = shrink(j.frame, w.hdr.maxFrame())
		w.free <- j
	}
}

// shrink drops a buffer that grew past what a block needs.
func shrink(b []byte, limit int) []byte {
	if cap(b) > 2*limit {
		return nil
	}
	return b
}

func (w *Writer) writeBlock(j *wjob) error {
	if j.err != nil {
		return j.err
	}
	if len(j.frame) > w.hdr.maxFrame() {
		return fmt.Errorf("rdbz format 2: block %d: the encoder made a frame of %d bytes, over the format's %d", w.stats.Blocks, len(j.frame), w.hdr.maxFrame())
	}
	if _, err := w.out.Write(j.frame); err != nil {
		return fmt.Errorf("rdbz format 2: write block %d: %w", w.stats.Blocks, err)
	}
	w.written += int64(len(j.frame))
	w.stats.FrameBytes += int64(len(j.frame))
	w.stats.Blocks++
	w.stats.TBytes += int64(j.tlen)
	b := BlockInfo{Size: len(j.frame), TSize: j.tlen, First: j.first, Input: j.input}
	// The entry's fixed fields, and each cell of the filter's sections
	// (1.5 bytes per cellKeys keys, FORMAT.md §2.4), come first; the
	// filter gets what is left of the budget.
	entry := len(appendEntry(nil, b, w.prevInput, false)) + 1 + 2 // + the parameter, the state
	fixed := entry + 2*(len(j.hashes)/cellKeys+1)
	held := w.headBytes + int(w.filters.n)
	allow := int(w.opt.IndexShare*float64(w.stats.FrameBytes)) - held - fixed
	if held+fixed+allow > MaxIndexSize-footerLen-64-6*(1<<maxPartBits) {
		allow = 0
	}
	if len(j.hashes) > 0 {
		b.Keys, b.p, b.filter, w.vs = buildFilter(j.hashes, max(allow, 0), w.vs)
	}
	b.State = j.state
	w.headBytes += fixed // the cells' counts stand in the sections, but count here
	w.stats.FilterBytes += int64(len(b.filter))
	if len(b.filter) > 0 {
		off, err := w.filters.add(b.filter)
		if err != nil {
			return err
		}
		w.frefs = append(w.frefs, fref{keys: b.Keys, p: b.p, off: off, n: len(b.filter)})
		b.filter = nil
	}
	w.entries = append(w.entries, b)
	if b.First >= 0 {
		w.prevInput = b.Input
	}
	return nil
}

// Close ends the open record, writes the last block and the index, and
// reports the first error of any goroutine. It does not close the
// underlying writer.
func (w *Writer) Close() error {
	if w.closed {
		return w.err
	}
	err := w.check()
	if err == nil && w.inRecord && w.recBytes == 0 {
		err = w.usage("Close after an empty record")
	}
	w.closed = true
	if err == nil && w.blockLen > 0 {
		w.cur.tlen = w.blockLen
		if w.opt.Columns {
			w.splitPending(true)
			w.cur.seg = w.split.Finish()
		}
		err = w.submit(w.cur)
	}
	close(w.order)
	<-w.done
	close(w.work)
	w.wg.Wait()
	if w.ownEnc {
		w.enc.Close()
	}
	if w.ce != nil {
		w.ce.Close()
	}
	if err == nil {
		err = w.werr
	}
	if err == nil {
		err = context.Cause(w.ctx)
	}
	if err == nil {
		err = w.writeIndex()
	}
	w.filters.close()
	w.cancel(errors.New("closed"))
	w.err = err
	return err
}

// writeIndex writes the index frame (FORMAT.md §2.4): tag, head length,
// the head (block count, T length, b, the entries, the sections' lengths
// and CRCs), the sections, then the footer. The sections are built twice,
// one at a time: once for their lengths and CRCs, once to write them, so
// that the index is not held twice.
func (w *Writer) writeIndex() error {
	var keys int64
	for _, f := range w.frefs {
		keys += int64(f.keys)
	}
	b := partBits(keys, int64(len(w.frefs)))
	head := binary.AppendUvarint(nil, uint64(w.stats.Blocks))
	head = binary.AppendUvarint(head, uint64(w.stats.TBytes))
	head = append(head, byte(b))
	// A block without a key takes the state of the next key's.
	next := int64(0)
	for i := len(w.entries) - 1; i >= 0; i-- {
		if e := &w.entries[i]; e.State < 0 {
			e.State = next
		} else {
			next = e.State
		}
	}
	head = appendEntries(head, w.entries, false)
	var sec []byte
	var total int64
	err := w.eachSection(b, func(s []byte) error {
		head = binary.AppendUvarint(head, uint64(len(s)))
		head = binary.LittleEndian.AppendUint32(head, crc32c(s))
		total += int64(len(s))
		return nil
	}, &sec)
	if err != nil {
		return err
	}
	size := 8 + int64(len(head)) + total + footerLen
	if size > MaxIndexSize {
		return fmt.Errorf("rdbz format 2: index of %d bytes over %d", size, MaxIndexSize)
	}
	pre := binary.LittleEndian.AppendUint32(nil, indexMagic)
	pre = binary.LittleEndian.AppendUint32(pre, uint32(size))
	pre = append(pre, indexTag...)
	pre = binary.LittleEndian.AppendUint32(pre, uint32(len(head)))
	crc := crc32Update(crc32c(pre[8:]), head)
	indexOff := w.written
	if err := w.put(pre, head); err != nil {
		return err
	}
	if err := w.eachSection(b, func(s []byte) error { return w.put(s) }, &sec); err != nil {
		return err
	}
	foot := binary.LittleEndian.AppendUint32(nil, crc)
	foot = binary.LittleEndian.AppendUint64(foot, uint64(indexOff))
	foot = append(foot, footerMagic...)
	if err := w.put(foot); err != nil {
		return err
	}
	w.stats.IndexBytes = 8 + size
	w.written += w.stats.IndexBytes
	w.entries, w.frefs = nil, nil
	w.filters.close()
	return nil
}

// put writes the index's parts.
func (w *Writer) put(parts ...[]byte) error {
	for _, p := range parts {
		if _, err := w.out.Write(p); err != nil {
			return fmt.Errorf("rdbz format 2: write index: %w", err)
		}
	}
	return nil
}

// eachSection builds the 2^b sections of the held filters in order, each in
// *buf, and hands each to fn.
func (w *Writer) eachSection(b uint, fn func([]byte) error, buf *[]byte) error {
	cur := make([]filterCursor, len(w.frefs))
	for i, f := range w.frefs {
		cur[i] = filterCursor{off: f.off, end: f.off + int64(f.n), n: f.keys, p: f.p}
	}
	var chunk []byte
	var vs []uint64
	for r := uint64(0); r < 1<<b; r++ {
		s := (*buf)[:0]
		for i, f := range w.frefs {
			m := filterRange(f.keys, f.p)
			var err error
			if s, err = cur[i].take(&w.filters, s, partStart(r, m, b), partStart(r+1, m, b), &chunk, &vs); err != nil {
				return err
			}
		}
		*buf = s
		if err := fn(s); err != nil {
			return err
		}
	}
	return nil
}

// TOffset is the number of bytes of T written so far: the T offset of the
// next byte.
func (w *Writer) TOffset() int64 { return w.tOff }

// Stats returns what was written; call it after Close.
func (w *Writer) Stats() Stats {
	s := w.stats
	s.Records, s.Keys = w.records, w.keys
	return s
}

// firstBlockCap is the capacity a block buffer starts with: a dump smaller
// than one block never allocates the whole block size (a 700 KB dump's
// compress allocated 2 MiB per block in flight). Buffers double up to the
// block size on their first fill and are reused from then on.
func firstBlockCap(blockSize int) int { return min(blockSize, 64<<10) }

// growBlock returns b with room for need bytes, doubling, at most limit.
func growBlock(b []byte, need, limit int) []byte {
	nb := make([]byte, len(b), min(limit, (need+cap(b))*2))
	copy(nb, b)
	return nb
}
