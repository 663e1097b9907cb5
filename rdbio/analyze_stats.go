package rdbio

import (
	"bytes"
	"container/heap"
	"math/bits"
	"slices"
	"sort"
	"strconv"
	"unicode/utf8"
)

// KeyInfo describes one key in the rankings of an Analysis.
type KeyInfo struct {
	DB  uint64 `json:"db"`
	Key string `json:"key"`
	// KeyQuoted says Key is written as a Go-quoted string because the key's
	// bytes are not valid UTF-8.
	KeyQuoted bool   `json:"key_quoted,omitempty"`
	Type      string `json:"type"`
	Family    string `json:"family"`
	Bytes     int64  `json:"bytes"`    // serialized: type byte, key and value as stored
	Elements  int64  `json:"elements"` // as ElementsKnown says; strings: the value length
	// ElementsKnown is false when the count could not be told cheaply.
	ElementsKnown bool  `json:"elements_known"`
	Expire        int64 `json:"expire_ms"` // absolute Unix ms; -1 none
	// Ties counts keys of the same family and the same size as this one
	// (Biggest only): when above 1, another key could as well be named.
	Ties int64 `json:"ties,omitempty"`
}

// keyString renders a key for JSON and text: as is when valid UTF-8.
func keyString(k []byte) (string, bool) {
	if utf8.Valid(k) {
		return string(k), false
	}
	return strconv.Quote(string(k)), true
}

// topKeys keeps the n largest keys by a measure (a min-heap).
type topKeys struct {
	n     int
	items []KeyInfo
	by    func(*KeyInfo) int64
}

func (t *topKeys) Len() int { return len(t.items) }
func (t *topKeys) Less(i, j int) bool {
	return t.by(&t.items[i]) < t.by(&t.items[j])
}
func (t *topKeys) Swap(i, j int) { t.items[i], t.items[j] = t.items[j], t.items[i] }
func (t *topKeys) Push(x any)    { t.items = append(t.items, x.(KeyInfo)) }
func (t *topKeys) Pop() any {
	it := t.items[len(t.items)-1]
	t.items = t.items[:len(t.items)-1]
	return it
}

// wants reports whether a key measuring v would enter the ranking (so that
// the key is rendered only then).
func (t *topKeys) wants(v int64) bool {
	return t.n > 0 && (len(t.items) < t.n || v > t.by(&t.items[0]))
}

func (t *topKeys) add(k KeyInfo) {
	if len(t.items) < t.n {
		heap.Push(t, k)
		return
	}
	t.items[0] = k
	heap.Fix(t, 0)
}

// sorted returns the kept keys, largest first (ties in file order).
func (t *topKeys) sorted() []KeyInfo {
	out := append([]KeyInfo{}, t.items...)
	sort.SliceStable(out, func(i, j int) bool { return t.by(&out[i]) > t.by(&out[j]) })
	return out
}

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

// PrefixInfo is one key prefix and what its keys hold.
type PrefixInfo struct {
	Prefix string `json:"prefix"`
	Quoted bool   `json:"prefix_quoted,omitempty"`
	Keys   int64  `json:"keys"`
	Bytes  int64  `json:"bytes"`
	// Error bounds the over-count of Bytes and Keys' bytes (Space-Saving):
	// the prefix's true bytes lie in [Bytes-Error, Bytes]; 0 when it was
	// tracked from its first key on.
	Error int64 `json:"error"`
}

// prefixCounter finds the key prefixes holding the most bytes in bounded
// memory, in the manner of Space-Saving (Metwally et al.) with evictions
// in batches: it counts exactly until it tracks 2×max prefixes, then keeps
// the max largest; a prefix met afterwards starts from the largest count
// dropped so far (its error bound), so a count never understates a
// prefix's bytes and overstates them by at most its error. With at most
// 2×max distinct prefixes the counts are exact.
type prefixCounter struct {
	max     int
	seps    string
	index   map[string]int32 // prefix -> position in entries
	entries []prefixEntry
	floor   int64 // the largest count dropped
	evicted bool
	counts  []int64 // scratch for prune
}

type prefixEntry struct {
	prefix      string
	keys, bytes int64
	err         int64
}

// maxPrefixLen cuts long prefixes (a key without a separator is its own
// prefix) so that memory stays bounded.
const maxPrefixLen = 256

func newPrefixCounter(max int, seps string) *prefixCounter {
	return &prefixCounter{max: max, seps: seps, index: map[string]int32{}}
}

// prefixOf is the key up to its first separator byte (all of it when it
// has none), cut at maxPrefixLen.
func (p *prefixCounter) prefixOf(key []byte) []byte {
	if p.seps != "" {
		if i := bytes.IndexAny(key, p.seps); i >= 0 {
			key = key[:i]
		}
	}
	return key[:min(len(key), maxPrefixLen)]
}

func (p *prefixCounter) add(key []byte, n int64) {
	pre := p.prefixOf(key)
	if i, ok := p.index[string(pre)]; ok {
		e := &p.entries[i]
		e.keys++
		e.bytes += n
		return
	}
	e := prefixEntry{prefix: string(pre), keys: 1, bytes: p.floor + n, err: p.floor}
	p.index[e.prefix] = int32(len(p.entries))
	p.entries = append(p.entries, e)
	if len(p.entries) > 2*p.max {
		p.prune()
	}
}

// prune keeps the max largest prefixes (ties broken by arrival).
func (p *prefixCounter) prune() {
	p.evicted = true
	p.counts = p.counts[:0]
	for _, e := range p.entries {
		p.counts = append(p.counts, e.bytes)
	}
	slices.Sort(p.counts)
	threshold := p.counts[len(p.counts)-p.max]
	above := 0 // entries strictly above the threshold are all kept
	for _, c := range p.counts {
		if c > threshold {
			above++
		}
	}
	atThreshold := p.max - above
	kept := p.entries[:0]
	clear(p.index)
	for _, e := range p.entries {
		keep := e.bytes > threshold
		if e.bytes == threshold && atThreshold > 0 {
			keep = true
			atThreshold--
		}
		if !keep {
			p.floor = max(p.floor, e.bytes)
			continue
		}
		p.index[e.prefix] = int32(len(kept))
		kept = append(kept, e)
	}
	clear(p.entries[len(kept):])
	p.entries = kept
}

// top lists the n largest prefixes, most bytes first.
func (p *prefixCounter) top(n int) []PrefixInfo {
	all := slices.Clone(p.entries)
	sort.SliceStable(all, func(i, j int) bool { return all[i].bytes > all[j].bytes })
	out := []PrefixInfo{}
	for _, e := range all[:min(n, len(all))] {
		s, q := keyString([]byte(e.prefix))
		out = append(out, PrefixInfo{Prefix: s, Quoted: q, Keys: e.keys, Bytes: e.bytes, Error: e.err})
	}
	return out
}

// TTL buckets, relative to the file's ctime.
var ttlBucketNames = []string{"none", "expired", "<1h", "<1d", "<7d", ">=7d"}

func ttlBucket(expire, ref int64) int {
	const hour = 3600 * 1000
	switch left := expire - ref; {
	case expire == -1:
		return 0
	case left <= 0:
		return 1
	case left < hour:
		return 2
	case left < 24*hour:
		return 3
	case left < 7*24*hour:
		return 4
	}
	return 5
}
