package block

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// benchInput is the corpus's app-cache-nocompress dump cut at its records,
// with a dictionary trained as compress would.
func benchInput(b *testing.B) ([]byte, []record, []byte) {
	dir := corpusDir()
	if dir == "" {
		b.Skip("no corpus")
	}
	data, err := os.ReadFile(filepath.Join(dir, "generated", "app-cache-nocompress.rdb"))
	if err != nil {
		b.Skip(err)
	}
	recs := rdbRecords(b, data)
	dict, _ := trainRdbz(b, trainSamples(data, recs, 2<<20), DefaultDictSize, DefaultLevel)
	return data, recs, dict
}

func BenchmarkWriter(b *testing.B) {
	data, recs, dict := benchInput(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		w, _ := NewWriter(context.Background(), io.Discard, dict, Options{})
		if err := feed(w, data, recs); err != nil {
			b.Fatal(err)
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReader(b *testing.B) {
	data, recs, dict := benchInput(b)
	var out bytes.Buffer
	w, _ := NewWriter(context.Background(), &out, dict, Options{})
	feed(w, data, recs)
	w.Close()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		r, _ := NewReader(context.Background(), bytes.NewReader(out.Bytes()), ReaderOptions{})
		if _, err := io.Copy(io.Discard, r); err != nil {
			b.Fatal(err)
		}
		r.Close()
	}
}
