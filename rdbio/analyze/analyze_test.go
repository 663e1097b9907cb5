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
			got.dbIndex, want.dbIndex = nil, nil
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
			if len(a.TopBytes) > 5 || len(a.Compat) != len(servers) {
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
	p := newPrefixCounter(100, ":")
	for i := 0; i < 1000; i++ {
		p.add([]byte(fmt.Sprintf("user:%d", i)), 10)
		p.add([]byte(fmt.Sprintf("item:%d", i)), 1)
	}
	p.add([]byte("nosep"), 5)
	top := p.top(3)
	want := []PrefixInfo{{Prefix: "user", Keys: 1000, Bytes: 10000}, {Prefix: "item", Keys: 1000, Bytes: 1000}, {Prefix: "nosep", Keys: 1, Bytes: 5}}
	if !reflect.DeepEqual(top, want) || p.evicted {
		t.Fatalf("top = %+v", top)
	}

	p = newPrefixCounter(50, ":")
	for i := 0; i < 5000; i++ {
		p.add([]byte(fmt.Sprintf("junk%d", i)), 1)
		if i%10 == 0 {
			p.add([]byte("heavy:x"), 100)
		}
	}
	top = p.top(1)
	if !p.evicted || top[0].Prefix != "heavy" || top[0].Bytes-top[0].Error > 50000 || top[0].Bytes < 50000 {
		t.Fatalf("top = %+v", top)
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
