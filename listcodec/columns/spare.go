package columns

// spares are stream buffers a Splitter is done with — those a stream grew
// out of, those a recycled Segment let go (Segment.Reset's trim), the
// sorter's scratch — kept for the next stream that must grow. Dropped, they were garbage in
// varied sizes: on a dump of source files the streams of its roles by key
// prefix grew and were trimmed again segment after segment (136 MB
// allocated while compressing a 59 MB file), and each large allocation
// went to pages the runtime had given back to the OS under rdbz's memory
// limit, faulted in again at ~14 µs a page on the 2-core VM.
type spares struct {
	bufs  [][]byte
	held  int  // bytes of capacity in bufs
	taken bool // a spare was taken since the last age
}

const (
	spareMax = 4 << 20  // bytes of capacity kept at most
	spareMin = 64 << 10 // smaller buffers are left to the collector
)

// take returns an empty buffer of at least n bytes: the smallest spare
// that holds n and is not much larger, else a new one.
func (p *spares) take(n int) []byte {
	best := -1
	for i, b := range p.bufs {
		if c := cap(b); c >= n && c <= 4*n && (best < 0 || c < cap(p.bufs[best])) {
			best = i
		}
	}
	if best < 0 {
		return make([]byte, 0, n)
	}
	b := p.bufs[best]
	p.taken = true
	last := len(p.bufs) - 1
	p.bufs[best], p.bufs[last] = p.bufs[last], nil
	p.bufs = p.bufs[:last]
	p.held -= cap(b)
	return b[:0]
}

// grow returns b with room for n more bytes: b itself, or its bytes in a
// larger buffer taken from the spares (grownCap), b going there.
func (p *spares) grow(b []byte, n int) []byte {
	if cap(b)-len(b) >= n {
		return b
	}
	nb := append(p.take(grownCap(b, n)), b...)
	p.put(b)
	return nb
}

// put keeps b for a later take, if it is worth keeping: the spares keep
// the largest buffers within spareMax.
func (p *spares) put(b []byte) {
	if cap(b) < spareMin || cap(b) > spareMax {
		return
	}
	for p.held+cap(b) > spareMax {
		small := 0
		for i, s := range p.bufs {
			if cap(s) < cap(p.bufs[small]) {
				small = i
			}
		}
		if cap(p.bufs[small]) >= cap(b) {
			return
		}
		p.held -= cap(p.bufs[small])
		last := len(p.bufs) - 1
		p.bufs[small], p.bufs[last] = p.bufs[last], nil
		p.bufs = p.bufs[:last]
	}
	p.bufs = append(p.bufs, b[:0])
	p.held += cap(b)
}

// age drops the spares when none was taken since the last age (a
// Splitter ages them at each segment's start): where streams keep their
// sizes, the spares only held live memory, which made the collector run
// more often (compress of a mixed 8 MB dump 7% slower).
func (p *spares) age() {
	if !p.taken {
		clear(p.bufs)
		p.bufs, p.held = p.bufs[:0], 0
	}
	p.taken = false
}
