package train

import (
	"bytes"
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
