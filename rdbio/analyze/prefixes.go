package analyze

import (
	"bytes"
	"slices"
	"sort"
)

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
