package format2

import (
	"bytes"
	"context"
	"io"
	"os"
	"testing"

	"github.com/rdbz/rdbz/listcodec/tstream"
	"github.com/rdbz/rdbz/rdbio"
)

// FuzzDecompress: any input to Decompress, any target, gives an RDB or an
// error, never a panic or a hang, within the caps. Seeds: small.rdb in
// format 2, whole and with its dictionary left out.
func FuzzDecompress(f *testing.F) {
	src := tinyRDB(f)
	dict, err := os.ReadFile("../../testdata/test.dict")
	if err != nil {
		f.Fatal(err)
	}
	// Seeds made without training (every fuzzing worker makes them), and
	// small: Go's minimizer is quadratic in an input's length, and new
	// inputs of the 7 KB a seed of all of small.rdb makes held a worker a
	// minute each (the fuzzer looked stalled).
	for _, o := range []Options{{NoDict: true}, {Dict: dict}, {BlockSize: 1 << 10, NoDict: true}, {Columns: true}, {Columns: true, BlockSize: 1 << 10}} {
		var z bytes.Buffer
		if _, err := Compress(context.Background(), &z, bytes.NewReader(src), o); err != nil {
			f.Fatal(err)
		}
		f.Add(z.Bytes(), uint8(0))
	}
	f.Fuzz(func(t *testing.T, in []byte, to uint8) {
		if len(in) > 16<<10 {
			return // see the seeds
		}
		opt := DecompressOptions{To: tstream.Target(to % 3), Workers: 1, Cap: 1 << 20}
		st, err := Decompress(context.Background(), io.Discard, bytes.NewReader(in), opt)
		if err == nil && st.BytesOut < 10 {
			t.Fatalf("an RDB of %d bytes", st.BytesOut)
		}
	})
}

// tinyRDB is small.rdb less its lists: a key of every other type, a few
// hundred bytes.
func tinyRDB(f *testing.F) []byte {
	src, err := os.ReadFile("../../testdata/small.rdb")
	if err != nil {
		f.Fatal(err)
	}
	var out bytes.Buffer
	keep := func(r *rdbio.Record) bool { return !rdbio.IsList(r.Type) }
	if _, _, err := rdbio.CopyFiltered(&out, bytes.NewReader(src), rdbio.Options{}, keep); err != nil {
		f.Fatal(err)
	}
	return out.Bytes()
}

// FuzzCompress: any input to Compress (2.1 and 2.2 segments, small blocks,
// a hold smaller than the input so that it starts the writer midway) gives
// an error or a file that decompresses --to original to the input byte for
// byte. Seeds: tinyRDB, whole and cut.
func FuzzCompress(f *testing.F) {
	src := tinyRDB(f)
	f.Add(src, uint8(0))
	f.Add(src[:len(src)/2], uint8(1))
	f.Add(src, uint8(3))
	f.Fuzz(func(t *testing.T, in []byte, mode uint8) {
		if len(in) > 16<<10 {
			return // as FuzzDecompress's seeds
		}
		opt := Options{NoDict: true, Columns: mode&1 == 0, Workers: 1, Cap: 1 << 20, BlockSize: 1 << 10}
		if mode&2 != 0 {
			opt.TrainBytes = int64(len(in) / 2) // the writer starts before the input ends
		}
		var z bytes.Buffer
		if _, err := Compress(context.Background(), &z, bytes.NewReader(in), opt); err != nil {
			return
		}
		var out bytes.Buffer
		dopt := DecompressOptions{To: tstream.TargetOriginal, Workers: 1, Cap: 1 << 20}
		if _, err := Decompress(context.Background(), &out, bytes.NewReader(z.Bytes()), dopt); err != nil {
			t.Fatalf("decompress of what compress wrote: %v", err)
		}
		if !bytes.Equal(out.Bytes(), in) {
			t.Fatalf("--to original gives %d bytes, not the %d compressed", out.Len(), len(in))
		}
	})
}
