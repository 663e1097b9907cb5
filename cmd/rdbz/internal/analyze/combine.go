package analyze

import "slices"

// Combined is the analysis of several files taken as one data set (the
// shard dumps of a cluster): a row per file and the totals, rankings,
// prefixes, lists and compatibility of all of them.
type Combined struct {
	Files     []FileRow             `json:"files"`
	Keys      int64                 `json:"keys"`
	LeftOut   int64                 `json:"left_out,omitempty"` // by a filter (Summary.LeftOut)
	Expires   int64                 `json:"expires"`
	Bytes     int64                 `json:"bytes"`
	Memory    MemoryStats           `json:"memory"`
	TypeStats map[string]*TypeStats `json:"type_stats"`
	// The rankings hold the largest keys of all files (KeyInfo.File says
	// whose): each file's rankings hold its own largest, so these are exact.
	Rankings
	Lists ListStats `json:"lists"`
	// Compat: a server loads the set when it loads every file; a cause's
	// key count is summed over the files, its first key is the first
	// file's.
	Compat []Compat `json:"compat"`
}

// FileRow is one file of a Combined analysis.
type FileRow struct {
	File     string `json:"file"`
	Producer string `json:"producer"`
	Version  int    `json:"version"`
	Checksum string `json:"checksum"`
	Bytes    int64  `json:"bytes"`
	Keys     int64  `json:"keys"`
	Expires  int64  `json:"expires"`
	Memory   int64  `json:"memory"`
	Dataset  int64  `json:"dataset_bytes"`
	// Loads lists the servers that load the file as it is.
	Loads []string `json:"loads"`
}

// Combine merges the analyses of files (names[i] is parts[i]'s) into one
// (see Combiner).
func Combine(parts []*Analysis, names []string, top int) *Combined {
	b := NewCombiner(top)
	for i, a := range parts {
		b.Add(a, names[i])
	}
	return b.Result()
}

// Combiner merges analyses one at a time, holding only what the combined
// report needs (rankings cut to top, one histogram pair, one prefix tree),
// so that any number of files takes bounded memory.
type Combiner struct {
	c        *Combined
	top      int
	hists    [2]sizeHistogram
	prefixes *prefixTree
}

// NewCombiner starts a combined analysis whose rankings keep top keys and
// prefixes.
func NewCombiner(top int) *Combiner {
	return &Combiner{top: top, c: &Combined{TypeStats: map[string]*TypeStats{}, Rankings: Rankings{Biggest: map[string]*KeyInfo{}}}}
}

// Add merges the analysis of the file named name; a's prefix counters
// become the combination's (a must not be used for them afterwards).
func (b *Combiner) Add(a *Analysis, name string) {
	c := b.c
	c.Files = append(c.Files, fileRow(a, name))
	c.Keys += a.Keys
	c.LeftOut += a.LeftOut
	c.Expires += a.Expires
	c.Bytes += a.Bytes + a.TrailingBytes
	c.Memory.add(a.Memory)
	for n, ts := range a.TypeStats {
		c.typeStats(n).add(ts)
	}
	c.TopBytes = ranked(append(c.TopBytes, from(a.TopBytes, name)...), b.top, func(k *KeyInfo) int64 { return k.Bytes })
	c.TopElements = ranked(append(c.TopElements, from(a.TopElements, name)...), b.top, func(k *KeyInfo) int64 { return k.Elements })
	c.TopMemory = ranked(append(c.TopMemory, from(a.TopMemory, name)...), b.top, func(k *KeyInfo) int64 { return k.Memory })
	for fam, k := range a.Biggest {
		c.biggest(fam, *k, name)
	}
	c.Lists.add(a.Lists)
	for j, h := range a.hists {
		if h != nil {
			b.hists[j].merge(h)
		}
	}
	switch {
	case a.prefixes == nil:
	case b.prefixes == nil:
		b.prefixes = a.prefixes
		c.Prefixes = PrefixStats{Separators: a.Prefixes.Separators, Depth: a.Prefixes.Depth}
	default:
		b.prefixes.merge(a.prefixes)
	}
	c.Compat = mergeCompat(c.Compat, a.Compat)
}

// Result finishes the combined analysis.
func (b *Combiner) Result() *Combined {
	c := b.c
	c.Lists.finish(&b.hists[0], &b.hists[1])
	if b.prefixes != nil {
		c.Prefixes.Tracked, c.Prefixes.Exact = b.prefixes.tracked()
		c.Prefixes.Top = b.prefixes.ranking(b.top)
	}
	return c
}

func fileRow(a *Analysis, name string) FileRow {
	r := FileRow{File: name, Producer: a.Producer.Name, Version: a.Version, Checksum: string(a.Checksum),
		Bytes: a.Bytes + a.TrailingBytes, Keys: a.Keys, Expires: a.Expires,
		Memory: a.Memory.Bytes, Dataset: a.Memory.Dataset, Loads: []string{}}
	if a.Producer.Version != "" {
		r.Producer += " " + a.Producer.Version
	}
	for _, v := range a.Compat {
		if v.Loads {
			r.Loads = append(r.Loads, v.Server)
		}
	}
	return r
}

func (m *MemoryStats) add(o MemoryStats) {
	m.Bytes += o.Bytes
	m.Dataset += o.Dataset
	m.Modeled += o.Modeled
	m.Stored += o.Stored
}

func (c *Combined) typeStats(name string) *TypeStats {
	ts := c.TypeStats[name]
	if ts == nil {
		ts = &TypeStats{}
		c.TypeStats[name] = ts
	}
	return ts
}

func (t *TypeStats) add(o *TypeStats) {
	t.Family = o.Family
	t.Keys += o.Keys
	t.Bytes += o.Bytes
	t.Elements += o.Elements
	t.UnknownKeys += o.UnknownKeys
	t.MemoryBytes += o.MemoryBytes
}

// from copies keys, naming their file.
func from(keys []KeyInfo, file string) []KeyInfo {
	out := slices.Clone(keys)
	for i := range out {
		out[i].File = file
	}
	return out
}

// ranked keeps the n largest keys by a measure, largest first (ties in
// the order of the files).
func ranked(keys []KeyInfo, n int, by func(*KeyInfo) int64) []KeyInfo {
	slices.SortStableFunc(keys, func(a, b KeyInfo) int { return int(max(min(by(&b)-by(&a), 1), -1)) })
	return keys[:min(n, len(keys))]
}

// biggest keeps the biggest key of a family over the files; keys of the
// same size add their ties.
func (c *Combined) biggest(fam string, k KeyInfo, file string) {
	k.File = file
	cur := c.Biggest[fam]
	switch {
	case cur == nil || biggestMeasure(&k) > biggestMeasure(cur):
		c.Biggest[fam] = &k
	case biggestMeasure(&k) == biggestMeasure(cur):
		cur.Ties += k.Ties
	}
}

func (l *ListStats) add(o ListStats) {
	l.Keys += o.Keys
	l.Nodes += o.Nodes
	l.Elements += o.Elements
	l.UnknownNodes += o.UnknownNodes
	l.OverCap += o.OverCap
	for _, p := range [][2]*NodeCount{{&l.Raw, &o.Raw}, {&l.LZF, &o.LZF}, {&l.Zstd, &o.Zstd}, {&l.Int, &o.Int}, {&l.Plain, &o.Plain}} {
		p[0].Nodes += p[1].Nodes
		p[0].Bytes += p[1].Bytes
	}
	l.StoredBytes += o.StoredBytes
	l.DecodedBytes += o.DecodedBytes
}

// finish computes the percentiles and shares of merged list statistics.
func (l *ListStats) finish(stored, decoded *sizeHistogram) {
	l.NodeStored, l.NodeDecoded = stored.percentiles(), decoded.percentiles()
	if l.StoredBytes > 0 {
		l.LZFShare = float64(l.LZF.Bytes) / float64(l.StoredBytes)
	}
}

// mergeCompat adds one file's verdicts to those of the files before.
func mergeCompat(all, file []Compat) []Compat {
	if all == nil {
		out := make([]Compat, len(file))
		for i, v := range file {
			out[i] = Compat{Server: v.Server, Loads: v.Loads, Causes: slices.Clone(v.Causes)}
		}
		return out
	}
	for i := range all {
		if i >= len(file) || file[i].Server != all[i].Server {
			continue
		}
		v := &all[i]
		v.Loads = v.Loads && file[i].Loads
		for _, cs := range file[i].Causes {
			j := slices.IndexFunc(v.Causes, func(x Cause) bool { return x.Cause == cs.Cause })
			if j < 0 {
				v.Causes = append(v.Causes, cs)
				continue
			}
			v.Causes[j].Keys += cs.Keys
			v.Causes[j].Fatal = v.Causes[j].Fatal || cs.Fatal
		}
	}
	return all
}
