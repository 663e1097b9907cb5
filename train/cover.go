package train

import (
	"encoding/binary"
	"slices"
	"sort"
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
	maxZeroScore   = 10 // rounds of empty epochs before giving up, as zstd
	minEpochFactor = 10 // an epoch is at least this many k long, as zstd
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

func (h hasher) at(pos int) uint32 {
	v := binary.LittleEndian.Uint64(h.data[pos:]) << h.shift
	return uint32((v * hashPrime) >> h.out)
}

// countFreqs returns, for every hash value, the number of samples that
// contain a d-mer with that hash (or, with perSample false, the number of
// occurrences, as zstd counts them).
func (c *corpus) countFreqs(d int, f uint, perSample bool) []uint32 {
	freqs := make([]uint32, 1<<f)
	h := newHasher(c, d, f)
	var last []uint32
	if perSample {
		last = make([]uint32, 1<<f)
	}
	start := 0
	for i, end := range c.ends {
		mark := uint32(i + 1)
		for pos := start; pos+d <= end; pos++ {
			x := h.at(pos)
			if perSample {
				if last[x] == mark {
					continue
				}
				last[x] = mark
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
// be reused for several runs with the same f.
type picker struct {
	c        *corpus
	f        uint
	freqs    []uint32 // working copy of the counts, zeroed as d-mers are used
	inWindow []uint32 // how often each hash occurs in the sliding window
	ring     []uint32 // hashes of the positions in the window (invalidHash: none)
}

func newPicker(c *corpus, f uint) *picker {
	return &picker{c: c, f: f, freqs: make([]uint32, 1<<f), inWindow: make([]uint32, 1<<f)}
}

// pickOptions are the knobs of one selection run.
type pickOptions struct {
	k, d     int
	capacity int // bytes of content to select at most
	// sortByScore orders the picked segments by score (best last) instead of
	// by the order in which they were picked (first picked last).
	sortByScore bool
}

type picked struct {
	bytes []byte
	score uint64
	order int
}

// pick runs the selection and returns the content, most valuable bytes last.
func (p *picker) pick(base []uint32, o pickOptions) []byte {
	c := p.c
	k, d := o.k, o.d
	copy(p.freqs, base)
	h := newHasher(c, d, p.f)
	nbDmers := c.size - d + 1
	if nbDmers <= 0 || o.capacity <= 0 {
		return nil
	}
	dmersInK := max(k-d+1, 1)
	if cap(p.ring) < dmersInK+1 {
		p.ring = make([]uint32, dmersInK+1)
	}
	p.ring = p.ring[:dmersInK+1]

	// Epochs, as zstd's COVER_computeEpochs: one segment per epoch per round.
	numEpochs := max(1, o.capacity/k)
	epochSize := nbDmers / numEpochs
	if epochSize < minEpochFactor*k {
		epochSize = min(minEpochFactor*k, nbDmers)
		numEpochs = max(1, nbDmers/epochSize)
	}

	var segs []picked
	remaining := o.capacity
	zeroRun := 0
	for epoch := 0; remaining > 0; epoch = (epoch + 1) % numEpochs {
		begin := epoch * epochSize
		end := min(begin+epochSize, nbDmers)
		if epoch == numEpochs-1 {
			end = nbDmers // the last epoch takes the remainder
		}
		seg := p.bestSegment(h, begin, end, dmersInK, d)
		if seg.score == 0 {
			zeroRun++
			if zeroRun >= maxZeroScore {
				break
			}
			continue
		}
		zeroRun = 0
		n := min(seg.end-seg.begin+d-1, remaining)
		if n < d {
			break
		}
		segs = append(segs, picked{bytes: c.data[seg.begin : seg.begin+n], score: seg.score, order: len(segs)})
		remaining -= n
	}
	if o.sortByScore {
		sort.SliceStable(segs, func(i, j int) bool { return segs[i].score > segs[j].score })
	}
	// segs[0] is the most valuable: it goes last.
	out := make([]byte, 0, o.capacity-remaining)
	for _, s := range slices.Backward(segs) {
		out = append(out, s.bytes...)
	}
	return out
}

// valid reports whether a whole d-mer starts at pos inside one sample. It
// advances *si, the index of the sample holding pos, which must only move
// forward.
func (c *corpus) valid(pos, d int, si *int) bool {
	for c.ends[*si] <= pos {
		*si++
	}
	return pos+d <= c.ends[*si]
}

// bestSegment slides a window of dmersInK d-mer positions over [begin, end)
// and returns the window whose distinct hashes have the largest total count,
// trimmed of unused d-mers at both ends. The counts of the returned window's
// d-mers are then zeroed.
func (p *picker) bestSegment(h hasher, begin, end, dmersInK, d int) segment {
	c := p.c
	ring := p.ring
	rn := len(ring)
	si := sort.SearchInts(c.ends, begin+1)
	best := segment{begin: begin, end: begin}
	var score uint64
	wb := begin // window is [wb, we)
	for we := begin; we < end; {
		x := invalidHash
		if c.valid(we, d, &si) {
			x = h.at(we)
			if p.inWindow[x] == 0 {
				score += uint64(p.freqs[x])
			}
			p.inWindow[x]++
		}
		ring[we%rn] = x
		we++
		if we-wb > dmersInK {
			if y := ring[wb%rn]; y != invalidHash {
				p.inWindow[y]--
				if p.inWindow[y] == 0 {
					score -= uint64(p.freqs[y])
				}
			}
			wb++
		}
		if score > best.score {
			best = segment{begin: wb, end: we, score: score}
		}
	}
	// Empty the window counters for the next call.
	for ; wb < end; wb++ {
		if y := ring[wb%rn]; y != invalidHash {
			p.inWindow[y]--
		}
	}
	if best.score == 0 {
		return best
	}
	// Trim positions whose d-mers add nothing (used, or spanning samples).
	si = sort.SearchInts(c.ends, best.begin+1)
	for best.begin < best.end {
		if c.valid(best.begin, d, &si) && p.freqs[h.at(best.begin)] != 0 {
			break
		}
		best.begin++
	}
	for best.end > best.begin {
		s2 := sort.SearchInts(c.ends, best.end)
		if c.valid(best.end-1, d, &s2) && p.freqs[h.at(best.end-1)] != 0 {
			break
		}
		best.end--
	}
	si = sort.SearchInts(c.ends, best.begin+1)
	for pos := best.begin; pos < best.end; pos++ {
		if c.valid(pos, d, &si) {
			p.freqs[h.at(pos)] = 0
		}
	}
	return best
}
