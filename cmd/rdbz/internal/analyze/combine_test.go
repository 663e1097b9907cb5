package analyze

import (
	"testing"
)

// TestCombine: two generated files combined: the counts add up, the
// rankings are those of the union, a prefix's memory is the sum of its
// memory in each file, and the node size maximum is the larger one.
func TestCombine(t *testing.T) {
	var paths []string
	for _, cf := range corpusFiles(t) {
		if cf.Name == "mixed-all-types.rdb" || cf.Name == "lists-logs.rdb" {
			paths = append(paths, cf.Path)
		}
	}
	if len(paths) != 2 {
		t.Skip("mixed-all-types.rdb and lists-logs.rdb not in the corpus")
	}
	analyses := func() []*Analysis {
		var out []*Analysis
		for _, p := range paths {
			a, err := Analyze(openReader(t, p), Options{})
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, a)
		}
		return out
	}
	parts := analyses()
	keep := analyses() // Combine merges prefixes into the first part
	c := Combine(parts, paths, DefaultTop)
	a, b := keep[0], keep[1]
	if c.Keys != a.Keys+b.Keys || c.Memory.Bytes != a.Memory.Bytes+b.Memory.Bytes || len(c.Files) != 2 {
		t.Fatalf("keys %d, memory %d: want %d, %d", c.Keys, c.Memory.Bytes, a.Keys+b.Keys, a.Memory.Bytes+b.Memory.Bytes)
	}
	union := append(from(a.TopMemory, paths[0]), from(b.TopMemory, paths[1])...)
	want := ranked(union, DefaultTop, func(k *KeyInfo) int64 { return k.Memory })
	for i := range want {
		if c.TopMemory[i].Key != want[i].Key || c.TopMemory[i].Memory != want[i].Memory {
			t.Fatalf("top memory %d: %+v, want %+v", i, c.TopMemory[i], want[i])
		}
	}
	if c.TopMemory[0].Memory < max(a.TopMemory[0].Memory, b.TopMemory[0].Memory) {
		t.Fatalf("top key %+v", c.TopMemory[0])
	}
	if c.Lists.NodeStored.Max != max(a.Lists.NodeStored.Max, b.Lists.NodeStored.Max) ||
		c.Lists.Nodes != a.Lists.Nodes+b.Lists.Nodes {
		t.Fatalf("lists %+v", c.Lists)
	}
	mem := func(ps []PrefixInfo, prefix string) int64 {
		for _, p := range ps {
			if p.Prefix == prefix && p.Depth == 1 {
				return p.Memory
			}
		}
		return 0
	}
	if !c.Prefixes.Exact {
		t.Fatal("prefixes not exact")
	}
	for _, p := range c.Prefixes.Top {
		if p.Depth == 1 {
			if got, w := p.Memory, a.prefixes.levels[0].memOf(p.Prefix)+b.prefixes.levels[0].memOf(p.Prefix); got != w {
				t.Fatalf("prefix %q: %d, want %d", p.Prefix, got, w)
			}
		}
	}
	if mem(c.Prefixes.Top, "list") == 0 {
		t.Fatalf("prefixes %+v", c.Prefixes.Top)
	}
}

// memOf is the memory counted for prefix (0 when not tracked).
func (p *prefixCounter) memOf(prefix string) int64 {
	if i, ok := p.index[prefix]; ok {
		return p.entries[i].mem
	}
	return 0
}
