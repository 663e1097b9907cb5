package block

import (
	"encoding/binary"
	"fmt"
	"os"
)

// The Writer holds the blocks' filters until it writes the index, whose
// sections cut every filter (FORMAT.md §2.4). At 1% of the output that is
// 3.4 MB for an 835 MB dump of small keys, but 40 MB for a 10 GB one: past
// spillAt bytes the filters go to a temporary file instead, removed as
// soon as it is created (the open descriptor keeps it; nothing stays
// behind), so that the Writer's memory stays bounded whatever the dump
// holds.

// DefaultSpillAt is the held filters' size past which they go to a
// temporary file (Options.SpillAt).
const DefaultSpillAt = 4 << 20

// heldFilters is the filters held so far, one after another.
type heldFilters struct {
	mem     []byte
	f       *os.File
	n       int64 // bytes held
	spillAt int
	inMem   bool // no temporary file could be had: all in memory
}

// add appends a filter and returns its offset.
func (h *heldFilters) add(p []byte) (int64, error) {
	off := h.n
	if h.f == nil && !h.inMem && len(h.mem)+len(p) > h.spillAt {
		h.spill()
	}
	if h.f != nil {
		if _, err := h.f.Write(p); err != nil {
			return 0, fmt.Errorf("rdbz format 2: hold the index's filters: %w", err)
		}
	} else {
		h.mem = append(h.mem, p...)
	}
	h.n += int64(len(p))
	return off, nil
}

// spill moves the filters to a temporary file. Where none can be made or
// written (no writable temporary directory), they stay in memory, as they
// did before there was a file: compress still works, its memory then grows
// by 1% of its output.
func (h *heldFilters) spill() {
	f, err := os.CreateTemp("", "rdbz-index-*")
	if err != nil {
		h.inMem = true
		return
	}
	os.Remove(f.Name()) // kept open: gone when closed, or when the process ends
	if _, err := f.Write(h.mem); err != nil {
		f.Close()
		h.inMem = true
		return
	}
	h.f, h.mem = f, nil
}

// readAt reads held bytes at off into p (p no longer than what is held
// there).
func (h *heldFilters) readAt(p []byte, off int64) error {
	if h.f == nil {
		copy(p, h.mem[off:])
		return nil
	}
	if _, err := h.f.ReadAt(p, off); err != nil {
		return fmt.Errorf("rdbz format 2: read back the index's filters: %w", err)
	}
	return nil
}

// close drops what is held.
func (h *heldFilters) close() {
	if h.f != nil {
		h.f.Close()
	}
	*h = heldFilters{spillAt: h.spillAt}
}

// filterCursor walks one block's held filter in value order, a section at
// a time: where the next value's code starts (a byte and the bits of it
// already read) and the value before it.
type filterCursor struct {
	off, end int64 // the code's next byte, and its end, in the held filters
	bit      uint  // bits of byte off already read
	n        int   // values left
	p        uint
	v        uint64
}

// cursorChunk is how much of a filter a cursor reads at a time: a cell
// (64 values at P ≤ 24) takes about 200 bytes.
const cursorChunk = 512

// take appends to dst the cell of this block for the section of values
// start (included) to end (excluded): the count, then the values coded
// from start. buf and vs are scratch.
func (c *filterCursor) take(h *heldFilters, dst []byte, start, end uint64, buf *[]byte, vs *[]uint64) ([]byte, error) {
	*vs = (*vs)[:0]
	size := int64(cursorChunk)
	for c.n > 0 {
		k := min(size, c.end-c.off)
		if int64(cap(*buf)) < k {
			*buf = make([]byte, k)
		}
		chunk := (*buf)[:k]
		if err := h.readAt(chunk, c.off); err != nil {
			return dst, err
		}
		r := bitReader{f: chunk}
		r.bits(c.bit)
		done := c.decode(&r, end, vs)
		used := int64(r.pos)*8 - int64(r.avail) // through the last value taken
		c.off += used / 8
		c.bit = uint(used % 8)
		switch {
		case done:
		case k == c.end-c.off+used/8: // the filter ends inside a value: the writer's own, cannot be
			c.n = 0
		case used < 8: // one value longer than the chunk
			size *= 2
			continue
		default:
			size = cursorChunk
			continue
		}
		break
	}
	dst = binary.AppendUvarint(dst, uint64(len(*vs)))
	if len(*vs) == 0 {
		return dst, nil
	}
	return appendCode(dst, *vs, start, c.p), nil
}

// decode reads the values below end from r, appending them to vs and
// leaving r after the last one taken. It reports whether the section's
// values are all taken (a value at or past end, or the filter's last),
// not cut short by the end of r's bytes.
func (c *filterCursor) decode(r *bitReader, end uint64, vs *[]uint64) bool {
	for c.n > 0 {
		save := *r
		q, ok1 := r.unary()
		low, ok2 := r.bits(c.p)
		if !ok1 || !ok2 {
			*r = save
			return false
		}
		v := c.v + (q<<c.p | low)
		if v >= end {
			*r = save
			return true
		}
		*vs = append(*vs, v)
		c.v = v
		c.n--
	}
	return true
}
