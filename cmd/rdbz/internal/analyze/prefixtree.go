package analyze

import "bytes"

// prefixTree counts key prefixes to a depth: the key up to its first
// separator (the whole key when it has none), up to its second, and so
// on; a key with fewer separators than a level counts in no prefix of that
// level. Each level is a prefixCounter of its own, so memory stays bounded
// whatever the keys.
type prefixTree struct {
	seps   string
	levels []*prefixCounter
}

// prefixChildren is how many prefixes one level down are listed under
// each prefix of the ranking.
const prefixChildren = 5

func newPrefixTree(depth, max int, seps string) *prefixTree {
	t := &prefixTree{seps: seps}
	for range depth {
		t.levels = append(t.levels, newPrefixCounter(max))
	}
	return t
}

// add counts a key of n serialized bytes and mem memory at every level.
func (t *prefixTree) add(key []byte, n, mem int64) {
	end := 0
	for d, c := range t.levels {
		i := -1
		if t.seps != "" {
			i = bytes.IndexAny(key[end:], t.seps)
		}
		if i < 0 {
			if d == 0 {
				c.add(key[:min(len(key), maxPrefixLen)], n, mem)
			}
			return
		}
		end += i
		c.add(key[:min(end, maxPrefixLen)], n, mem)
		end++
	}
}

// ranking lists the top prefixes of the first level, each followed by its
// largest prefixChildren prefixes of the next level, and so on down.
func (t *prefixTree) ranking(top int) []PrefixInfo {
	sorted := make([][]prefixEntry, len(t.levels))
	for d, c := range t.levels {
		sorted[d] = c.sorted()
	}
	out := []PrefixInfo{}
	var walk func(d int, parent string, n int)
	walk = func(d int, parent string, n int) {
		if d == len(t.levels) {
			return
		}
		for _, e := range sorted[d] {
			if n == 0 {
				return
			}
			if d > 0 && !t.childOf(e.prefix, parent) {
				continue
			}
			n--
			out = append(out, e.info(d+1))
			walk(d+1, e.prefix, prefixChildren)
		}
	}
	walk(0, "", top)
	return out
}

// childOf says whether prefix is parent followed by a separator and more.
func (t *prefixTree) childOf(prefix, parent string) bool {
	return len(prefix) > len(parent) && prefix[:len(parent)] == parent &&
		bytes.IndexByte([]byte(t.seps), prefix[len(parent)]) >= 0
}

// tracked is how many prefixes the levels hold; exact whether none was
// evicted.
func (t *prefixTree) tracked() (int, bool) {
	n, exact := 0, true
	for _, c := range t.levels {
		n += len(c.entries)
		exact = exact && !c.evicted
	}
	return n, exact
}

// merge adds the counts of o, a tree of the same depth and separators.
func (t *prefixTree) merge(o *prefixTree) {
	for d, c := range t.levels {
		if d < len(o.levels) {
			c.merge(o.levels[d])
		}
	}
}
