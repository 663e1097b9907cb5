package analyze

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rdbz/rdbz/listcodec/v1"
	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

// cliDefaults are the options `rdbz compress --format 1` runs with by
// default (cmd/rdbz reads them from its flags; its test compares them).
func cliDefaults() v1.CompressOptions { return v1.DefaultCompressOptions() }

// whatIf analyzes path with Options.WhatIf.
func whatIf(t *testing.T, path string, opt v1.CompressOptions) (*v1.WhatIfReport, *Analysis) {
	t.Helper()
	a, err := Analyze(openReader(t, path), Options{WhatIf: &opt})
	if err != nil {
		t.Fatal(err)
	}
	if a.WhatIf == nil {
		t.Fatal("no what-if report")
	}
	return a.WhatIf, a
}

type countWriter struct{ n int64 }

func (c *countWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

// TestWhatIfMatchesCompress: where the estimation sample holds every node,
// the prediction is Compress's output size to the byte, with the same
// dictionary; a file without lists is predicted unchanged.
func TestWhatIfMatchesCompress(t *testing.T) {
	gen := filepath.Join(rdbiotest.Shared(), "corpus", "generated")
	pub := filepath.Join(rdbiotest.Shared(), "corpus", "public")
	for _, tc := range []struct {
		path      string
		unchanged bool
	}{
		{filepath.Join(gen, "lists-ints-small.rdb"), false},
		{filepath.Join(gen, "mixed-all-types.rdb"), false},
		{filepath.Join(pub, "redis__test.rdb"), true},
	} {
		t.Run(filepath.Base(tc.path), func(t *testing.T) {
			if _, err := os.Stat(tc.path); err != nil {
				t.Skipf("corpus file missing: %v", err)
			}
			opt := cliDefaults()
			rep, _ := whatIf(t, tc.path, opt)
			f, err := os.Open(tc.path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			var out countWriter
			st, err := v1.Compress(&out, f, opt)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("predicted %d, compress wrote %d (%s)", rep.RdbzCompressBytes, out.n, st.Note)
			if !rep.Exact || rep.RdbzCompressBytes != out.n || rep.Unchanged != tc.unchanged {
				t.Fatalf("prediction %+v; compress wrote %d bytes", rep, out.n)
			}
			if !tc.unchanged && (rep.DictID != st.DictID || rep.DictBytes != st.DictBytes) {
				t.Fatalf("dictionary %d (%d bytes), compress used %d (%d bytes)", rep.DictID, rep.DictBytes, st.DictID, st.DictBytes)
			}
		})
	}
}

// TestWhatIfVariants checks the node variants against what is exactly
// known: stored and raw sizes, and orderings that hold on this data.
func TestWhatIfVariants(t *testing.T) {
	path := filepath.Join(rdbiotest.Shared(), "corpus", "generated", "lists-logs.rdb")
	if _, err := os.Stat(path); err != nil {
		t.Skipf("corpus file missing: %v", err)
	}
	rep, a := whatIf(t, path, cliDefaults())
	n := rep.Nodes
	if n.Stored != a.Lists.StoredBytes || n.Nodes != a.Lists.Nodes {
		t.Fatalf("nodes %+v, analysis %+v", n, a.Lists)
	}
	// Raw: every node's decoded bytes with its length prefixes.
	if n.Raw < a.Lists.DecodedBytes || n.Raw > a.Lists.DecodedBytes+6*a.Lists.Nodes {
		t.Fatalf("raw %d, decoded %d", n.Raw, a.Lists.DecodedBytes)
	}
	// Text logs: LZF < raw, zstd < LZF, a dictionary helps even counted,
	// and compress's per-node rules keep the best of stored and zstd.
	if !(n.LZF < n.Raw && n.Zstd < n.LZF && n.ZstdDict < n.Zstd && n.Rdbz <= n.ZstdDict-int64(rep.DictBytes)+n.Nodes) {
		t.Fatalf("variants %+v", n)
	}
	if d := rep.Dragonfly; d.DecodedBytes != a.Lists.DecodedBytes || d.EstimatedBytes >= d.DecodedBytes || d.CompressedShare <= 0 {
		t.Fatalf("dragonfly %+v", d)
	}
}

// TestWhatIfCompressedInput: an rdbz-compressed input is predicted as
// refused (unchanged).
func TestWhatIfCompressedInput(t *testing.T) {
	w := v1.NewWhatIf(cliDefaults())
	rep, err := w.Estimate(v1.EstimateInput{Bytes: 1234, Compressed: true})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Unchanged || rep.RdbzCompressBytes != 1234 || rep.Note == "" {
		t.Fatalf("%+v", rep)
	}
}
