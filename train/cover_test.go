package train

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestDenseHashesPickTheSame: renumbering a small corpus's hashes (dense)
// changes nothing the picker selects, for either counting mode, and its
// tables shrink to the distinct hashes.
func TestDenseHashesPickTheSame(t *testing.T) {
	var samples [][]byte
	for n, s := 0, jsonEvents(3, 48<<10); n < 48<<10; n += len(s[0]) {
		samples, s = append(samples, s[0]), s[1:]
	}
	c := newCorpus(samples)
	for _, d := range []int{6, 8} {
		raw, dense := c.hashes(d, hashLog, make([]uint32, c.size)), c.hashAll(d, hashLog, make([]uint32, c.size))
		if n := tableSize(dense, hashLog); n >= 1<<hashLog/denseFactor || n < 100 {
			t.Fatalf("d=%d: a dense table of %d entries for %d positions", d, n, len(dense))
		}
		for _, perSample := range []bool{false, true} {
			for _, k := range []int{64, 512} {
				o := pickOptions{k: k, d: d, capacity: 4 << 10}
				want := newPicker(c).pick(raw, c.countFreqs(raw, hashLog, perSample), o)
				got := newPicker(c).pick(dense, c.countFreqs(dense, hashLog, perSample), o)
				if len(want) == 0 || !bytes.Equal(got, want) {
					t.Errorf("d=%d k=%d perSample=%v: dense picks %d bytes, direct %d, or others", d, k, perSample, len(got), len(want))
				}
			}
		}
	}
}

// TestBestSegmentAsSpecified checks the sliding window against its
// definition, computed the slow way: of every window of up to dmersInK
// positions ending in [begin, end), the first whose distinct hashes have the
// largest total count; trimmed of positions that add nothing; its hashes'
// counts then zeroed. Several picks run in turn on one table, so that what
// one pick zeroes (and the window counts it must leave at zero) carries
// into the next.
func TestBestSegmentAsSpecified(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 300 {
		n, distinct := 1+rng.IntN(400), 1+rng.IntN(60)
		hs := make([]uint32, n)
		for i := range hs {
			hs[i] = uint32(rng.IntN(distinct))
			if rng.IntN(12) == 0 {
				hs[i] = invalidHash
			}
		}
		freq := make([]uint32, distinct)
		p := &picker{table: make([]uint32, distinct)}
		for x := range freq {
			freq[x] = uint32(rng.IntN(5))
			p.table[x] = freq[x] << 16
		}
		for range 4 {
			begin := rng.IntN(n)
			end := begin + rng.IntN(n-begin+1)
			k := 1 + rng.IntN(40)
			got := p.bestSegment(hs, begin, end, k)
			want := slowBestSegment(hs, freq, begin, end, k)
			if got != want {
				t.Fatalf("trial %d: [%d, %d) k=%d: got %+v, want %+v", trial, begin, end, k, got, want)
			}
			for x, e := range p.table {
				if e != freq[x]<<16 {
					t.Fatalf("trial %d: after the pick, table[%d] = %#x, want %#x", trial, x, e, freq[x]<<16)
				}
			}
		}
	}
}

// slowBestSegment is bestSegment by its definition, zeroing freq as it
// does the table.
func slowBestSegment(hs, freq []uint32, begin, end, k int) segment {
	best := segment{begin: begin, end: begin}
	for we := begin; we < end; we++ {
		wb := max(begin, we+1-k)
		seen := map[uint32]bool{}
		var score uint64
		for _, x := range hs[wb : we+1] {
			if x != invalidHash && !seen[x] {
				seen[x] = true
				score += uint64(freq[x])
			}
		}
		if score > best.score {
			best = segment{begin: wb, end: we + 1, score: score}
		}
	}
	if best.score == 0 {
		return best
	}
	best = trimmed(best, func(pos int) bool { return hs[pos] != invalidHash && freq[hs[pos]] != 0 })
	for _, x := range hs[best.begin:best.end] {
		if x != invalidHash {
			freq[x] = 0
		}
	}
	return best
}

// TestSlideSameAsGo: slide (assembly on amd64) returns what slideGo does
// and leaves the table as it does, on windows of every length around the
// distance it fetches ahead, with invalid hashes among them.
func TestSlideSameAsGo(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 2000 {
		n, distinct := rng.IntN(70), 1+rng.IntN(50)
		enter, leave := make([]uint32, n), make([]uint32, n)
		for i := range n {
			enter[i], leave[i] = uint32(rng.IntN(distinct)), uint32(rng.IntN(distinct))
			if rng.IntN(8) == 0 {
				enter[i] = invalidHash
			}
			if rng.IntN(8) == 0 {
				leave[i] = invalidHash
			}
		}
		table := make([]uint32, distinct)
		for x := range table {
			// Counts in the high half; window counts high enough that
			// leaving never takes one below zero.
			table[x] = uint32(rng.IntN(4))<<16 | uint32(n+rng.IntN(2))
		}
		want := slices.Clone(table)
		score, best := uint64(rng.IntN(20)), uint64(rng.IntN(20))
		gotTop, gotAt := slide(table, enter, leave, score, best)
		wantTop, wantAt := slideGo(want, enter, leave, score, best)
		if gotTop != wantTop || gotAt != wantAt || !slices.Equal(table, want) {
			t.Fatalf("trial %d (n=%d): slide (%d, %d), slideGo (%d, %d), tables equal %v",
				trial, n, gotTop, gotAt, wantTop, wantAt, slices.Equal(table, want))
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("a hash outside the table did not panic")
		}
	}()
	slide(make([]uint32, 4), []uint32{1, 7}, []uint32{1, 1}, 0, 0)
}
