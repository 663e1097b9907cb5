package block

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"sync/atomic"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

// checkByIndex decodes every block alone and every StreamFrom suffix of a
// few blocks, and compares with t.
func checkByIndex(tb testing.TB, file, t []byte) *File {
	tb.Helper()
	f, err := OpenFile(bytes.NewReader(file), int64(len(file)), ReaderOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	if f.TSize() != int64(len(t)) {
		tb.Fatalf("index says T is %d bytes, it is %d", f.TSize(), len(t))
	}
	var buf []byte
	for i, b := range f.Blocks() {
		if buf, err = f.DecodeBlock(i, buf); err != nil {
			tb.Fatal(err)
		}
		if !bytes.Equal(buf, t[b.TOffset:b.TOffset+int64(b.TSize)]) {
			tb.Fatalf("block %d differs", i)
		}
	}
	n := len(f.Blocks())
	for _, i := range []int{0, n / 3, n - 1, n} {
		r, err := f.StreamFrom(context.Background(), i)
		if err != nil {
			tb.Fatal(err)
		}
		got, err := io.ReadAll(r)
		r.Close()
		if err != nil {
			tb.Fatal(err)
		}
		from := f.TSize()
		if i < n {
			from = f.Blocks()[i].TOffset
		}
		if !bytes.Equal(got, t[from:]) {
			tb.Fatalf("StreamFrom(%d) differs", i)
		}
	}
	return f
}

// checkKeys looks up every key of recs: its record must start in one of
// the blocks Lookup names, and the block that holds its start must say so.
// It returns the share of other blocks named (false positives) per lookup.
func checkKeys(tb testing.TB, f *File, recs []record) float64 {
	tb.Helper()
	blocks := f.Blocks()
	var extra, keys int
	for _, r := range recs {
		if r.key == nil {
			continue
		}
		keys++
		i := sort.Search(len(blocks), func(i int) bool { return blocks[i].TOffset+int64(blocks[i].TSize) > r.off })
		got, err := f.Lookup(r.key)
		if err != nil {
			tb.Fatal(err)
		}
		if !slices.Contains(got, i) {
			tb.Fatalf("key %q starts at %d in block %d; Lookup says %v", r.key, r.off, i, got)
		}
		if b := blocks[i]; b.First < 0 || b.TOffset+int64(b.First) > r.off {
			tb.Fatalf("key %q starts at %d, before block %d's first record (%d+%d)", r.key, r.off, i, b.TOffset, b.First)
		}
		extra += len(got) - 1
	}
	if keys == 0 || len(blocks) < 2 {
		return 0
	}
	return float64(extra) / float64(keys) / float64(len(blocks)-1)
}

func TestRandomByIndex(t *testing.T) {
	data, recs := randomStream(5, 4000, 2000)
	d, _ := trainRdbz(t, trainSamples(data, recs, 512<<10), 16<<10, zstd.SpeedDefault)
	for _, dict := range [][]byte{nil, d} {
		file, _ := writeRecords(t, data, recs, dict, Options{BlockSize: 8 << 10})
		if got := readAll(t, file, ReaderOptions{}); !bytes.Equal(got, data) {
			t.Fatal("sequential read differs")
		}
		f := checkByIndex(t, file, data)
		t.Logf("dict %d B: %d blocks, false positives %.4f per block", len(dict), len(f.Blocks()), checkKeys(t, f, recs))
		f.Close()
	}
}

// TestCorpus round-trips the corpus's files (their bytes as T, cut at their
// records: exact for the rdbcompression-no dumps) through Writer and both
// readers, and looks up every key.
func TestCorpus(t *testing.T) {
	dir := corpusDir()
	if dir == "" {
		t.Skip("no corpus")
	}
	var files []string
	for _, sub := range []string{"generated", "public"} {
		m, _ := filepath.Glob(filepath.Join(dir, sub, "*.rdb"))
		files = append(files, m...)
	}
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if (testing.Short() || !long()) && len(data) > 1<<20 {
			continue // the larger generated files with RDBZ_LONG=1 (format 2's corpus tests in listcodec take every file)
		}
		recs, err := tryRecords(data)
		if err != nil {
			t.Logf("%s: not cut at records (%v): one record", filepath.Base(path), err)
			recs = []record{{off: 0, end: int64(len(data)), key: []byte("whole")}}
		}
		var dict []byte
		if samples := trainSamples(data, recs, 1<<20); len(samples) >= 50 && len(data) > 256<<10 {
			dict, _ = trainRdbz(t, samples, 32<<10, DefaultLevel)
		}
		file, st := writeRecords(t, data, recs, dict, Options{})
		if got := readAll(t, file, ReaderOptions{}); !bytes.Equal(got, data) {
			t.Fatalf("%s: sequential read differs", path)
		}
		f := checkByIndex(t, file, data)
		fp := checkKeys(t, f, recs)
		checkIndexShare(t, f, st, DefaultIndexShare)
		f.Close()
		if len(data) > 1<<20 {
			t.Logf("%s: %d -> %d bytes, %d blocks, %d keys, index %d B (%.2f%%), false positives %.5f per block",
				filepath.Base(path), len(data), st.Total(), st.Blocks, st.Keys, st.IndexBytes, 100*float64(st.IndexBytes)/float64(st.Total()), fp)
		}
	}
}

// checkIndexShare checks the index against its budget: share of the
// block frames, plus the fixed fields of each block, the head's own fields
// and the sections' descriptors (FORMAT.md §2.4).
func checkIndexShare(tb testing.TB, f *File, st Stats, share float64) {
	tb.Helper()
	limit := share*float64(st.FrameBytes) + 24*float64(st.Blocks) + 64 + 6*float64(int(1)<<f.partBits)
	if float64(st.IndexBytes) > limit {
		tb.Fatalf("index of %d bytes over %.0f (%d blocks, %d frame bytes, %d sections)", st.IndexBytes, limit, st.Blocks, st.FrameBytes, 1<<f.partBits)
	}
}

// TestPipelineOrder writes and reads many small blocks of very different
// cost on more goroutines than cores, so that they finish out of order.
func TestPipelineOrder(t *testing.T) {
	data, recs := randomStream(9, 20000, 300)
	for i := range recs {
		if i%3 == 0 { // incompressible records between compressible ones
			for k := recs[i].off; k < recs[i].end; k++ {
				data[k] = byte(k*2654435761>>13) ^ byte(i)
			}
		}
	}
	for _, workers := range []int{1, 3, 8} {
		file, _ := writeRecords(t, data, recs, nil, Options{BlockSize: MinBlockSize, Workers: workers, Level: zstd.SpeedBetterCompression})
		for _, ro := range []ReaderOptions{{Workers: 8, Lookahead: 3}, {Workers: 5, Lookahead: 40}, {Workers: 1, Lookahead: 1}} {
			if got := readAll(t, file, ro); !bytes.Equal(got, data) {
				t.Fatalf("writer workers %d, reader %+v: T differs", workers, ro)
			}
		}
	}
}

// patternSource is a 512 MiB record's bytes, made as they are read: text with
// a counter, so that it compresses well but not to nothing.
type patternSource struct {
	n, left int64
	buf     []byte
}

func (p *patternSource) next() []byte {
	if p.left == 0 {
		return nil
	}
	p.buf = p.buf[:0]
	for len(p.buf) < 1<<20 {
		p.buf = fmt.Appendf(p.buf, "{\"seq\":%d,\"kind\":\"event\",\"payload\":\"%08x\"}\n", p.n, p.n*2654435761)
		p.n++
	}
	k := min(int64(len(p.buf)), p.left)
	p.left -= k
	return p.buf[:k]
}

// TestHugeRecordBoundedMemory streams a 128 MiB record (512 MiB with
// RDBZ_LONG=1) between two small ones through Writer and Reader, sampling
// the heap: more than five times the bound either way.
func TestHugeRecordBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("512 MiB")
	}
	rdbiotest.DefaultGC(t) // a peak heap, as the tools collect
	size := int64(128 << 20)
	if rdbiotest.Long() {
		size = 512 << 20
	}
	const bound = 24 << 20 // heap in use beyond the start, both ways
	path := filepath.Join(t.TempDir(), "huge.rdbz")
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	// Heap in use beyond what the process held before (other tests'
	// data), sampled every 20 ms.
	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	var peak atomic.Uint64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > base.HeapInuse && ms.HeapInuse-base.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse - base.HeapInuse)
			}
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	w, err := NewWriter(context.Background(), out, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.New()
	write := func(key string, src *patternSource) {
		if err := w.Begin([]byte(key), 0); err != nil {
			t.Fatal(err)
		}
		for p := src.next(); p != nil; p = src.next() {
			sum.Write(p)
			if _, err := w.Write(p); err != nil {
				t.Fatal(err)
			}
		}
	}
	write("before", &patternSource{left: 100})
	write("huge", &patternSource{left: size, n: 7})
	write("after", &patternSource{left: 100, n: 9})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	out.Close()
	st := w.Stats()
	wpeak := peak.Load()
	in, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	r, err := NewReader(context.Background(), in, ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := sha256.New()
	n, err := io.Copy(got, r)
	r.Close()
	close(stop)
	<-done
	if err != nil || n != size+200 {
		t.Fatalf("read %d bytes: %v", n, err)
	}
	if !bytes.Equal(got.Sum(nil), sum.Sum(nil)) {
		t.Fatal("T differs")
	}
	fi, _ := os.Stat(path)
	f, err := OpenFile(in, fi.Size(), ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := f.Lookup([]byte("huge")); len(b) == 0 || b[0] != 0 {
		t.Errorf("huge: blocks %v, want 0 first", b)
	}
	if b, _ := f.Lookup([]byte("after")); !slices.Contains(b, len(f.Blocks())-1) {
		t.Errorf("after: blocks %v, want the last", b)
	}
	f.Close()
	t.Logf("%d blocks, %d bytes; peak heap in use (beyond the test's start) %.1f MiB writing, %.1f MiB in all", st.Blocks, st.Total(), float64(wpeak)/(1<<20), float64(peak.Load())/(1<<20))
	if peak.Load() > bound {
		t.Errorf("peak heap %d bytes, over %d", peak.Load(), bound)
	}
}

// blockingWriter blocks every Write until release is closed.
type blockingWriter struct{ release chan struct{} }

func (b *blockingWriter) Write(p []byte) (int, error) {
	<-b.release
	return len(p), nil
}

func TestCancel(t *testing.T) {
	before := runtime.NumGoroutine()
	data, recs := randomStream(3, 3000, 3000)
	// Writer: the output blocks, the pipeline fills, the caller waits in
	// Write; cancelling frees it.
	ctx, cancel := context.WithCancel(context.Background())
	bw := &blockingWriter{release: make(chan struct{})}
	var w *Writer
	errc := make(chan error, 1)
	go func() {
		var err error
		w, err = NewWriter(ctx, &passFirst{w: bw}, nil, Options{BlockSize: 4 << 10})
		if err != nil {
			errc <- err
			return
		}
		errc <- feed(w, data, recs)
	}()
	time.Sleep(100 * time.Millisecond)
	cancel()
	select {
	case err := <-errc:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Write after cancel: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Write did not return after cancel")
	}
	close(bw.release)
	if err := w.Close(); !errors.Is(err, context.Canceled) {
		t.Fatalf("Close after cancel: %v", err)
	}

	// Reader: cancel mid-stream.
	file, _ := writeRecords(t, data, recs, nil, Options{BlockSize: 4 << 10})
	ctx, cancel = context.WithCancel(context.Background())
	r, err := NewReader(ctx, bytes.NewReader(file), ReaderOptions{Lookahead: 2})
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 10000)
	if _, err := io.ReadFull(r, buf); err != nil {
		t.Fatal(err)
	}
	cancel()
	for err == nil {
		_, err = r.Read(buf)
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Read after cancel: %v", err)
	}
	r.Close()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines left, %d before", n, before)
	}
}

// passFirst lets the header through and hands the rest to w.
type passFirst struct {
	w    io.Writer
	done bool
}

func (p *passFirst) Write(b []byte) (int, error) {
	if !p.done {
		p.done = true
		return len(b), nil
	}
	return p.w.Write(b)
}

func TestUsage(t *testing.T) {
	var out bytes.Buffer
	w, err := NewWriter(context.Background(), &out, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte("x")); !errors.Is(err, ErrUsage) {
		t.Errorf("Write before Begin: %v", err)
	}
	if err := w.Begin(nil, 5); err != nil {
		t.Fatal(err)
	}
	if err := w.Begin(nil, 6); !errors.Is(err, ErrUsage) {
		t.Errorf("empty record: %v", err)
	}
	w.Write([]byte("x"))
	if err := w.Begin(nil, 4); !errors.Is(err, ErrUsage) {
		t.Errorf("input offset going back: %v", err)
	}
	if _, err := NewWriter(context.Background(), &out, []byte("not a dictionary"), Options{}); !errors.Is(err, ErrDictionary) {
		t.Errorf("bad dictionary: %v", err)
	}
	if _, err := NewWriter(context.Background(), &out, nil, Options{BlockSize: 100}); !errors.Is(err, ErrUsage) {
		t.Errorf("block size 100: %v", err)
	}
	// An empty T is a valid file.
	out.Reset()
	w, _ = NewWriter(context.Background(), &out, nil, Options{})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got := readAll(t, out.Bytes(), ReaderOptions{}); len(got) != 0 {
		t.Fatal("empty T")
	}
	f, err := OpenFile(bytes.NewReader(out.Bytes()), int64(out.Len()), ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if b, err := f.Lookup([]byte("k")); len(f.Blocks()) != 0 || len(b) != 0 || err != nil {
		t.Fatal("empty file has blocks")
	}
	if _, err := f.DecodeBlock(0, nil); !errors.Is(err, ErrUsage) {
		t.Errorf("DecodeBlock out of range: %v", err)
	}
	t.Logf("empty file: %d bytes", out.Len())
}
