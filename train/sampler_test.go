package train

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"testing"
)

// numbered returns a sample of n bytes whose first 4 bytes hold i.
func numbered(i, n int) []byte {
	b := make([]byte, max(n, 4))
	binary.LittleEndian.PutUint32(b, uint32(i))
	return b
}

func TestSamplerBudget(t *testing.T) {
	tests := []struct {
		name   string
		budget int64
		sizes  func(i int) int
		n      int
	}{
		{"equal sizes", 10_000, func(int) int { return 100 }, 1000},
		{"mixed sizes", 50_000, func(i int) int { return 10 + (i*7919)%3000 }, 2000},
		{"some larger than budget", 5_000, func(i int) int { return []int{100, 6000, 4000, 50}[i%4] }, 400},
		{"budget fits everything", 1 << 20, func(int) int { return 64 }, 500},
		{"zero budget", 0, func(int) int { return 10 }, 50},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewSampler[[]byte](tt.budget, 1)
			var seenBytes int64
			for i := range tt.n {
				b := numbered(i, tt.sizes(i))
				addBytes(s, b)
				seenBytes += int64(len(b))
				if _, kept := s.Kept(); kept > tt.budget {
					t.Fatalf("after %d samples: %d bytes kept, budget %d", i+1, kept, tt.budget)
				}
				clear(b) // the sampler must have copied what it keeps
			}
			n, bytesSeen := s.Seen()
			if n != int64(tt.n) || bytesSeen != seenBytes {
				t.Errorf("Seen() = %d, %d; want %d, %d", n, bytesSeen, tt.n, seenBytes)
			}
			got := s.Samples()
			var total int64
			last := -1
			for _, smp := range got {
				total += int64(len(smp))
				i := int(binary.LittleEndian.Uint32(smp))
				if i <= last {
					t.Fatalf("samples out of arrival order: %d after %d", i, last)
				}
				if len(smp) != max(tt.sizes(i), 4) {
					t.Fatalf("sample %d has %d bytes, want %d (not copied?)", i, len(smp), tt.sizes(i))
				}
				last = i
			}
			if keptN, keptB := s.Kept(); keptN != len(got) || keptB != total {
				t.Errorf("Kept() = %d, %d; Samples() holds %d, %d", keptN, keptB, len(got), total)
			}
			if total > tt.budget {
				t.Errorf("%d bytes kept, budget %d", total, tt.budget)
			}
			if tt.budget >= seenBytes && len(got) != tt.n {
				t.Errorf("budget fits all %d samples but %d kept", tt.n, len(got))
			}
			// A reservoir should stay nearly full once it has overflowed.
			if tt.budget > 0 && tt.budget < seenBytes && total < tt.budget/2 {
				t.Errorf("only %d of %d budget bytes used", total, tt.budget)
			}
		})
	}
}

func TestSamplerDeterministic(t *testing.T) {
	run := func(seed int64) [][]byte {
		s := NewSampler[[]byte](5000, seed)
		for i := range 1000 {
			addBytes(s, numbered(i, 50+i%50))
		}
		return s.Samples()
	}
	a, b, c := run(7), run(7), run(8)
	if !slices.EqualFunc(a, b, bytes.Equal) {
		t.Error("same seed, different samples")
	}
	if slices.EqualFunc(a, c, bytes.Equal) {
		t.Error("different seeds, same samples")
	}
}

// TestSamplerUniform checks each position of the stream is kept about
// equally often.
func TestSamplerUniform(t *testing.T) {
	const (
		n      = 2000
		keep   = 100 // budget in samples
		trials = 400
		groups = 10
	)
	var counts [groups]int
	for seed := range int64(trials) {
		s := NewSampler[[]byte](keep*10, seed)
		for i := range n {
			addBytes(s, numbered(i, 10))
		}
		got := s.Samples()
		if len(got) != keep {
			t.Fatalf("seed %d: kept %d samples, want %d", seed, len(got), keep)
		}
		for _, smp := range got {
			counts[int(binary.LittleEndian.Uint32(smp))*groups/n]++
		}
	}
	// Chi-square with groups-1 = 9 degrees of freedom; 27.9 is p = 0.001.
	want := float64(trials*keep) / groups
	var chi2 float64
	for _, c := range counts {
		chi2 += (float64(c) - want) * (float64(c) - want) / want
	}
	if chi2 > 27.9 {
		t.Errorf("kept counts per tenth of the stream %v: chi² %.1f, not uniform", counts, chi2)
	}
}

func TestHeldOut(t *testing.T) {
	mk := func(n int) [][]byte {
		out := make([][]byte, n)
		for i := range out {
			out[i] = numbered(i, 4)
		}
		return out
	}
	tests := []struct {
		n          int
		frac       float64
		train, val int
	}{
		{0, 0.8, 0, 0},
		{1, 0.8, 1, 0},
		{2, 0.99, 1, 1},
		{2, 0.01, 1, 1},
		{10, 0.8, 8, 2},
		{10, 0.75, 8, 2}, // 7.5 rounds to 8
		{1000, 0.9, 900, 100},
		{10, 1, 10, 0},
		{10, 1.5, 10, 0},
		{10, 0, 0, 10},
		{10, math.NaN(), 10, 0},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%d@%v", tt.n, tt.frac), func(t *testing.T) {
			samples := mk(tt.n)
			tr, ev := HeldOut(samples, tt.frac, 3)
			if len(tr) != tt.train || len(ev) != tt.val {
				t.Fatalf("got %d+%d, want %d+%d", len(tr), len(ev), tt.train, tt.val)
			}
			seen := map[int]bool{}
			for _, part := range [][][]byte{tr, ev} {
				last := -1
				for _, s := range part {
					i := int(binary.LittleEndian.Uint32(s))
					if seen[i] || i <= last {
						t.Fatalf("sample %d repeated or out of order", i)
					}
					seen[i], last = true, i
				}
			}
			tr2, ev2 := HeldOut(samples, tt.frac, 3)
			if !slices.EqualFunc(tr, tr2, bytes.Equal) || !slices.EqualFunc(ev, ev2, bytes.Equal) {
				t.Error("not deterministic")
			}
		})
	}
	// Different seeds choose different held-out samples.
	samples := mk(100)
	_, a := HeldOut(samples, 0.8, 1)
	_, b := HeldOut(samples, 0.8, 2)
	if slices.EqualFunc(a, b, bytes.Equal) {
		t.Error("seeds 1 and 2 held out the same samples")
	}
}

// addBytes offers a byte sample (copied if kept) to a Sampler of byte slices.
func addBytes(s *Sampler[[]byte], sample []byte) {
	s.Add(int64(len(sample)), func() []byte { return slices.Clone(sample) })
}
