package analyze

import "math/bits"

// sizeHistogram counts values in log-linear buckets: 64 sub-buckets per
// power of two, so a percentile read from it is within 1.6% of the true
// value, in fixed memory whatever the number of values.
type sizeHistogram struct {
	counts [64 * 64]int64
	n      int64
	max    int64
}

const histSub = 6 // log2 of the sub-buckets per power of two

func histBucket(v int64) int {
	if v < 1<<histSub {
		return int(v)
	}
	e := bits.Len64(uint64(v)) - 1 - histSub
	return (e+1)<<histSub + int(v>>e) - 1<<histSub
}

// histUpper is the largest value of bucket b.
func histUpper(b int) int64 {
	if b < 1<<histSub {
		return int64(b)
	}
	e := b>>histSub - 1
	m := int64(b&(1<<histSub-1)) + 1<<histSub
	return (m+1)<<e - 1
}

func (h *sizeHistogram) add(v int64) {
	if v < 0 {
		v = 0
	}
	h.counts[histBucket(v)]++
	h.n++
	h.max = max(h.max, v)
}

// Percentiles are node sizes in bytes.
type Percentiles struct {
	P50 int64 `json:"p50"`
	P90 int64 `json:"p90"`
	P99 int64 `json:"p99"`
	Max int64 `json:"max"`
}

// quantile is the upper bound of the bucket holding the q-th value,
// capped at the largest value seen.
func (h *sizeHistogram) quantile(q float64) int64 {
	if h.n == 0 {
		return 0
	}
	rank := int64(q*float64(h.n-1)) + 1
	var seen int64
	for b, c := range h.counts {
		seen += c
		if seen >= rank {
			return min(histUpper(b), h.max)
		}
	}
	return h.max
}

func (h *sizeHistogram) percentiles() Percentiles {
	return Percentiles{P50: h.quantile(0.50), P90: h.quantile(0.90), P99: h.quantile(0.99), Max: h.max}
}

// merge adds the values counted in o.
func (h *sizeHistogram) merge(o *sizeHistogram) {
	for i, c := range o.counts {
		h.counts[i] += c
	}
	h.n += o.n
	h.max = max(h.max, o.max)
}
