package analyze

import (
	"slices"
	"sort"
)

// PrefixInfo is one key prefix and what its keys hold.
type PrefixInfo struct {
	Prefix string `json:"prefix"`
	Quoted bool   `json:"prefix_quoted,omitempty"`
	// Depth is how many separators deep the prefix ends: 1 for the key up
	// to its first separator, 2 up to its second, and so on.
	Depth  int   `json:"depth"`
	Keys   int64 `json:"keys"`
	Bytes  int64 `json:"bytes"`
	Memory int64 `json:"memory"` // estimated (MemoryStats)
	// Error bounds the over-count of Memory (Space-Saving): the prefix's
	// true memory lies in [Memory-Error, Memory]; 0 when it was tracked
	// from its first key on (Keys and Bytes then count every key, else the
	// keys since it was last tracked).
	Error int64 `json:"error"`
}

// prefixCounter finds the key prefixes holding the most memory in bounded
// memory, in the manner of Space-Saving (Metwally et al.) with evictions
// in batches: it counts exactly until it tracks 2×max prefixes, then keeps
// the max largest; a prefix met afterwards starts from the largest count
// dropped so far (its error bound), so a count never understates a
// prefix's memory and overstates it by at most its error. With at most
// 2×max distinct prefixes the counts are exact.
type prefixCounter struct {
	max     int
	index   map[string]int32 // prefix -> position in entries
	entries []prefixEntry
	floor   int64 // the largest count dropped
	evicted bool
	counts  []int64 // scratch for prune
}

type prefixEntry struct {
	prefix           string
	keys, bytes, mem int64
	err              int64
}

// maxPrefixLen cuts long prefixes (a key without a separator is its own
// prefix) so that memory stays bounded.
const maxPrefixLen = 256

func newPrefixCounter(max int) *prefixCounter {
	return &prefixCounter{max: max, index: map[string]int32{}}
}

// add counts a key of n serialized bytes and mem memory under prefix pre.
func (p *prefixCounter) add(pre []byte, n, mem int64) {
	if i, ok := p.index[string(pre)]; ok {
		e := &p.entries[i]
		e.keys++
		e.bytes += n
		e.mem += mem
		return
	}
	e := prefixEntry{prefix: string(pre), keys: 1, bytes: n, mem: p.floor + mem, err: p.floor}
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
		p.counts = append(p.counts, e.mem)
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
		keep := e.mem > threshold
		if e.mem == threshold && atThreshold > 0 {
			keep = true
			atThreshold--
		}
		if !keep {
			p.floor = max(p.floor, e.mem)
			continue
		}
		p.index[e.prefix] = int32(len(kept))
		kept = append(kept, e)
	}
	clear(p.entries[len(kept):])
	p.entries = kept
}

// sorted returns the tracked prefixes, most memory first (ties in the
// order they came).
func (p *prefixCounter) sorted() []prefixEntry {
	all := slices.Clone(p.entries)
	sort.SliceStable(all, func(i, j int) bool { return all[i].mem > all[j].mem })
	return all
}

// top lists the n largest prefixes, most memory first.
func (p *prefixCounter) top(n int) []PrefixInfo {
	all := p.sorted()
	out := []PrefixInfo{}
	for _, e := range all[:min(n, len(all))] {
		out = append(out, e.info(1))
	}
	return out
}

func (e prefixEntry) info(depth int) PrefixInfo {
	s, q := keyString([]byte(e.prefix))
	return PrefixInfo{Prefix: s, Quoted: q, Depth: depth, Keys: e.keys, Bytes: e.bytes, Memory: e.mem, Error: e.err}
}

// merge adds the counts of o, as mergeable Space-Saving summaries do: a
// prefix one side dropped may have held up to that side's floor there, which
// its count and error take on; then the largest are kept.
func (p *prefixCounter) merge(o *prefixCounter) {
	seen := make(map[string]bool, len(o.entries))
	for _, e := range o.entries {
		seen[e.prefix] = true
		if i, ok := p.index[e.prefix]; ok {
			x := &p.entries[i]
			x.keys, x.bytes, x.mem, x.err = x.keys+e.keys, x.bytes+e.bytes, x.mem+e.mem, x.err+e.err
			continue
		}
		e.mem, e.err = e.mem+p.floor, e.err+p.floor
		p.index[e.prefix] = int32(len(p.entries))
		p.entries = append(p.entries, e)
	}
	for i := range p.entries {
		if !seen[p.entries[i].prefix] {
			p.entries[i].mem += o.floor
			p.entries[i].err += o.floor
		}
	}
	p.floor += o.floor
	p.evicted = p.evicted || o.evicted
	if len(p.entries) > 2*p.max {
		p.prune()
	}
}
