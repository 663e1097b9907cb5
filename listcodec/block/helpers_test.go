package block

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/rdbz/rdbz/rdbio"
	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

// record is one record of a test stream: its bytes are t[off:end].
type record struct {
	key      []byte // nil: no key
	off, end int64
}

// writeRecords writes the records of t through a Writer and returns the
// file.
func writeRecords(tb testing.TB, t []byte, recs []record, dict []byte, opt Options) ([]byte, Stats) {
	tb.Helper()
	var out bytes.Buffer
	w, err := NewWriter(context.Background(), &out, dict, opt)
	if err != nil {
		tb.Fatal(err)
	}
	if err := feed(w, t, recs); err != nil {
		tb.Fatal(err)
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	st := w.Stats()
	if st.Total() != int64(out.Len()) {
		tb.Fatalf("stats say %d bytes, wrote %d", st.Total(), out.Len())
	}
	return out.Bytes(), st
}

func feed(w *Writer, t []byte, recs []record) error {
	for _, r := range recs {
		if err := w.Begin(r.key, r.off); err != nil {
			return err
		}
		if _, err := w.Write(t[r.off:r.end]); err != nil {
			return err
		}
	}
	return nil
}

// readAll streams a file back.
func readAll(tb testing.TB, file []byte, opt ReaderOptions) []byte {
	tb.Helper()
	r, err := NewReader(context.Background(), bytes.NewReader(file), opt)
	if err != nil {
		tb.Fatal(err)
	}
	defer r.Close()
	var got bytes.Buffer
	if _, err := io.Copy(&got, r); err != nil {
		tb.Fatal(err)
	}
	return got.Bytes()
}

// long is RDBZ_LONG=1: the larger inputs too.
func long() bool { return rdbiotest.Long() }

// corpusDir is the corpus folder, "" when it is absent.
func corpusDir() string {
	d := filepath.Join(rdbiotest.Shared(), "corpus")
	if _, err := os.Stat(filepath.Join(d, "generated", "MANIFEST.tsv")); err != nil {
		return ""
	}
	return d
}

// rdbRecords cuts an RDB file with no LZF strings (rdbcompression no: it
// already is its own T) at its records, with their keys (db number in
// front, as the grammar side will hash them).
func rdbRecords(tb testing.TB, data []byte) []record {
	tb.Helper()
	recs, err := tryRecords(data)
	if err != nil {
		tb.Fatal(err)
	}
	return recs
}

func tryRecords(data []byte) ([]record, error) {
	rd, err := rdbio.NewReader(bytes.NewReader(data), rdbio.Options{IgnoreChecksum: true})
	if err != nil {
		return nil, err
	}
	recs := []record{{off: 0}}
	for {
		rec, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		recs[len(recs)-1].end = rec.Offset
		r := record{off: rec.Offset}
		if rec.Key != nil {
			r.key = dbKey(rec.DB, rec.Key)
		}
		recs = append(recs, r)
	}
	recs[len(recs)-1].end = int64(len(data))
	return recs, nil
}

func dbKey(db uint64, key []byte) []byte {
	return append([]byte{byte(db), byte(db >> 8), ':'}, key...)
}
