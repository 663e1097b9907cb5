package block

import (
	"encoding/binary"
	"sync"
)

// The partitioned index (FORMAT.md §2.4, format 2.1): the filters of all
// blocks are cut into R = 2^b sections by value, and section r holds, for
// each block with a filter, the block's values v with ⌊v·R / M⌋ = r
// (M = K·2^P, the block's value range). A value's section follows from the
// key's hash alone up to one: a key's v in every block lies in section
// ⌊h·R / 2^64⌋ or the one before it. So a lookup reads the entries and one
// section (rarely two), not every filter: on a 340 MB file with 1.76
// million keys, 210 KB of the index's 3.4 MB.

// cellKeys is the number of values the writer aims for in one block's part
// of one section: the counts and byte padding of the cells then cost about
// 1.5 bytes per cellKeys values (2% of a filter at P 10).
const cellKeys = 64

// maxPartBits bounds b (R ≤ 65536 sections).
const maxPartBits = 16

// readPartBits reads the head's b.
func readPartBits(s byteSource) (uint, error) {
	off := s.offset()
	b, err := s.ReadByte()
	if err != nil {
		return 0, errAt(off, ErrTruncated, "index: section bits")
	}
	if b > maxPartBits {
		return 0, errAt(off, ErrLimit, "index: %d section bits over %d", b, maxPartBits)
	}
	return uint(b), nil
}

// partBits is b for filters holding keys values in filtered blocks: the
// largest b that leaves cellKeys values per cell on average.
func partBits(keys, filtered int64) uint {
	b := uint(0)
	for b < maxPartBits && filtered > 0 && keys>>(b+1) >= filtered*cellKeys {
		b++
	}
	return b
}

// partStart is the first value of section r of a block whose values lie in
// 0..m-1: ⌈r·m / 2^b⌉ (m < 2^48 and r < 2^16: no overflow); partStart of
// r = 2^b is m.
func partStart(r uint64, m uint64, b uint) uint64 {
	return (r*m + 1<<b - 1) >> b
}

// partOf is the section of value v of such a block.
func partOf(v, m uint64, b uint) uint64 { return v << b / m }

// filterRange is a block's M = K·2^P.
func filterRange(keys int, p uint) uint64 { return uint64(keys) << p }

// appendCode appends the Rice code of the sorted values vs, each ≥ base,
// with parameter p, padded to a byte.
func appendCode(dst []byte, vs []uint64, base uint64, p uint) []byte {
	w := bitWriter{buf: dst}
	prev := base
	for _, v := range vs {
		d := v - prev
		prev = v
		for q := d >> p; q > 0; q-- {
			w.bit(1)
		}
		w.bit(0)
		w.bits(d&(1<<p-1), p)
	}
	return w.bytes()
}

// cell is one block's part of a loaded section.
type cell struct {
	n   int32 // values
	off int32 // offset of its code in the section
	len int32 // bytes of code
}

// parseCell reads the cell at sec[pos:] of a block with k keys, parameter p
// and range m in section r of 2^b: count, then code, each value in the
// section's range. It returns the cell and the offset after it, or a
// description of what is wrong and where (an offset into sec).
func parseCell(sec []byte, pos int, k int, p uint, m uint64, r uint64, b uint) (cell, int, string, int) {
	n, l := binary.Uvarint(sec[pos:])
	if l <= 0 {
		return cell{}, 0, "cell count", pos
	}
	if n > uint64(k) {
		return cell{}, 0, "cell of more values than the block's keys", pos
	}
	pos += l
	c := cell{n: int32(n), off: int32(pos)}
	if n == 0 {
		return c, pos, "", 0
	}
	start, end := partStart(r, m, b), partStart(r+1, m, b)
	br := bitReader{f: sec[pos:]}
	v := start
	used := uint64(0)
	for range n {
		q, ok1 := br.unary()
		low, ok2 := br.bits(p)
		if !ok1 || !ok2 {
			return cell{}, 0, "cell code ends early", pos
		}
		used += q + 1 + uint64(p)
		if q > end || v+(q<<p|low) >= end {
			return cell{}, 0, "cell value outside its section", pos
		}
		v += q<<p | low
	}
	c.len = int32((used + 7) / 8)
	if int(c.len) > len(sec)-pos {
		return cell{}, 0, "cell code ends early", pos
	}
	if pad := used % 8; pad != 0 && sec[pos+int(c.len)-1]&(1<<(8-pad)-1) != 0 {
		return cell{}, 0, "cell padding not zero", pos + int(c.len) - 1
	}
	return c, pos + int(c.len), "", 0
}

// cellMatch reports whether the n values coded from start with p hold
// want: a 2.1 cell, or a whole 2.0 filter (from 0). A code that ends early
// (a damaged index, which its CRC would have caught) matches.
func cellMatch(code []byte, n int, p uint, start, want uint64) bool {
	r := bitReader{f: code}
	v := start
	for range n {
		q, ok := r.unary()
		if !ok {
			return true
		}
		low, ok := r.bits(p)
		if !ok {
			return true
		}
		v += q<<p | low
		if v >= want {
			return v == want
		}
	}
	return false
}

// sections is a 2.1 index's sections as a File reads them: where each
// lies, and those a lookup has loaded.
type sections struct {
	ord  []int32 // per block: its place among the blocks with a filter, -1 for none
	secs []section
	mu   sync.Mutex // loading
}

// section is one section; data and cells once loaded.
type section struct {
	off    int64 // file offset
	n      int
	crc    uint32
	loaded bool
	data   []byte
	cells  []cell // per block with a filter
	err    error
}

// hasFilter reports whether a block's keys are in the sections.
func hasFilter(b *BlockInfo) bool { return b.Keys > 0 && b.p > 0 }

// readSections reads the 2^b sections' lengths and CRCs from the head; the
// sections lie from file offset start on and take total bytes.
func readSections(s *sliceSource, blocks []BlockInfo, b uint, start, total int64) (*sections, error) {
	p := &sections{ord: make([]int32, len(blocks))}
	nf := int32(0)
	for i := range blocks {
		p.ord[i] = -1
		if hasFilter(&blocks[i]) {
			p.ord[i] = nf
			nf++
		}
	}
	r := 1 << b
	// Each descriptor takes 5 bytes at least: no more sections than that.
	if int64(r)*5 > int64(len(s.b)-s.pos) {
		return nil, errAt(s.offset(), ErrTruncated, "index: %d sections' lengths", r)
	}
	p.secs = make([]section, r)
	off := start
	for i := range p.secs {
		n, err := readUvarint(s, "section length", uint64(total))
		if err != nil {
			return nil, err
		}
		// Each block with a filter has a count (a byte at least) in each.
		if n < uint64(nf) {
			return nil, errAt(s.offset(), ErrFormat, "index: section %d of %d bytes holds fewer than its %d blocks", i, n, nf)
		}
		c, err := s.skip(4)
		if err != nil {
			return nil, errAt(s.offset(), ErrTruncated, "index: section CRC")
		}
		p.secs[i] = section{off: off, n: int(n), crc: binary.LittleEndian.Uint32(c)}
		off += int64(n)
		if off > start+total {
			return nil, errAt(s.offset(), ErrFormat, "index: sections longer than the %d bytes they have", total)
		}
	}
	if off != start+total {
		return nil, errAt(s.offset(), ErrFormat, "index: sections of %d bytes where %d lie", off-start, total)
	}
	return p, nil
}

// section returns section r, reading and checking it the first time.
func (f *File) section(r int) (*section, error) {
	p := f.parts
	p.mu.Lock()
	defer p.mu.Unlock()
	sec := &p.secs[r]
	if sec.loaded {
		return sec, sec.err
	}
	sec.loaded = true
	sec.err = f.loadSection(sec, uint64(r))
	return sec, sec.err
}

func (f *File) loadSection(sec *section, r uint64) error {
	// sec.n is within the index, itself within MaxIndexSize and the file.
	data := make([]byte, sec.n)
	if err := f.readAt(data, sec.off, "index section"); err != nil {
		return err
	}
	if got := crc32c(data); got != sec.crc {
		return errAt(sec.off, ErrChecksum, "index: section %d: CRC-32C %#08x, stored %#08x", r, got, sec.crc)
	}
	cells := make([]cell, 0, len(f.parts.ord))
	pos := 0
	for i := range f.blocks {
		b := &f.blocks[i]
		if !hasFilter(b) {
			continue
		}
		c, next, msg, at := parseCell(data, pos, b.Keys, b.p, filterRange(b.Keys, b.p), r, f.partBits)
		if msg != "" {
			return errAt(sec.off+int64(at), ErrFormat, "index: section %d, block %d: %s", r, i, msg)
		}
		cells = append(cells, c)
		pos = next
	}
	if pos != len(data) {
		return errAt(sec.off+int64(pos), ErrFormat, "index: section %d: %d bytes after its cells", r, len(data)-pos)
	}
	sec.data, sec.cells = data, cells
	return nil
}

// MayHold reports whether block i's filter admits the key hash h (a block
// without a filter admits every key; one without keys, none). With a 2.1
// index the first test in a section reads the section.
func (f *File) MayHold(i int, h uint64) (bool, error) {
	b := &f.blocks[i]
	if f.parts == nil || !hasFilter(b) {
		return filterMatch(b.filter, b.Keys, b.p, h), nil
	}
	m := filterRange(b.Keys, b.p)
	v := filterValue(h, b.Keys, b.p)
	r := partOf(v, m, f.partBits)
	sec, err := f.section(int(r))
	if err != nil {
		return false, err
	}
	c := sec.cells[f.parts.ord[i]]
	return cellMatch(sec.data[c.off:c.off+c.len], int(c.n), b.p, partStart(r, m, f.partBits), v), nil
}

// SectionBytes is how many bytes of the index's sections (2.1) were read so
// far: those the lookups needed.
func (f *File) SectionBytes() int64 {
	if f.parts == nil {
		return 0
	}
	f.parts.mu.Lock()
	defer f.parts.mu.Unlock()
	var n int64
	for _, s := range f.parts.secs {
		if s.loaded {
			n += int64(s.n)
		}
	}
	return n
}
