package analyze

import (
	"container/heap"
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
	Memory    int64  `json:"memory"`   // estimated, as MEMORY USAGE key SAMPLES 0 (MemoryStats)
	// ElementsKnown is false when the count could not be told cheaply.
	ElementsKnown bool  `json:"elements_known"`
	Expire        int64 `json:"expire_ms"` // absolute Unix ms; -1 none
	// File names the input holding the key (Combine's rankings only).
	File string `json:"file,omitempty"`
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
