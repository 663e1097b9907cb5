package v1

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/rdbz/rdbz/listcodec/format"
	"github.com/rdbz/rdbz/listcodec/node"
	"github.com/rdbz/rdbz/rdbio"
	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

// benchInput is RDBZ_BENCH_FILE or the corpus' lists-events.rdb.
func benchInput(b *testing.B) []byte {
	p := os.Getenv("RDBZ_BENCH_FILE")
	if p == "" {
		p = filepath.Join(rdbiotest.Shared(), "corpus", "generated", "lists-events.rdb")
	}
	data, err := os.ReadFile(p)
	if err != nil {
		b.Skipf("no benchmark input: %v", err)
	}
	return data
}

// BenchmarkTranscode measures compress (with a dictionary trained once,
// outside the timer) and decompress of a whole file in memory.
func BenchmarkTranscode(b *testing.B) {
	data := benchInput(b)
	var comp bytes.Buffer
	if _, err := Compress(&comp, bytes.NewReader(data), CompressOptions{Train: TrainOptions{Stream: true}}); err != nil {
		b.Fatal(err)
	}
	dict := firstDict(b, comp.Bytes())
	b.Run("compress", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := Compress(io.Discard, bytes.NewReader(data), CompressOptions{Dict: dict}); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, to := range []struct {
		name string
		form Form
	}{{"original", ToOriginal}, {"raw", ToRaw}} {
		b.Run("decompress-"+to.name, func(b *testing.B) {
			b.SetBytes(int64(len(data))) // decoded bytes
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := Decompress(io.Discard, bytes.NewReader(comp.Bytes()), DecompressOptions{To: to.form}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func firstDict(b *testing.B, comp []byte) *node.Dict {
	var d *node.Dict
	err := rdbio.ForEachAux(bytes.NewReader(comp), func(name, value []byte) bool {
		if string(name) == format.AuxDict {
			d, _ = node.ParseDict(bytes.Clone(value))
			return false
		}
		return true
	})
	if err != nil || d == nil {
		b.Fatalf("no dictionary in the compressed file (%v)", err)
	}
	return d
}
