package train

import (
	"encoding/binary"
	"runtime"
	"slices"
	"sync"
)

// This file holds the content picker: a FastCover-style selection of the
// dictionary content (Liao, Petri, Moffat, Wirth, "Effective construction of
// relative Lempel-Ziv dictionaries", and zstd's lib/dictBuilder/fastcover.c).
//
// The training samples are laid end to end. Every position where a whole
// d-byte string (a d-mer) fits inside its sample is hashed into a table of
// 2^f counters, which count how many samples contain the d-mer. The
// concatenation is cut into epochs; each round visits every epoch and takes
// from it the k-byte window whose distinct d-mers have the largest total
// count, then zeroes the counts of the d-mers it took so that later picks
// cover new material. Picks are placed from the back of the dictionary to the
// front, so the most valuable content ends up closest to the data, where
// offsets are small and the encoder's hash tables remember it best.

const (
	hashPrime      = 0xCF1BBCDCB7A56463 // multiplier of zstd's 8-byte hash
	invalidHash    = ^uint32(0)
	minEpochFactor = 10 // an epoch is at least this many k long, as zstd
	maxZeroRun     = 10 // epochs in a row without content before giving up, as zstd
)

// corpus is the training data laid out for d-mer hashing.
type corpus struct {
	data []byte // samples back to back, then 8 zero bytes so 8-byte loads never overrun
	ends []int  // ends[i] is the end offset of sample i in data
	size int    // total sample bytes
}

func newCorpus(samples [][]byte) *corpus {
	total := 0
	for _, s := range samples {
		total += len(s)
	}
	c := &corpus{data: make([]byte, 0, total+8), ends: make([]int, 0, len(samples)), size: total}
	for _, s := range samples {
		c.data = append(c.data, s...)
		c.ends = append(c.ends, len(c.data))
	}
	c.data = append(c.data, make([]byte, 8)...)
	return c
}

// hasher hashes the d-mers of a corpus into f bits.
type hasher struct {
	data  []byte
	shift uint // 64 - 8*d: keeps the d low bytes of a little-endian load
	out   uint // 64 - f
}

func newHasher(c *corpus, d int, f uint) hasher {
	return hasher{data: c.data, shift: uint(64 - 8*d), out: 64 - f}
}

// fill sets out[i] to the hash at position from+i.
func (h hasher) fill(out []uint32, from int) {
	data := h.data[from:]
	data = data[:len(out)+7] // every 8-byte load below is in range
	for i := range out {
		v := binary.LittleEndian.Uint64(data[i:]) << h.shift
		out[i] = uint32((v * hashPrime) >> h.out)
	}
}

// hashAll fills hs (c.size long) with the hash of the d-mer starting at
// every position of the corpus, or invalidHash where no whole d-mer fits in
// the sample, and returns it: computed once per d and shared by every
// candidate with that d (hashing at each visit measured 30% of the picker's
// time). The hashes of a small corpus are renumbered (dense).
func (c *corpus) hashAll(d int, f uint, hs []uint32) []uint32 {
	c.hashes(d, f, hs)
	if isDense(hs, f) {
		dense(hs)
	}
	return hs
}

// hashes is hashAll without the renumbering.
func (c *corpus) hashes(d int, f uint, hs []uint32) []uint32 {
	hs = hs[:c.size]
	h := newHasher(c, d, f)
	c.inParts(func(first, last int) {
		start := c.start(first)
		for _, end := range c.ends[first:last] {
			out := hs[start:end]
			whole := max(len(out)-d+1, 0) // positions where a whole d-mer fits
			h.fill(out[:whole], start)
			for i := range out[whole:] {
				out[whole+i] = invalidHash
			}
			start = end
		}
	})
	return hs
}

// minPart is the fewest sample bytes worth a goroutine of their own when
// hashing and counting (a 1.6 MB corpus takes ~15 ms to hash).
const minPart = 256 << 10

// inParts calls fn for runs of samples [first, last) that together cover
// the corpus, in parallel: as many runs of about equal bytes as there are
// CPUs (one for a small corpus). It returns when every call has.
func (c *corpus) inParts(fn func(first, last int)) {
	parts := min(runtime.GOMAXPROCS(0), c.size/minPart, len(c.ends))
	if parts <= 1 {
		fn(0, len(c.ends))
		return
	}
	var wg sync.WaitGroup
	first := 0
	for p := 1; p <= parts; p++ {
		last := len(c.ends)
		if p < parts {
			last, _ = slices.BinarySearch(c.ends, c.size*p/parts)
			last = max(last, first)
		}
		from := first
		wg.Go(func() { fn(from, last) })
		first = last
	}
	wg.Wait()
}

// start is the offset of sample i in c.data.
func (c *corpus) start(i int) int {
	if i == 0 {
		return 0
	}
	return c.ends[i-1]
}

// denseFactor: a corpus of at most 2^f/denseFactor positions has its
// hashes renumbered, so that its tables hold one entry per distinct hash
// instead of 2^f (1 MiB each at f = 18: clearing and faulting in a few of
// them was most of the time training took on a dump of a few KiB).
const denseFactor = 2

// isDense reports whether the hashes hs of a corpus are renumbered.
func isDense(hs []uint32, f uint) bool { return len(hs) <= 1<<f/denseFactor }

// dense renumbers the valid hashes in hs 0, 1, 2, ... in order of first
// appearance. Hashes are only ever table indexes, so the picks are the
// same; tableSize(hs) is then the number of distinct hashes.
func dense(hs []uint32) {
	ids := make(map[uint32]uint32, len(hs)/4)
	for i, x := range hs {
		if x == invalidHash {
			continue
		}
		id, ok := ids[x]
		if !ok {
			id = uint32(len(ids))
			ids[x] = id
		}
		hs[i] = id
	}
}

// tableSize is the size of a table indexed by the hashes in hs: 2^f, or
// one past the largest hash of a dense corpus.
func tableSize(hs []uint32, f uint) int {
	if !isDense(hs, f) {
		return 1 << f
	}
	n := 0
	for _, x := range hs {
		if x != invalidHash {
			n = max(n, int(x)+1)
		}
	}
	return n
}

// countFreqs returns, for every hash value, the number of samples that
// contain a d-mer with that hash (or, with perSample false, the number of
// occurrences, as zstd counts them), in the high half of a picker table
// entry (see picker.table), saturating at 0xFFFF. hs is hashAll's.
func (c *corpus) countFreqs(hs []uint32, f uint, perSample bool) []uint32 {
	size := tableSize(hs, f)
	var mu sync.Mutex
	var counts [][]uint32
	c.inParts(func(first, last int) {
		n := countRun(hs, c.ends, first, last, c.start(first), size, perSample)
		mu.Lock()
		counts = append(counts, n)
		mu.Unlock()
	})
	freqs := counts[0]
	for _, n := range counts[1:] {
		for i, x := range n {
			freqs[i] += x
		}
	}
	for i, n := range freqs {
		freqs[i] = min(n, freqMax) << 16
	}
	return freqs
}

// countRun counts, into a new table of size entries, the d-mers of samples
// first to last (excluded) as countFreqs does, start being where sample
// first begins; the counts are not yet saturated.
func countRun(hs []uint32, ends []int, first, last, start, size int, perSample bool) []uint32 {
	freqs := make([]uint32, size)
	var seen []uint32
	if perSample {
		seen = make([]uint32, size)
	}
	for i := first; i < last; i++ {
		end := ends[i]
		mark := uint32(i + 1)
		for _, x := range hs[start:end] {
			if x == invalidHash {
				continue
			}
			if perSample {
				if seen[x] == mark {
					continue
				}
				seen[x] = mark
			}
			freqs[x]++
		}
		start = end
	}
	return freqs
}

// segment is a run of d-mer start positions [begin, end) and its score.
type segment struct {
	begin, end int
	score      uint64
}

// picker selects content for one (k, d) pair. It owns scratch memory and may
// be reused for several runs.
type picker struct {
	c *corpus
	// table holds, for each hash, the d-mer count in its high 16 bits (a
	// working copy, zeroed as d-mers are used) and how often the hash occurs
	// in the sliding window in its low 16 bits (k < 2^16): one memory access
	// serves both, which matters as the accesses are random.
	table []uint32
}

const (
	freqMax    = 0xFFFF
	windowMask = 0xFFFF
)

func newPicker(c *corpus) *picker {
	return &picker{c: c}
}

// pickOptions are the knobs of one selection run.
type pickOptions struct {
	k, d     int
	capacity int // bytes of content to select at most
}

// pick runs the selection and returns the content, most valuable bytes
// last. hs is hashAll's for o.d, base countFreqs' (whose length is the
// table's).
func (p *picker) pick(hs, base []uint32, o pickOptions) []byte {
	c := p.c
	k, d := o.k, o.d
	if cap(p.table) < len(base) {
		p.table = make([]uint32, len(base))
	}
	p.table = p.table[:len(base)]
	copy(p.table, base)
	nbDmers := c.size - d + 1
	if nbDmers <= 0 || o.capacity <= 0 {
		return nil
	}
	dmersInK := max(k-d+1, 1)

	// Epochs, as zstd's COVER_computeEpochs: one segment per epoch per round.
	numEpochs := max(1, o.capacity/k)
	epochSize := nbDmers / numEpochs
	if epochSize < minEpochFactor*k {
		epochSize = min(minEpochFactor*k, nbDmers)
		numEpochs = max(1, nbDmers/epochSize)
	}

	var segs [][]byte // in the order picked
	remaining := o.capacity
	zeroRun := 0
	for epoch := 0; remaining > 0; epoch = (epoch + 1) % numEpochs {
		begin := epoch * epochSize
		end := min(begin+epochSize, nbDmers)
		if epoch == numEpochs-1 {
			end = nbDmers // the last epoch takes the remainder
		}
		seg := p.bestSegment(hs, begin, end, dmersInK)
		if seg.score == 0 {
			// Other epochs may still have content, but not for long.
			if zeroRun++; zeroRun >= maxZeroRun {
				break
			}
			continue
		}
		zeroRun = 0
		n := min(seg.end-seg.begin+d-1, remaining)
		if n < d {
			break
		}
		segs = append(segs, c.data[seg.begin:seg.begin+n])
		remaining -= n
	}
	// The first picked is the most valuable: it goes last.
	out := make([]byte, 0, o.capacity-remaining)
	for _, s := range slices.Backward(segs) {
		out = append(out, s...)
	}
	return out
}

// firstIn is all ones when table entry e counts no position in the
// window (its low 16 bits are 0), else 0.
func firstIn(e uint32) uint64 {
	return -uint64((e&windowMask - 1) >> 31)
}

// bestSegment slides a window of dmersInK d-mer positions over [begin, end)
// and returns the window whose distinct hashes have the largest total count,
// trimmed of unused d-mers at both ends. The counts of the returned window's
// d-mers are then zeroed.
func (p *picker) bestSegment(hs []uint32, begin, end, dmersInK int) segment {
	table := p.table
	best := segment{begin: begin, end: begin}
	var score uint64
	win := hs[begin:end]
	fill := min(dmersInK, len(win))
	// A hash's count scores when it enters an empty window slot and stops
	// when it leaves the last: added and taken without a branch (firstIn),
	// which guessed wrong on most d-mers. The window fills, then slides:
	// one d-mer enters and the oldest leaves (two loops, so that the
	// sliding one tests nothing but the hashes).
	for i, x := range win[:fill] {
		if x != invalidHash {
			e := table[x]
			score += uint64(e>>16) & firstIn(e)
			table[x] = e + 1
		}
		if score > best.score {
			best = segment{begin: begin, end: begin + i + 1, score: score}
		}
	}
	if top, at := slide(table, win[fill:], win[:len(win)-fill], score, best.score); at >= 0 {
		best = segment{begin: begin + at + 1, end: begin + fill + at + 1, score: top}
	}
	wb := begin + len(win) - fill // the window is [wb, end)
	// Empty the window counters for the next call.
	for _, y := range hs[wb:end] {
		if y != invalidHash {
			table[y]--
		}
	}
	if best.score == 0 {
		return best
	}
	// Trim positions whose d-mers add nothing (used, or spanning samples).
	best = trimmed(best, func(pos int) bool { return hs[pos] != invalidHash && table[hs[pos]]>>16 != 0 })
	// The d-mers taken score nothing from now on.
	for _, x := range hs[best.begin:best.end] {
		if x != invalidHash {
			table[x] &= windowMask
		}
	}
	return best
}

// slideGo moves a full window one d-mer at a time: enter[i] enters as
// leave[i] leaves. It returns the best score over best that a step reaches
// and the first step reaching it, or -1 if none passes best. Every valid
// hash is below len(table). (slide is it, or its assembly on amd64.)
func slideGo(table, enter, leave []uint32, score, best uint64) (uint64, int) {
	at := -1
	leave = leave[:len(enter)]
	for i, x := range enter {
		if x != invalidHash {
			e := table[x]
			score += uint64(e>>16) & firstIn(e)
			table[x] = e + 1
		}
		if y := leave[i]; y != invalidHash {
			e := table[y] - 1
			table[y] = e
			score -= uint64(e>>16) & firstIn(e)
		}
		if score > best {
			best, at = score, i
		}
	}
	return best, at
}

// trimmed returns seg without the positions at either end that are not
// useful.
func trimmed(seg segment, useful func(pos int) bool) segment {
	for seg.begin < seg.end && !useful(seg.begin) {
		seg.begin++
	}
	for seg.end > seg.begin && !useful(seg.end-1) {
		seg.end--
	}
	return seg
}
