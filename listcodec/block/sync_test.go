package block

import (
	"bytes"
	"context"
	"errors"
	"runtime"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// TestSyncWriterSameBytes: with one worker on one thread the Writer
// compresses and writes each block on the caller's goroutine (sync), and
// writes the bytes a Writer with compressing goroutines writes — zstd
// blocks and column segments, with records that span blocks, move whole to
// the next block, and a record longer than two blocks.
func TestSyncWriterSameBytes(t *testing.T) {
	data, recs := randomStream(21, 3000, 400)
	big := int64(len(data))
	for i := range 5 * MinBlockSize {
		data = append(data, "record longer than two blocks "[i%30])
	}
	recs = append(recs, record{key: []byte("big"), off: big, end: int64(len(data))})
	data = append(data, "tail"...)
	recs = append(recs, record{off: int64(len(data) - 4), end: int64(len(data))})
	for _, columns := range []bool{false, true} {
		opt := Options{BlockSize: MinBlockSize, Level: zstd.SpeedDefault, Columns: columns}
		opt.Workers = 2
		want, _ := writeRecords(t, data, recs, nil, opt)

		opt.Workers = 1
		prev := runtime.GOMAXPROCS(1)
		var out bytes.Buffer
		w, err := NewWriter(context.Background(), &out, nil, opt)
		if err == nil {
			if !w.sync {
				t.Errorf("columns %v: one worker on one thread is not synchronous", columns)
			}
			if err = feed(w, data, recs); err == nil {
				err = w.Close()
			}
		}
		runtime.GOMAXPROCS(prev)
		if err != nil {
			t.Fatalf("columns %v: %v", columns, err)
		}
		if !bytes.Equal(out.Bytes(), want) {
			t.Errorf("columns %v: the synchronous Writer wrote %d bytes, not the %d of two workers", columns, out.Len(), len(want))
		}
		if got := readAll(t, out.Bytes(), ReaderOptions{}); !bytes.Equal(got, data) {
			t.Errorf("columns %v: read back %d bytes, not the %d written", columns, len(got), len(data))
		}
	}
}

// failAfter fails every write once n bytes went through.
type failAfter struct{ n int }

var errFull = errors.New("device full")

func (f *failAfter) Write(p []byte) (int, error) {
	if len(p) > f.n {
		return 0, errFull
	}
	f.n -= len(p)
	return len(p), nil
}

// TestSyncWriterWriteError: a block the synchronous Writer cannot write
// fails the call that cut it, and every call after, with the writer's
// error.
func TestSyncWriterWriteError(t *testing.T) {
	data, recs := randomStream(22, 2000, 400)
	for _, columns := range []bool{false, true} {
		prev := runtime.GOMAXPROCS(1)
		w, err := NewWriter(context.Background(), &failAfter{n: 200}, nil, Options{BlockSize: MinBlockSize, Columns: columns, Workers: 1})
		if err != nil {
			runtime.GOMAXPROCS(prev)
			t.Fatal(err)
		}
		err = feed(w, data, recs)
		cerr := w.Close()
		runtime.GOMAXPROCS(prev)
		if !errors.Is(err, errFull) || !errors.Is(cerr, errFull) {
			t.Errorf("columns %v: writing %v, Close %v; want both %v", columns, err, cerr, errFull)
		}
	}
}
