package train

import (
	"runtime"

	"github.com/klauspost/compress/zstd"
)

// crew is the working memory of one build, made once and reused by every
// round of the search and by the final selection: a picker and an encoder
// per worker, and the arrays of d-mer hashes. Each is costly to make fresh
// — an encoder allocates 2-3 MiB, a picker's table is 1 MiB, the hashes 4
// bytes per sample byte — and fresh memory costs a page fault per 4 KiB
// (11-14 µs on the 2-core machine of docs/performance.md): made per round,
// they were 127 MB of allocations and 13,000 faults for a 2 MB sample.
type crew struct {
	level   zstd.EncoderLevel
	members []*member
	// positions is the size of the largest corpus of the build (all its
	// samples): every hash array is made that large, so that a spare fits
	// any corpus, and only what a corpus uses of it is ever touched.
	// (Arrays of the corpus's own size, the search's small ones dropped
	// for larger ones later, held 12 MiB more at the peak of train on
	// app-cache x4: 54 MiB against 42, huge pages off.)
	positions int
	spare     [][]uint32 // hash arrays no arena holds
}

// member is one worker's picker and encoder.
type member struct {
	pk  *picker
	cd  *coder
	err error // the encoder could not be made
}

// newCrew returns the crew of a build on positions sample bytes.
func newCrew(level zstd.EncoderLevel, workers, positions int) *crew {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	return &crew{level: level, members: make([]*member, workers), positions: positions}
}

// member returns worker i's picker and encoder, made on first use.
func (w *crew) member(i int) *member {
	if w.members[i] == nil {
		cd, err := newCoder(w.level)
		w.members[i] = &member{pk: &picker{}, cd: cd, err: err}
	}
	return w.members[i]
}

// hashes returns an array for the hashes of a corpus of n positions, a
// spare one if there is one.
func (w *crew) hashes(n int) []uint32 {
	if k := len(w.spare); k > 0 && cap(w.spare[k-1]) >= n {
		hs := w.spare[k-1]
		w.spare = w.spare[:k-1]
		return hs[:n]
	}
	return make([]uint32, n, max(n, w.positions))
}

// release takes back hash arrays for reuse.
func (w *crew) release(hs ...[]uint32) {
	w.spare = append(w.spare, hs...)
}

// close releases the encoders.
func (w *crew) close() {
	for _, m := range w.members {
		if m != nil && m.err == nil {
			m.cd.close()
		}
	}
}
