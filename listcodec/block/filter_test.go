package block

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestFilter: every member matches, and non-members match at about 2^-P.
func TestFilter(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, n := range []int{1, 2, 7, 100, 3000} {
		for _, budget := range []int{1, n / 4, n, 2 * n, 40 * n} {
			var hs []uint64
			for i := range n {
				hs = append(hs, KeyHash(fmt.Appendf(nil, "k%d-%d", n, i)))
			}
			keys := append([]uint64(nil), hs...)
			got, p, f, _ := buildFilter(hs, budget, nil)
			if got != n {
				t.Fatalf("n %d: %d distinct", n, got)
			}
			if len(f) > budget {
				t.Fatalf("n %d budget %d: filter of %d bytes", n, budget, len(f))
			}
			for _, h := range keys {
				if !filterMatch(f, n, p, h) {
					t.Fatalf("n %d p %d: a member does not match", n, p)
				}
			}
			if p == 0 {
				continue
			}
			fp := 0
			const probes = 20000
			for range probes {
				if filterMatch(f, n, p, rng.Uint64()) {
					fp++
				}
			}
			rate := float64(fp) / probes
			if want := 1 / float64(uint64(1)<<p); rate > 2*want+0.002 {
				t.Errorf("n %d p %d: false positives %.5f, expected about %.5f", n, p, rate, want)
			}
		}
	}
}

func BenchmarkFilterMatch(b *testing.B) {
	var hs []uint64
	for i := range 170 {
		hs = append(hs, KeyHash(fmt.Appendf(nil, "k%d", i)))
	}
	n, p, f, _ := buildFilter(hs, 330, nil)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		filterMatch(f, n, p, uint64(i)*0x9e3779b97f4a7c15)
	}
}
