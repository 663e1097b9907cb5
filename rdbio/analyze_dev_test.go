package rdbio

import (
	"encoding/json"
	"os"
	"testing"
)

func TestAnalyzeDevDump(t *testing.T) {
	p := os.Getenv("ANALYZE_FILE")
	if p == "" {
		t.Skip()
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := NewReader(f, Options{})
	if err != nil {
		t.Fatal(err)
	}
	a, err := Analyze(r, AnalyzeOptions{Top: 3})
	b, _ := json.MarshalIndent(a, "", " ")
	os.Stdout.Write(b)
	t.Log(err)
}

func TestAnalyzeDevKey(t *testing.T) {
	p := os.Getenv("ANALYZE_FILE")
	if p == "" {
		t.Skip()
	}
	f, _ := os.Open(p)
	defer f.Close()
	r, _ := NewReader(f, Options{})
	for {
		rec, err := r.Next()
		if err != nil {
			break
		}
		if rec.Kind == KindKey && rec.Offset == 4588 {
			t.Logf("key %q %v", rec.Key, rec.Key == nil)
		}
	}
}
