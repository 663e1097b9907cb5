package block

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sync"

	"github.com/klauspost/compress/zstd"
	"github.com/rdbz/rdbz/listcodec/columns"
)

// ReaderOptions configure a Reader or a File. Zero fields take defaults.
type ReaderOptions struct {
	// Workers is the number of decoding goroutines (GOMAXPROCS, at most 2
	// by default).
	Workers int
	// Lookahead is the number of blocks read and decoded ahead of the
	// consumer (default: 2·Workers+2, fewer for blocks over 1 MiB, so
	// that they take at most lookaheadBytes, but at least 1). A Reader
	// holds at most Lookahead frames and decoded blocks: Lookahead ×
	// (2·BlockSize + 1 KiB), plus the header's dictionary (at most
	// MaxDictSize), a 64 KiB read buffer and the decoders' state.
	Lookahead int
}

// lookaheadBytes bounds what the default Lookahead holds (four blocks of
// 1 MiB, decoded and not; one of 4 or 8 MiB, decoded while it is read):
// six blocks of 8 MiB (96 MiB) made verify of such a file peak at 146 MiB,
// two at 68 MiB.
const lookaheadBytes = 8 << 20

func (o ReaderOptions) withDefaults(blockSize int) ReaderOptions {
	if o.Workers <= 0 {
		o.Workers = min(runtime.GOMAXPROCS(0), 2)
	}
	if o.Lookahead <= 0 {
		o.Lookahead = max(min(2*o.Workers+2, lookaheadBytes/(2*blockSize)), 1)
	}
	// A worker beyond the jobs in flight would only idle, holding its
	// decoder's buffers (a block's streams, tokens and T: some 10 MB for
	// a 4 MiB block of columns).
	o.Workers = min(o.Workers, o.Lookahead)
	return o
}

// Reader streams T back from a format-2 file read sequentially, decoding
// blocks on Workers goroutines with bounded lookahead and checking each
// frame (header fields, zstd checksum, decoded length) and, at the end, the
// index against the blocks seen. Read returns io.EOF only after the index
// was checked; it returns every byte of the blocks before an error found
// after them. A Reader is not safe for concurrent use.
type Reader struct {
	hdr      Header
	partBits uint // the index's section bits (2.1), once read
	ctx      context.Context
	cancel   context.CancelCauseFunc
	dec      *zstd.Decoder

	src  *offsetReader
	end  int64 // StreamFrom: the file offset where blocks end; -1: read the index
	free chan *rjob
	work chan *rjob
	// order carries jobs in file order to Read; its last job may be an
	// error.
	order chan *rjob
	wg    sync.WaitGroup

	cur    *rjob
	pos    int
	err    error
	closed bool
	// read is what readLoop found, complete once Read returned io.EOF
	// (the closing of order orders its writes before that).
	read ReadStats
}

// ReadStats is what a Reader read of the container: valid once Read has
// returned io.EOF (the index checked).
type ReadStats struct {
	Blocks     int64 // block frames
	TBytes     int64 // decoded bytes of T
	IndexBytes int64 // the index frame, footer included
	FileBytes  int64 // the file, header through footer
}

// Stats returns what was read of the container; its fields are complete
// only after Read returned io.EOF.
func (r *Reader) Stats() ReadStats { return r.read }

type rjob struct {
	off   int64
	frame []byte
	fi    frameInfo
	out   []byte
	err   error
	done  chan struct{}
}

// offsetReader counts the bytes read from a buffered source.
type offsetReader struct {
	r   *bufio.Reader
	off int64
}

func (o *offsetReader) Read(p []byte) (int, error) {
	n, err := o.r.Read(p)
	o.off += int64(n)
	return n, err
}

func (o *offsetReader) ReadByte() (byte, error) {
	b, err := o.r.ReadByte()
	if err == nil {
		o.off++
	}
	return b, err
}

// NewReader reads the header of a format-2 file from r and returns a
// Reader of its T stream. Cancelling ctx stops the Reader's goroutines.
func NewReader(ctx context.Context, r io.Reader, opt ReaderOptions) (*Reader, error) {
	src := &offsetReader{r: bufio.NewReaderSize(r, 64<<10)}
	hdr, err := readHeader(src)
	if err != nil {
		return nil, err
	}
	return startReader(ctx, hdr, src, -1, opt)
}

// ReadHeader reads the header frame of a format-2 file from r, and checks
// it: its block size and dictionary (FORMAT.md §2.2). It reads nothing
// after the header.
func ReadHeader(r io.Reader) (Header, error) { return readHeader(r) }

// readHeader reads and checks the header frame (FORMAT.md §2.2).
func readHeader(r io.Reader) (Header, error) {
	var fixed [8 + headerFixed]byte
	if n, err := io.ReadFull(r, fixed[:]); err != nil {
		if n >= 4 && binary.LittleEndian.Uint32(fixed[:]) != headerMagic {
			_, _, err := parseHeaderFixed(fixed[:])
			return Header{}, err
		}
		return Header{}, errAt(int64(n), ErrTruncated, "header")
	}
	h, size, err := parseHeaderFixed(fixed[:])
	if err != nil {
		return h, err
	}
	// size is bounded by MaxDictSize + 24 (parseHeaderFixed).
	payload := make([]byte, size)
	copy(payload, fixed[8:])
	if n, err := io.ReadFull(r, payload[headerFixed:]); err != nil {
		return h, errAt(int64(8+headerFixed+n), ErrTruncated, "header: dictionary and CRC (%d bytes)", size-headerFixed)
	}
	if err := checkHeaderRest(payload, &h); err != nil {
		return h, err
	}
	return h, nil
}

func newDecoder(h Header, workers int) (*zstd.Decoder, error) {
	opts := []zstd.DOption{
		zstd.WithDecoderConcurrency(workers),
		zstd.WithDecoderMaxMemory(uint64(h.BlockSize)),
		zstd.WithDecoderMaxWindow(uint64(windowFor(h.BlockSize))),
		zstd.WithDecodeAllCapLimit(true),
		zstd.WithDecoderLowmem(true),
	}
	if h.DictID != 0 {
		opts = append(opts, zstd.WithDecoderDicts(h.Dict))
	}
	d, err := zstd.NewReader(nil, opts...)
	if err != nil {
		return nil, errAt(8+headerFixed, ErrDictionary, "dictionary: %v", err)
	}
	return d, nil
}

func startReader(ctx context.Context, hdr Header, src *offsetReader, end int64, opt ReaderOptions) (*Reader, error) {
	opt = opt.withDefaults(hdr.BlockSize)
	dec, err := newDecoder(hdr, opt.Workers)
	if err != nil {
		return nil, err
	}
	cctx, cancel := context.WithCancelCause(ctx)
	r := &Reader{
		hdr: hdr, ctx: cctx, cancel: cancel, dec: dec, src: src, end: end,
		free:  make(chan *rjob, opt.Lookahead),
		work:  make(chan *rjob, opt.Lookahead),
		order: make(chan *rjob, opt.Lookahead+1),
	}
	for range opt.Lookahead {
		r.free <- &rjob{done: make(chan struct{}, 1)}
	}
	for range opt.Workers {
		r.wg.Add(1)
		go r.decoder()
	}
	go r.readLoop()
	return r, nil
}

// Header returns the file's header.
func (r *Reader) Header() Header { return r.hdr }

func (r *Reader) decoder() {
	defer r.wg.Done()
	var cd *columns.Decoder
	if r.hdr.Columns {
		var err error
		if cd, err = columns.NewDecoder(r.hdr.BlockSize); err != nil {
			r.cancel(err)
			return
		}
		defer cd.Close()
	}
	for {
		select {
		case j, ok := <-r.work:
			if !ok {
				return
			}
			if cd != nil {
				j.out, j.err = decodeSegment(cd, j.out, j.frame, j.off, j.fi.contentSize, r.hdr.BlockSize)
				j.done <- struct{}{}
				continue
			}
			// The decoder writes at most cap(dst) bytes
			// (WithDecodeAllCapLimit): the frame's content size.
			if cap(j.out) < j.fi.contentSize {
				j.out = blockBuf(j.fi.contentSize)
			}
			j.out, j.err = r.dec.DecodeAll(j.frame, j.out[:0:j.fi.contentSize])
			if j.err != nil {
				sentinel := ErrFormat
				if errors.Is(j.err, zstd.ErrCRCMismatch) {
					sentinel = ErrChecksum
				}
				j.err = wrapAt(j.off, sentinel, j.err, "block: decoding")
			} else if len(j.out) != j.fi.contentSize {
				j.err = errAt(j.off, ErrFormat, "block: decoded %d bytes, its header says %d", len(j.out), j.fi.contentSize)
			}
			j.done <- struct{}{}
		case <-r.ctx.Done():
			return
		}
	}
}

// fail hands an error to Read as the last job.
func (r *Reader) fail(err error) {
	j := &rjob{err: err, done: make(chan struct{}, 1)}
	j.done <- struct{}{}
	select {
	case r.order <- j:
	case <-r.ctx.Done():
	}
}

// readLoop reads frames in order and hands them to the decoders and to
// Read; after the blocks it checks the index.
func (r *Reader) readLoop() {
	defer close(r.work)
	defer close(r.order)
	var blocks, tLen int64
	var pairs uint32
	var magic [4]byte
	for {
		off := r.src.off
		if r.end >= 0 && off == r.end {
			return
		}
		n, err := io.ReadFull(r.src, magic[:])
		if err != nil {
			if n == 0 && r.end < 0 {
				r.fail(errAt(off, ErrTruncated, "the file ends after %d blocks, without its index", blocks))
			} else {
				r.fail(errAt(off, ErrTruncated, "frame magic"))
			}
			return
		}
		switch m := binary.LittleEndian.Uint32(magic[:]); {
		case m == zstdMagic && !r.hdr.Columns, m == segMagic && r.hdr.Columns:
		case m == indexMagic && r.end < 0:
			if err := r.checkIndex(off, blocks, tLen, pairs); err != nil {
				r.fail(err)
				return
			}
			r.read = ReadStats{Blocks: blocks, TBytes: tLen, IndexBytes: r.src.off - off, FileBytes: r.src.off}
			return
		default:
			r.fail(errAt(off, ErrFormat, "magic %#x: neither a block frame nor the index", m))
			return
		}
		var j *rjob
		select {
		case j = <-r.free:
		case <-r.ctx.Done():
			return
		}
		if err := r.readFrame(j, off, magic[:]); err != nil {
			r.fail(err)
			return
		}
		blocks++
		tLen += int64(j.fi.contentSize)
		pairs = pairSum(pairs, len(j.frame), j.fi.contentSize)
		select {
		case r.order <- j:
		case <-r.ctx.Done():
			return
		}
		r.work <- j // room for every job: never blocks
	}
}

// readFrame reads one block frame into j, checking its header and bounding
// its length before reading it.
func (r *Reader) readFrame(j *rjob, off int64, magic []byte) error {
	j.off, j.err = off, nil
	j.frame = append(j.frame[:0], magic...)
	if r.hdr.Columns {
		return r.readSegFrame(j, off)
	}
	limit := maxFrameLen(r.hdr.BlockSize)
	read := func(n int) ([]byte, error) {
		start := len(j.frame)
		j.frame = slices.Grow(j.frame, n)[:start+n]
		if k, err := io.ReadFull(r.src, j.frame[start:]); err != nil {
			return nil, errAt(off+int64(start+k), ErrTruncated, "block frame")
		}
		return j.frame[start:], nil
	}
	fhd, err := read(1)
	if err != nil {
		return err
	}
	hl := 5 + [4]int{0, 1, 2, 4}[fhd[0]&3] + [4]int{0, 2, 4, 8}[fhd[0]>>6]
	if fhd[0]&0x20 == 0 {
		hl++
	} else if fhd[0]>>6 == 0 {
		hl++
	}
	if _, err := read(hl - 5); err != nil {
		return err
	}
	fi, err := parseFrameHeader(j.frame, off, &r.hdr)
	if err != nil {
		return err
	}
	j.fi = fi
	n, err := frameLen(fi, limit, read)
	if err != nil {
		var fe *frameError
		if errors.As(err, &fe) {
			return errAt(off+int64(fe.at), ErrFormat, "block: %s", fe.msg)
		}
		return err
	}
	if n != len(j.frame) {
		return errAt(off, ErrFormat, "block: frame walk %d bytes, read %d", n, len(j.frame))
	}
	return nil
}

// readSegFrame reads a column segment's frame into j (its magic read):
// its length, bounded before it is read, then the segment, whose T length
// is the block's content size.
func (r *Reader) readSegFrame(j *rjob, off int64) error {
	var sz [4]byte
	if _, err := io.ReadFull(r.src, sz[:]); err != nil {
		return errAt(off+4, ErrTruncated, "segment frame size")
	}
	n := int64(binary.LittleEndian.Uint32(sz[:]))
	if n < 2 || n+8 > int64(r.hdr.maxFrame()) {
		return errAt(off+4, ErrLimit, "segment frame of %d bytes outside 2..%d", n, r.hdr.maxFrame()-8)
	}
	j.frame = append(slices.Grow(j.frame, int(n)+4), sz[:]...)
	start := len(j.frame)
	j.frame = j.frame[:start+int(n)]
	if k, err := io.ReadFull(r.src, j.frame[start:]); err != nil {
		return errAt(off+int64(start+k), ErrTruncated, "segment frame")
	}
	return checkSegFrame(j.frame, off, &r.hdr, &j.fi)
}

// checkSegFrame checks a whole segment frame (magic, length, the T
// length its segment declares) and sets fi's content size to that.
func checkSegFrame(frame []byte, off int64, h *Header, fi *frameInfo) error {
	if len(frame) < 10 || binary.LittleEndian.Uint32(frame) != segMagic {
		return errAt(off, ErrFormat, "block: not a column segment's frame")
	}
	if n := int(binary.LittleEndian.Uint32(frame[4:])); n != len(frame)-8 {
		return errAt(off+4, ErrFormat, "segment frame says %d bytes, it has %d", n, len(frame)-8)
	}
	l, err := columns.TLen(frame[8:])
	if err != nil {
		return wrapAt(off+8, ErrFormat, err, "segment")
	}
	if l > h.BlockSize {
		return errAt(off+9, ErrLimit, "segment of %d bytes of T, over the block size %d", l, h.BlockSize)
	}
	*fi = frameInfo{headerLen: 8, contentSize: l}
	return nil
}

// decodeSegment decodes a segment frame into dst[:0], checking that it
// gives size bytes (its checksums are the segment's own).
func decodeSegment(cd *columns.Decoder, dst, frame []byte, off int64, size, blockSize int) ([]byte, error) {
	if cap(dst) < size+columns.DecodeRoom {
		// A quarter more, up to a block: segments end where a record
		// does, and each larger than the ones before made the job's
		// buffer again (twice: the segment's size, then the join's).
		dst = blockBuf(min(size+size/4, blockSize) + columns.DecodeRoom)
	}
	out, err := cd.Decode(dst[:0], frame[8:])
	if err != nil {
		sentinel := ErrFormat
		if errors.Is(err, columns.ErrChecksum) {
			sentinel = ErrChecksum
		}
		return out, wrapAt(off+8, sentinel, err, "segment: decoding")
	}
	if len(out) != size {
		return out, errAt(off, ErrFormat, "segment: decoded %d bytes, its header says %d", len(out), size)
	}
	return out, nil
}

// streamSource reads the entries of an index from the stream, summing
// them; remain is what the entries may still take.
type streamSource struct {
	r      *offsetReader
	remain int64
	crc    uint32
	one    [1]byte
}

func (s *streamSource) ReadByte() (byte, error) {
	if s.remain <= 0 {
		return 0, io.ErrUnexpectedEOF
	}
	b, err := s.r.ReadByte()
	if err != nil {
		return 0, io.ErrUnexpectedEOF
	}
	s.remain--
	s.one[0] = b
	s.crc = crc32Update(s.crc, s.one[:])
	return b, nil
}

func (s *streamSource) skip(n int) ([]byte, error) {
	if int64(n) > s.remain {
		return nil, io.ErrUnexpectedEOF
	}
	var buf [4096]byte
	for n > 0 {
		k := min(n, len(buf))
		if _, err := io.ReadFull(s.r, buf[:k]); err != nil {
			return nil, io.ErrUnexpectedEOF
		}
		s.crc = crc32Update(s.crc, buf[:k])
		s.remain -= int64(k)
		n -= k
	}
	return nil, nil
}

func (s *streamSource) offset() int64 { return s.r.off }

// checkIndex reads the index frame from the stream (its magic at off is
// read) and checks it against the blocks seen, holding none of it but, in
// a 2.1 index, the sections' lengths and CRCs.
func (r *Reader) checkIndex(off, blocks, tLen int64, pairs uint32) error {
	var sz [4]byte
	if _, err := io.ReadFull(r.src, sz[:]); err != nil {
		return errAt(off+4, ErrTruncated, "index frame size")
	}
	size := int64(binary.LittleEndian.Uint32(sz[:]))
	if size < 4+2+footerLen || size > MaxIndexSize {
		return errAt(off+4, ErrLimit, "index: frame size %d outside %d..%d", size, 4+2+footerLen, MaxIndexSize)
	}
	s := &streamSource{r: r.src, remain: size - footerLen}
	tag, err := s.read4("index tag")
	if err != nil {
		return err
	}
	switch string(tag[:]) {
	case indexTag20:
		if err := r.checkEntries(s, blocks, tLen, pairs, true); err != nil {
			return err
		}
		if s.remain != 0 {
			return errAt(s.offset(), ErrFormat, "index: %d bytes after the entries", s.remain)
		}
	case indexTag:
		if err := r.checkParted(s, off, size, blocks, tLen, pairs); err != nil {
			return err
		}
	default:
		return errAt(off+8, ErrFormat, "index: tag %q, want %q", tag[:], indexTag)
	}
	footOff := r.src.off
	var foot [footerLen]byte
	if _, err := io.ReadFull(r.src, foot[:]); err != nil {
		return errAt(footOff, ErrTruncated, "footer")
	}
	if string(foot[12:]) != footerMagic {
		return errAt(footOff+12, ErrFormat, "footer: magic %q", foot[12:])
	}
	if got, want := s.crc, binary.LittleEndian.Uint32(foot[:]); got != want {
		return errAt(footOff, ErrChecksum, "index: CRC-32C %#08x, stored %#08x", got, want)
	}
	if io := int64(binary.LittleEndian.Uint64(foot[4:])); io != off {
		return errAt(footOff+4, ErrFormat, "footer: index offset %d, the index is at %d", io, off)
	}
	if _, err := r.src.ReadByte(); err != io.EOF {
		if err == nil {
			return errAt(r.src.off-1, ErrFormat, "bytes after the footer")
		}
		return fmt.Errorf("rdbz format 2: after the footer: %w", err)
	}
	return nil
}

// read4 reads 4 bytes through the source.
func (s *streamSource) read4(what string) ([4]byte, error) {
	var b [4]byte
	for i := range b {
		c, err := s.ReadByte()
		if err != nil {
			return b, errAt(s.offset(), ErrTruncated, "%s", what)
		}
		b[i] = c
	}
	return b, nil
}

// checkParted checks a 2.1 index after its tag: the head (entries and the
// sections' lengths and CRCs), then each section's length and CRC (their
// content is for lookups, File's).
func (r *Reader) checkParted(s *streamSource, off, size, blocks, tLen int64, pairs uint32) error {
	hb, err := s.read4("index head length")
	if err != nil {
		return err
	}
	hlen := int64(binary.LittleEndian.Uint32(hb[:]))
	if hlen > s.remain {
		return errAt(off+12, ErrFormat, "index: head of %d bytes in a %d-byte index", hlen, size)
	}
	after := s.remain - hlen // the sections' bytes
	s.remain = hlen
	if err := r.checkEntries(s, blocks, tLen, pairs, false); err != nil {
		return err
	}
	// Each descriptor takes 5 bytes at least.
	if n := int64(1) << r.partBits; n*5 > s.remain {
		return errAt(s.offset(), ErrTruncated, "index: %d sections' lengths", n)
	}
	secs := make([]uint32, 0, 2<<r.partBits)
	for range 1 << r.partBits {
		n, err := readUvarint(s, "section length", uint64(after))
		if err != nil {
			return err
		}
		c, err := s.read4("index: section CRC")
		if err != nil {
			return err
		}
		secs = append(secs, uint32(n), binary.LittleEndian.Uint32(c[:]))
	}
	if s.remain != 0 {
		return errAt(s.offset(), ErrFormat, "index: %d bytes after the sections' lengths", s.remain)
	}
	var sum int64
	for i := 0; i < len(secs); i += 2 {
		sum += int64(secs[i])
	}
	if sum != after {
		return errAt(r.src.off, ErrFormat, "index: sections of %d bytes where %d lie", sum, after)
	}
	var buf [4096]byte
	for i := 0; i < len(secs); i += 2 {
		at, n, crc := r.src.off, int64(secs[i]), uint32(0)
		for n > 0 {
			k := min(n, int64(len(buf)))
			if _, err := io.ReadFull(r.src, buf[:k]); err != nil {
				return errAt(r.src.off, ErrTruncated, "index section %d", i/2)
			}
			crc = crc32Update(crc, buf[:k])
			n -= k
		}
		if crc != secs[i+1] {
			return errAt(at, ErrChecksum, "index: section %d: CRC-32C %#08x, stored %#08x", i/2, crc, secs[i+1])
		}
	}
	return nil
}

// checkEntries reads the block count, the T length, (2.1: b) and the
// entries, checking them against the blocks read.
func (r *Reader) checkEntries(s *streamSource, blocks, tLen int64, pairs uint32, inline bool) error {
	cntOff := s.offset()
	count, err := readUvarint(s, "block count", uint64(s.remain))
	if err != nil {
		return err
	}
	if int64(count) != blocks {
		return errAt(cntOff, ErrFormat, "index: %d blocks, the file has %d", count, blocks)
	}
	tOff := s.offset()
	total, err := readUvarint(s, "T length", 1<<62)
	if err != nil {
		return err
	}
	if int64(total) != tLen {
		return errAt(tOff, ErrFormat, "index: T length %d, the blocks decode to %d", total, tLen)
	}
	if !inline {
		if r.partBits, err = readPartBits(s); err != nil {
			return err
		}
	}
	var sum uint32
	prevInput := int64(0)
	for i := int64(0); i < blocks; i++ {
		b, err := readEntry(s, &r.hdr, prevInput, inline)
		if err != nil {
			return err
		}
		if b.First >= 0 {
			if b.First >= b.TSize {
				return errAt(s.offset(), ErrFormat, "index: block %d's first record at %d of %d bytes", i, b.First, b.TSize)
			}
			prevInput = b.Input
		}
		sum = pairSum(sum, b.Size, b.TSize)
	}
	if sum != pairs {
		return errAt(cntOff, ErrFormat, "index: block lengths differ from the blocks'")
	}
	return nil
}

// Read reads decoded bytes of T.
func (r *Reader) Read(p []byte) (int, error) {
	for {
		if r.cur != nil && r.pos < len(r.cur.out) {
			n := copy(p, r.cur.out[r.pos:])
			r.pos += n
			return n, nil
		}
		if err := r.next(); err != nil {
			return 0, err
		}
	}
}

// WriteTo writes the rest of T to w.
func (r *Reader) WriteTo(w io.Writer) (int64, error) {
	var total int64
	for {
		if r.cur != nil && r.pos < len(r.cur.out) {
			n, err := w.Write(r.cur.out[r.pos:])
			r.pos += n
			total += int64(n)
			if err != nil {
				return total, err
			}
			continue
		}
		if err := r.next(); err != nil {
			if err == io.EOF {
				return total, nil
			}
			return total, err
		}
	}
}

// next recycles the current block and waits for the next one.
func (r *Reader) next() error {
	if r.cur != nil {
		j := r.cur
		r.cur = nil
		j.frame = shrink(j.frame, r.hdr.maxFrame())
		j.out = shrink(j.out, r.hdr.BlockSize)
		r.free <- j // free has room for every job
	}
	if r.err != nil {
		return r.err
	}
	if r.closed {
		return fmt.Errorf("rdbz format 2: Read after Close: %w", ErrUsage)
	}
	var j *rjob
	var ok bool
	select {
	case j, ok = <-r.order:
	case <-r.ctx.Done():
		r.err = context.Cause(r.ctx)
		return r.err
	}
	if !ok {
		if err := context.Cause(r.ctx); err != nil {
			r.err = err
			return err
		}
		r.err = io.EOF
		return io.EOF
	}
	select {
	case <-j.done:
	case <-r.ctx.Done():
		r.err = context.Cause(r.ctx)
		return r.err
	}
	if j.err != nil {
		r.err = j.err
		return r.err
	}
	r.cur, r.pos = j, 0
	return nil
}

// Close stops the Reader's goroutines. The reading goroutine ends when its
// current read of the source returns.
func (r *Reader) Close() error {
	if r.closed {
		return nil
	}
	r.closed = true
	r.cancel(errors.New("rdbz format 2: reader closed"))
	r.wg.Wait()
	r.dec.Close()
	for {
		select {
		case j := <-r.free:
			putBlockBuf(j.out)
		default:
			return nil
		}
	}
}

// blockBufs keep decoded-block buffers from one Reader to the next: a
// buffer of up to a block's size, allocated and cleared by the runtime for
// each Reader, was most of the cost of reading a small file (FuzzDecompress
// ran at a few executions a second while minimizing).
var blockBufs sync.Pool // *[]byte

// blockBuf is a buffer of capacity at least n, its content undefined.
func blockBuf(n int) []byte {
	if p, ok := blockBufs.Get().(*[]byte); ok && cap(*p) >= n {
		return (*p)[:0]
	}
	return make([]byte, 0, n)
}

func putBlockBuf(b []byte) {
	if cap(b) > 0 {
		blockBufs.Put(&b)
	}
}
