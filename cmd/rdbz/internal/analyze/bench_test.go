package analyze

import (
	"os"
	"testing"

	"github.com/rdbz/rdbz/rdbio"
)

// BenchmarkAnalyze measures Analyze on the file named by RDBZ_ANALYZE_FILE
// (default: the generated mixed-all-types.rdb).
func BenchmarkAnalyze(b *testing.B) {
	p := os.Getenv("RDBZ_ANALYZE_FILE")
	if p == "" {
		p = corpusDir + "/generated/mixed-all-types.rdb"
	}
	st, err := os.Stat(p)
	if err != nil {
		b.Skip(err)
	}
	b.SetBytes(st.Size())
	b.ReportAllocs()
	for b.Loop() {
		f, err := os.Open(p)
		if err != nil {
			b.Fatal(err)
		}
		r, err := rdbio.NewReader(f, rdbio.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Analyze(r, Options{}); err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
}

// BenchmarkPrefixChurn adds 92,000 distinct prefixes (keys without a
// separator), the worst case of the bounded prefix counter.
func BenchmarkPrefixChurn(b *testing.B) {
	keys := make([][]byte, 92000)
	for i := range keys {
		keys[i] = []byte("zadd" + string(rune('0'+i%10)) + string(rune('a'+i/10%26)) + string(rune('a'+i/260%26)) + string(rune('a'+i/6760%26)))
	}
	for b.Loop() {
		p := newPrefixTree(DefaultPrefixDepth, 1000, ":")
		for _, k := range keys {
			p.add(k, 40, 80)
		}
	}
}
