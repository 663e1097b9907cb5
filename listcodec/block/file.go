package block

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"

	"github.com/klauspost/compress/zstd"
	"github.com/rdbz/rdbz/listcodec/columns"
)

// File is a format-2 file opened for random access: its header and index
// are read and checked once (the index's memory is its size in the file,
// at most MaxIndexSize), then any block can be decoded alone. A File is safe
// for concurrent use by up to ReaderOptions.Workers goroutines at a time
// (more wait for a decoder).
type File struct {
	ra       io.ReaderAt
	size     int64
	hdr      Header
	hdrLen   int64
	indexOff int64
	tLen     int64
	blocks   []BlockInfo
	opt      ReaderOptions
	dec      *zstd.Decoder
	cdec     *columns.Decoder // 2.2: column segments' decoder, made at the first
	partBits uint             // 2.1: b, the index has 2^b sections
	parts    *sections        // 2.1: the sections, loaded as lookups need them; nil for 2.0
}

// sliceSource reads index entries from the loaded index.
type sliceSource struct {
	b    []byte
	pos  int
	base int64 // file offset of b[0]
}

func (s *sliceSource) ReadByte() (byte, error) {
	if s.pos >= len(s.b) {
		return 0, io.ErrUnexpectedEOF
	}
	s.pos++
	return s.b[s.pos-1], nil
}

func (s *sliceSource) skip(n int) ([]byte, error) {
	if n > len(s.b)-s.pos {
		return nil, io.ErrUnexpectedEOF
	}
	s.pos += n
	return s.b[s.pos-n : s.pos : s.pos], nil
}

func (s *sliceSource) offset() int64 { return s.base + int64(s.pos) }

// OpenFile reads and checks the header and index of the format-2 file held
// by ra, of size bytes.
func OpenFile(ra io.ReaderAt, size int64, opt ReaderOptions) (*File, error) {
	sr := &offsetReader{r: bufio.NewReaderSize(io.NewSectionReader(ra, 0, size), 4096)}
	hdr, err := readHeader(sr)
	if err != nil {
		return nil, err
	}
	opt = opt.withDefaults(hdr.BlockSize)
	f := &File{ra: ra, size: size, hdr: hdr, hdrLen: sr.off, opt: opt}
	if err := f.readIndex(); err != nil {
		return nil, err
	}
	if f.dec, err = newDecoder(hdr, opt.Workers); err != nil {
		return nil, err
	}
	return f, nil
}

func (f *File) readAt(p []byte, off int64, what string) error {
	if n, err := f.ra.ReadAt(p, off); n < len(p) {
		if err == nil || err == io.EOF {
			return errAt(off+int64(n), ErrTruncated, "%s", what)
		}
		return fmt.Errorf("rdbz format 2: read %s at byte %d: %w", what, off, err)
	}
	return nil
}

func (f *File) readIndex() error {
	if f.size < f.hdrLen+8+4+2+footerLen {
		return errAt(f.size, ErrTruncated, "no room for an index after the header")
	}
	var foot [footerLen]byte
	footOff := f.size - footerLen
	if err := f.readAt(foot[:], footOff, "footer"); err != nil {
		return err
	}
	if string(foot[12:]) != footerMagic {
		return errAt(footOff+12, ErrFormat, "footer: magic %q (truncated or not format 2)", foot[12:])
	}
	io64 := binary.LittleEndian.Uint64(foot[4:])
	if io64 < uint64(f.hdrLen) || io64 > uint64(f.size-8-4-2-footerLen) {
		return errAt(footOff+4, ErrFormat, "footer: index offset %d outside %d..%d", io64, f.hdrLen, f.size-8-4-2-footerLen)
	}
	f.indexOff = int64(io64)
	var fh [16]byte
	if err := f.readAt(fh[:], f.indexOff, "index frame header"); err != nil {
		return err
	}
	if m := binary.LittleEndian.Uint32(fh[:]); m != indexMagic {
		return errAt(f.indexOff, ErrFormat, "index: magic %#x, want %#x", m, uint32(indexMagic))
	}
	size := int64(binary.LittleEndian.Uint32(fh[4:]))
	if want := f.size - f.indexOff - 8; size != want {
		return errAt(f.indexOff+4, ErrFormat, "index: frame size %d, the file leaves %d", size, want)
	}
	if size > MaxIndexSize {
		return errAt(f.indexOff+4, ErrLimit, "index: %d bytes over %d", size, MaxIndexSize)
	}
	stored := binary.LittleEndian.Uint32(foot[:])
	switch string(fh[8:12]) {
	case indexTag:
		return f.readParted(size, binary.LittleEndian.Uint32(fh[12:]), stored, footOff)
	case indexTag20:
		return f.readInline(size, stored, footOff)
	}
	return errAt(f.indexOff+8, ErrFormat, "index: tag %q, want %q", fh[8:12], indexTag)
}

// readInline reads format 2.0's index, the filters inline in the entries:
// the whole payload, at most MaxIndexSize and the file's size.
func (f *File) readInline(size int64, stored uint32, footOff int64) error {
	payload := make([]byte, size)
	if err := f.readAt(payload, f.indexOff+8, "index"); err != nil {
		return err
	}
	body := payload[:len(payload)-footerLen]
	if got := crc32c(body); got != stored {
		return errAt(footOff, ErrChecksum, "index: CRC-32C %#08x, stored %#08x", got, stored)
	}
	s := &sliceSource{b: body, base: f.indexOff + 8, pos: 4}
	if err := f.readEntries(s, true); err != nil {
		return err
	}
	if s.pos != len(body) {
		return errAt(s.offset(), ErrFormat, "index: %d bytes after the entries", len(body)-s.pos)
	}
	return nil
}

// readParted reads format 2.1's index: the head (hlen bytes after the tag
// and its length) now, each section when a lookup needs it.
func (f *File) readParted(size int64, hlen, stored uint32, footOff int64) error {
	if int64(hlen) > size-8-footerLen {
		return errAt(f.indexOff+12, ErrFormat, "index: head of %d bytes in a %d-byte index", hlen, size)
	}
	head := make([]byte, hlen)
	base := f.indexOff + 16
	if err := f.readAt(head, base, "index"); err != nil {
		return err
	}
	var pre [8]byte
	copy(pre[:], indexTag)
	binary.LittleEndian.PutUint32(pre[4:], hlen)
	if got := crc32Update(crc32c(pre[:]), head); got != stored {
		return errAt(footOff, ErrChecksum, "index: CRC-32C %#08x, stored %#08x", got, stored)
	}
	s := &sliceSource{b: head, base: base}
	if err := f.readEntries(s, false); err != nil {
		return err
	}
	p, err := readSections(s, f.blocks, f.partBits, base+int64(hlen), size-8-int64(hlen)-footerLen)
	if err != nil {
		return err
	}
	if s.pos != len(head) {
		return errAt(s.offset(), ErrFormat, "index: %d bytes after the sections' lengths", len(head)-s.pos)
	}
	f.parts = p
	return nil
}

// readEntries reads the block count, the T length, (2.1: b, read by
// readSections) and the entries, and checks that the blocks fill the file
// from the header to the index.
func (f *File) readEntries(s *sliceSource, inline bool) error {
	// Every entry takes at least 4 bytes.
	count, err := readUvarint(s, "block count", uint64(len(s.b))/4)
	if err != nil {
		return err
	}
	tOff := s.offset()
	total, err := readUvarint(s, "T length", uint64(count)*uint64(f.hdr.BlockSize))
	if err != nil {
		return err
	}
	if !inline {
		if f.partBits, err = readPartBits(s); err != nil {
			return err
		}
	}
	f.tLen = int64(total)
	f.blocks = make([]BlockInfo, 0, count)
	off, t, prevInput := f.hdrLen, int64(0), int64(0)
	for i := uint64(0); i < count; i++ {
		eOff := s.offset()
		b, err := readEntry(s, &f.hdr, prevInput, inline)
		if err != nil {
			return err
		}
		if b.First >= b.TSize {
			return errAt(eOff, ErrFormat, "index: block %d's first record at %d of %d bytes", i, b.First, b.TSize)
		}
		if b.First >= 0 {
			prevInput = b.Input
		}
		b.Offset, b.TOffset = off, t
		off += int64(b.Size)
		t += int64(b.TSize)
		if off > f.indexOff {
			return errAt(eOff, ErrFormat, "index: block %d (%d bytes at %d) overlaps the index at %d", i, b.Size, b.Offset, f.indexOff)
		}
		f.blocks = append(f.blocks, b)
	}
	if off != f.indexOff {
		return errAt(f.indexOff, ErrFormat, "index: blocks end at %d, the index starts at %d", off, f.indexOff)
	}
	if t != f.tLen {
		return errAt(tOff, ErrFormat, "index: T length %d, the blocks hold %d", f.tLen, t)
	}
	return nil
}

// Header returns the file's header.
func (f *File) Header() Header { return f.hdr }

// TSize is the length of T.
func (f *File) TSize() int64 { return f.tLen }

// Blocks returns the index's blocks in order (do not modify them).
func (f *File) Blocks() []BlockInfo { return f.blocks }

// IndexSize is the length of the index frame, footer included.
func (f *File) IndexSize() int64 { return f.size - f.indexOff }

// Lookup returns, in order, the blocks in which a record with this key may
// start: every block whose filter admits the key (a block without a filter
// admits every key). The key's record, if the file holds it, starts in one
// of them; the others are false positives. The error is one of reading or
// checking the index's sections (2.1).
func (f *File) Lookup(key []byte) ([]int, error) {
	h := KeyHash(key)
	n := len(f.blocks)
	if f.parts != nil || n < lookupSplit {
		// 2.1: a section holds 1/2^b of the filters; one goroutine is enough.
		return f.lookup(h, 0, n, nil)
	}
	// Two halves on two goroutines: the inline filters of a 2.0 file of
	// 340 MB (app-cache at scale 20, 1.76 million keys) take 30 ms to scan
	// on one.
	var wg sync.WaitGroup
	var hi []int
	var herr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		hi, herr = f.lookup(h, n/2, n, nil)
	}()
	lo, err := f.lookup(h, 0, n/2, nil)
	wg.Wait()
	return append(lo, hi...), errors.Join(err, herr)
}

// lookupSplit is the block count from which Lookup scans a 2.0 index on two
// goroutines.
const lookupSplit = 64

// lookup appends to out the blocks of [from, to) that may hold hash h.
func (f *File) lookup(h uint64, from, to int, out []int) ([]int, error) {
	for i := from; i < to; i++ {
		ok, err := f.MayHold(i, h)
		if err != nil {
			return out, err
		}
		if ok {
			out = append(out, i)
		}
	}
	return out, nil
}

// DecodeBlock decodes block i alone, appending to dst[:0].
func (f *File) DecodeBlock(i int, dst []byte) ([]byte, error) {
	if i < 0 || i >= len(f.blocks) {
		return dst[:0], fmt.Errorf("rdbz format 2: block %d of %d: %w", i, len(f.blocks), ErrUsage)
	}
	b := f.blocks[i]
	// b.Size ≤ maxFrameLen(BlockSize) (readEntry).
	frame := make([]byte, b.Size)
	if err := f.readAt(frame, b.Offset, "block frame"); err != nil {
		return dst[:0], err
	}
	if f.hdr.Columns {
		return f.decodeSegment(i, frame, dst)
	}
	fi, err := parseFrameHeader(frame, b.Offset, &f.hdr)
	if err != nil {
		return dst[:0], err
	}
	if fi.contentSize != b.TSize {
		return dst[:0], errAt(b.Offset, ErrFormat, "block %d: frame content size %d, the index says %d", i, fi.contentSize, b.TSize)
	}
	pos := fi.headerLen
	n, err := frameLen(fi, b.Size, func(k int) ([]byte, error) {
		if k > len(frame)-pos {
			return nil, errAt(b.Offset+int64(len(frame)), ErrFormat, "block %d: frame longer than the index's %d bytes", i, b.Size)
		}
		pos += k
		return frame[pos-k : pos], nil
	})
	if err != nil {
		var fe *frameError
		if errors.As(err, &fe) {
			return dst[:0], errAt(b.Offset+int64(fe.at), ErrFormat, "block %d: %s", i, fe.msg)
		}
		return dst[:0], err
	}
	if n != b.Size {
		return dst[:0], errAt(b.Offset+int64(n), ErrFormat, "block %d: frame ends after %d bytes, the index says %d", i, n, b.Size)
	}
	out, err := f.dec.DecodeAll(frame, slices.Grow(dst[:0], b.TSize))
	if err != nil {
		sentinel := ErrFormat
		if errors.Is(err, zstd.ErrCRCMismatch) {
			sentinel = ErrChecksum
		}
		return dst[:0], wrapAt(b.Offset, sentinel, err, fmt.Sprintf("block %d: decoding", i))
	}
	if len(out) != b.TSize {
		return dst[:0], errAt(b.Offset, ErrFormat, "block %d: decoded %d bytes, the index says %d", i, len(out), b.TSize)
	}
	return out, nil
}

// decodeSegment is DecodeBlock of a column segment's frame.
func (f *File) decodeSegment(i int, frame, dst []byte) ([]byte, error) {
	b := f.blocks[i]
	var fi frameInfo
	if err := checkSegFrame(frame, b.Offset, &f.hdr, &fi); err != nil {
		return dst[:0], err
	}
	if fi.contentSize != b.TSize {
		return dst[:0], errAt(b.Offset, ErrFormat, "block %d: segment of %d bytes of T, the index says %d", i, fi.contentSize, b.TSize)
	}
	if f.cdec == nil {
		cd, err := columns.NewDecoder(f.hdr.BlockSize)
		if err != nil {
			return dst[:0], err
		}
		f.cdec = cd
	}
	return decodeSegment(f.cdec, dst, frame, b.Offset, b.TSize, f.hdr.BlockSize)
}

// StreamFrom returns a Reader of T from block i's first byte (block i's
// TOffset) to the end of the blocks, with the File's options: a record that
// starts in block i and continues in the next ones reads on. The index is
// not read again.
func (f *File) StreamFrom(ctx context.Context, i int) (*Reader, error) {
	if i < 0 || i > len(f.blocks) {
		return nil, fmt.Errorf("rdbz format 2: block %d of %d: %w", i, len(f.blocks), ErrUsage)
	}
	start := f.indexOff
	if i < len(f.blocks) {
		start = f.blocks[i].Offset
	}
	sec := io.NewSectionReader(f.ra, start, f.indexOff-start)
	src := &offsetReader{r: bufio.NewReaderSize(sec, 64<<10), off: start}
	return startReader(ctx, f.hdr, src, f.indexOff, f.opt)
}

// Close releases the decoders.
func (f *File) Close() error {
	f.dec.Close()
	if f.cdec != nil {
		f.cdec.Close()
	}
	return nil
}
