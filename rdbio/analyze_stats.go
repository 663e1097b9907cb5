package rdbio

import (
	"bytes"
	"container/heap"
	"math/bits"
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
	// Error bounds the over-count of Bytes (Space-Saving): 0 when the
	// prefix was tracked from its first key on.
	Error int64 `json:"error"`
}

// prefixCounter finds the key prefixes holding the most bytes in bounded
// memory with the Space-Saving algorithm (Metwally et al.): it tracks at
// most max prefixes; a new one then replaces the smallest, inheriting its
// count as the error bound. With fewer distinct prefixes than max the
// counts are exact.
type prefixCounter struct {
	max     int
	seps    string
	index   map[string]int // prefix -> heap position
	items   []prefixEntry  // min-heap on bytes
	evicted bool
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
	return &prefixCounter{max: max, seps: seps, index: map[string]int{}}
}

func (p *prefixCounter) Len() int           { return len(p.items) }
func (p *prefixCounter) Less(i, j int) bool { return p.items[i].bytes < p.items[j].bytes }
func (p *prefixCounter) Swap(i, j int) {
	p.items[i], p.items[j] = p.items[j], p.items[i]
	p.index[p.items[i].prefix] = i
	p.index[p.items[j].prefix] = j
}
func (p *prefixCounter) Push(x any) {
	e := x.(prefixEntry)
	p.index[e.prefix] = len(p.items)
	p.items = append(p.items, e)
}
func (p *prefixCounter) Pop() any {
	e := p.items[len(p.items)-1]
	p.items = p.items[:len(p.items)-1]
	delete(p.index, e.prefix)
	return e
}

// prefixOf is the key up to its first separator byte (all of it when it
// has none), cut at maxPrefixLen.
func (p *prefixCounter) prefixOf(key []byte) []byte {
	if i := bytes.IndexAny(key, p.seps); i >= 0 && p.seps != "" {
		key = key[:i]
	}
	return key[:min(len(key), maxPrefixLen)]
}

func (p *prefixCounter) add(key []byte, n int64) {
	pre := p.prefixOf(key)
	if i, ok := p.index[string(pre)]; ok {
		p.items[i].keys++
		p.items[i].bytes += n
		heap.Fix(p, i)
		return
	}
	if len(p.items) < p.max {
		heap.Push(p, prefixEntry{prefix: string(pre), keys: 1, bytes: n})
		return
	}
	p.evicted = true
	low := p.items[0]
	delete(p.index, low.prefix)
	p.items[0] = prefixEntry{prefix: string(pre), keys: low.keys + 1, bytes: low.bytes + n, err: low.bytes}
	p.index[p.items[0].prefix] = 0
	heap.Fix(p, 0)
}

func (p *prefixCounter) top(n int) []PrefixInfo {
	items := append([]prefixEntry{}, p.items...)
	sort.Slice(items, func(i, j int) bool {
		if items[i].bytes != items[j].bytes {
			return items[i].bytes > items[j].bytes
		}
		return items[i].prefix < items[j].prefix
	})
	out := []PrefixInfo{}
	for _, e := range items[:min(n, len(items))] {
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
