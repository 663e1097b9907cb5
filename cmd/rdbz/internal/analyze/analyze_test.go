package analyze

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"sort"
	"testing"

	"github.com/rdbz/rdbz/cmd/rdbz/internal/servers"
	"github.com/rdbz/rdbz/rdbio"
)

// analyzeFile runs Analyze on a file with default options.
func analyzeFile(t testing.TB, path string, opt Options) (*Analysis, error) {
	t.Helper()
	r := openReader(t, path)
	return Analyze(r, opt)
}

// TestAnalyzeSummaryEqualsSummarize: the Summary inside an Analysis (the
// fields rdbz info prints) is exactly what Summarize counts, on every
// corpus file, including where the walk stops or the checksum fails.
func TestAnalyzeSummaryEqualsSummarize(t *testing.T) {
	for _, cf := range corpusFiles(t) {
		t.Run(cf.Name, func(t *testing.T) {
			a, aerr := analyzeFile(t, cf.Path, Options{})
			r := openReader(t, cf.Path)
			s, serr := Summarize(r, nil)
			if (aerr == nil) != (serr == nil) {
				t.Fatalf("Analyze error %v, Summarize error %v", aerr, serr)
			}
			got, want := a.Summary, *s
			got.idx, want.idx = summaryIndex{}, summaryIndex{} // how each found its entries
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("summary differs:\nanalyze   %+v\nsummarize %+v", got, want)
			}
		})
	}
}

// TestAnalyzeCountsAddUp checks the analysis against itself on every
// corpus file: per-type keys and bytes equal the summary's, the TTL
// buckets hold every key, list nodes match the summary's node counts,
// and the rankings are ordered.
func TestAnalyzeCountsAddUp(t *testing.T) {
	for _, cf := range corpusFiles(t) {
		t.Run(cf.Name, func(t *testing.T) {
			a, err := analyzeFile(t, cf.Path, Options{Top: 5})
			if err != nil && !errors.Is(err, rdbio.ErrChecksum) && !cf.CorruptByDesign() {
				t.Fatalf("analyze: %v", err)
			}
			for name, ts := range a.TypeStats {
				if s := a.Types[name]; s == nil || s.Keys != ts.Keys || s.Bytes != ts.Bytes {
					t.Errorf("type %s: stats %d keys %d bytes, summary %+v", name, ts.Keys, ts.Bytes, s)
				}
			}
			var ttlKeys, ttlBytes, typeBytes int64
			for _, b := range a.TTL.Buckets {
				ttlKeys += b.Keys
				ttlBytes += b.Bytes
			}
			for _, ts := range a.Types {
				typeBytes += ts.Bytes
			}
			if a.Unwalked == nil && err == nil && (ttlKeys != a.Keys || ttlBytes != typeBytes) {
				t.Errorf("TTL buckets hold %d keys / %d bytes, file %d keys / %d bytes", ttlKeys, ttlBytes, a.Keys, typeBytes)
			}
			if a.Lists.Nodes != a.ListNodes.Nodes || a.Lists.StoredBytes < a.ListNodes.StoredBytes {
				t.Errorf("lists: %d nodes %d bytes; summary %+v", a.Lists.Nodes, a.Lists.StoredBytes, a.ListNodes)
			}
			for i := 1; i < len(a.TopBytes); i++ {
				if a.TopBytes[i].Bytes > a.TopBytes[i-1].Bytes {
					t.Errorf("top_bytes not sorted at %d", i)
				}
			}
			if len(a.TopBytes) > 5 || len(a.Compat) != len(servers.All()) {
				t.Errorf("%d top keys, %d verdicts", len(a.TopBytes), len(a.Compat))
			}
		})
	}
}

// TestSizeHistogram: percentiles from the fixed histogram are within the
// bucket width (1/64) of the exact ones.
func TestSizeHistogram(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var h sizeHistogram
	vals := make([]int64, 100000)
	for i := range vals {
		vals[i] = int64(rng.ExpFloat64() * 9000)
		h.add(vals[i])
	}
	sort.Slice(vals, func(i, j int) bool { return vals[i] < vals[j] })
	for _, q := range []float64{0.5, 0.9, 0.99, 1} {
		exact := vals[int(q*float64(len(vals)-1))]
		got := h.quantile(q)
		if got < exact || float64(got-exact) > float64(exact)/64+1 {
			t.Errorf("q%.2f: %d, exact %d", q, got, exact)
		}
	}
	for v := int64(0); v < 1<<20; v += 1 + v/7 {
		if b := histBucket(v); histUpper(b) < v || (b > 0 && histUpper(b-1) >= v) {
			t.Fatalf("value %d in bucket %d [.., %d]", v, b, histUpper(b))
		}
	}
}

// TestPrefixCounter: exact under the bound; over it, Space-Saving still
// finds the heavy prefixes and its error bounds hold.
func TestPrefixCounter(t *testing.T) {
	p := newPrefixTree(1, 100, ":")
	for i := 0; i < 1000; i++ {
		p.add([]byte(fmt.Sprintf("user:%d", i)), 10, 20)
		p.add([]byte(fmt.Sprintf("item:%d", i)), 1, 2)
	}
	p.add([]byte("nosep"), 5, 10)
	top := p.ranking(3)
	want := []PrefixInfo{{Prefix: "user", Depth: 1, Keys: 1000, Bytes: 10000, Memory: 20000},
		{Prefix: "item", Depth: 1, Keys: 1000, Bytes: 1000, Memory: 2000}, {Prefix: "nosep", Depth: 1, Keys: 1, Bytes: 5, Memory: 10}}
	if _, exact := p.tracked(); !reflect.DeepEqual(top, want) || !exact {
		t.Fatalf("top = %+v", top)
	}

	c := newPrefixCounter(50)
	for i := 0; i < 5000; i++ {
		c.add([]byte(fmt.Sprintf("junk%d", i)), 1, 1)
		if i%10 == 0 {
			c.add([]byte("heavy"), 100, 100)
		}
	}
	top = c.top(1)
	if !c.evicted || top[0].Prefix != "heavy" || top[0].Memory-top[0].Error > 50000 || top[0].Memory < 50000 {
		t.Fatalf("top = %+v", top)
	}
}

// TestPrefixTree: prefixes to depth 3 nest under their parents, each
// level's counts add up to the keys that reach it, and a key with fewer
// separators than a level counts in no prefix of it.
func TestPrefixTree(t *testing.T) {
	p := newPrefixTree(3, 100, ":")
	keys := map[string]int64{"events:user:1": 100, "events:user:2": 100, "events:page:1": 50,
		"events:x": 7, "jobs:a:b:c": 30, "plain": 3}
	for k, m := range keys {
		p.add([]byte(k), 1, m)
	}
	got := p.ranking(10)
	want := []string{"1 events 257", "2 events:user 200", "2 events:page 50",
		"1 jobs 30", "2 jobs:a 30", "3 jobs:a:b 30", "1 plain 3"}
	var rows []string
	for _, r := range got {
		rows = append(rows, fmt.Sprintf("%d %s %d", r.Depth, r.Prefix, r.Memory))
	}
	if !reflect.DeepEqual(rows, want) {
		t.Fatalf("ranking\n%q\nwant\n%q", rows, want)
	}
}

// TestAnalyzeDamaged: flipped bytes anywhere in real files give an error
// or a result, never a panic (nor an allocation the size of a bogus
// length).
func TestAnalyzeDamaged(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, cf := range corpusFiles(t) {
		if cf.CorruptByDesign() {
			continue
		}
		data, err := os.ReadFile(cf.Path)
		if err != nil {
			t.Fatal(err)
		}
		if len(data) > 1<<20 {
			continue
		}
		t.Run(cf.Name, func(t *testing.T) {
			for i := 0; i < 20; i++ {
				d := bytes.Clone(data)
				for j := 0; j < 1+rng.IntN(3); j++ {
					d[9+rng.IntN(len(d)-9)] ^= byte(1 + rng.IntN(255))
				}
				r, err := rdbio.NewReader(bytes.NewReader(d), rdbio.Options{Cap: 1 << 20, IgnoreChecksum: true})
				if err != nil {
					continue
				}
				a, _ := Analyze(r, Options{})
				if a == nil {
					t.Fatal("no analysis returned")
				}
			}
		})
	}
}
