package extsort

import (
	"cmp"
	"encoding/binary"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"
)

var u64 = Codec[uint64]{Size: 8,
	Put: func(b []byte, v uint64) { binary.LittleEndian.PutUint64(b, v) },
	Get: func(b []byte) uint64 { return binary.LittleEndian.Uint64(b) }}

// sortAll sorts vals through a Sorter holding maxBytes in memory.
func sortAll(t *testing.T, vals []uint64, maxBytes int, dir string) ([]uint64, *Sorter[uint64]) {
	t.Helper()
	s := New(u64, cmp.Compare[uint64], maxBytes, dir)
	t.Cleanup(s.Close)
	for _, v := range vals {
		if err := s.Add(v); err != nil {
			t.Fatal(err)
		}
	}
	it, err := s.Sort()
	if err != nil {
		t.Fatal(err)
	}
	var out []uint64
	for {
		v, ok, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			return out, s
		}
		out = append(out, v)
	}
}

// TestSort: in memory, with runs, and with more runs than FanIn (merged
// on the way), the records come back sorted and none is lost; no file is
// left in the folder.
func TestSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, tc := range []struct{ n, maxBytes, minSpilled int }{
		{0, 1 << 10, 0}, {1000, 1 << 20, 0}, {10000, 8 * 500, 9500}, {100000, 8 * 1000, 99000},
	} {
		vals := make([]uint64, tc.n)
		for i := range vals {
			vals[i] = rng.Uint64N(uint64(tc.n/2 + 1)) // duplicates too
		}
		dir := t.TempDir()
		got, s := sortAll(t, vals, tc.maxBytes, dir)
		want := slices.Clone(vals)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("%d records: not sorted or lost (%d back)", tc.n, len(got))
		}
		if s.Spilled < int64(tc.minSpilled) || s.Runs() > FanIn {
			t.Fatalf("%d records: %d spilled in %d runs", tc.n, s.Spilled, s.Runs())
		}
		if left, _ := filepath.Glob(filepath.Join(dir, "*")); len(left) != 0 {
			t.Fatalf("files left: %v", left)
		}
	}
}
