package columns

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/rdbz/rdbz/listcodec/tstream"
)

// TestMeasureSpeed is the side-by-side run of MEASURED.md: for each file,
// whole-file zstd -3 -T2 and zstd -d, then the codec in a pipeline like the
// one format 2 will run — tstream.EncodeT feeding a Splitter on the reading
// goroutine, segments compressed by two workers, written to a temporary
// file — and back: segments read and decoded by two workers into T. Least
// of RDBZ_MEASURE_RUNS (3) runs; peak RSS (VmHWM) of a run in a process of
// its own. Behind RDBZ_MEASURE=speed:
//
//	RDBZ_MEASURE=speed RDBZ_MEASURE_FILES=a.rdb,b.rdb RDBZ_MEASURE_LEVELS=default,better \
//	    go test ./listcodec/columns -run MeasureSpeed -v -timeout 0
func TestMeasureSpeed(t *testing.T) {
	if os.Getenv("RDBZ_MEASURE") != "speed" {
		t.Skip("RDBZ_MEASURE=speed runs the speed measurement")
	}
	if os.Getenv("RDBZ_SPEED_CHILD") != "" {
		speedChild(t)
		return
	}
	runs := 3
	if v := os.Getenv("RDBZ_MEASURE_RUNS"); v != "" {
		runs, _ = strconv.Atoi(v)
	}
	levels := strings.Split(os.Getenv("RDBZ_MEASURE_LEVELS"), ",")
	if levels[0] == "" {
		levels = []string{"default"}
	}
	seg := os.Getenv("RDBZ_MEASURE_SEG")
	if seg == "" {
		seg = "4"
	}
	for _, path := range strings.Split(os.Getenv("RDBZ_MEASURE_FILES"), ",") {
		if path == "" {
			continue
		}
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		z3, tz3, cz3 := zstdCLI(t, runs, "-3", "-T2", "-c", path)
		zc := filepath.Join(t.TempDir(), "z.zst")
		if err := exec.Command("sh", "-c", "zstd -3 -T2 -q -c "+path+" > "+zc).Run(); err != nil {
			t.Fatal(err)
		}
		_, tzd, czd := zstdCLI(t, runs, "-d", "-c", zc)
		t.Logf("%s: %d bytes; zstd -3 -T2 %d bytes %.2fs (CPU %.2fs), zstd -d %.2fs (CPU %.2fs)", filepath.Base(path), fi.Size(), z3, tz3, cz3, tzd, czd)
		for _, l := range levels {
			best := map[string]float64{}
			var line string
			for range runs {
				cmd := exec.Command(os.Args[0], "-test.run", "^TestMeasureSpeed$", "-test.v")
				cmd.Env = append(os.Environ(), "RDBZ_SPEED_CHILD="+path, "RDBZ_MEASURE_LEVELS="+l, "RDBZ_MEASURE_SEG="+seg)
				if l == "best" && os.Getenv("RDBZ_MEASURE_WORKERS") == "" {
					cmd.Env = append(cmd.Env, "RDBZ_MEASURE_WORKERS=1") // its encoder's tables take 34 MiB
				}
				out, err := cmd.CombinedOutput()
				if err != nil {
					t.Fatalf("%s", out)
				}
				for _, line := range strings.Split(string(out), "\n") {
					if strings.Contains(line, "segment buffers") {
						t.Log(strings.TrimSpace(line))
					}
				}
				m := parseChild(t, out)
				for k, v := range m {
					if _, ok := best[k]; !ok || v < best[k] && k != "size" {
						best[k] = v
					}
				}
			}
			line = fmt.Sprintf("  %-8s %d MiB%s: %d bytes (%.3f× zstd -3); T encoding %.2fs (CPU %.2fs); compress %.2fs (%.2f×), CPU %.2fs (%.2f×), RSS %.0f MiB; decompress %.2fs (%.2f× zstd -d), CPU %.2fs (%.2f×), RSS %.0f MiB",
				l, atoi(seg), map[bool]string{true: ", 1 worker"}[l == "best" && os.Getenv("RDBZ_MEASURE_WORKERS") == ""], int64(best["size"]), best["size"]/float64(z3), best["tenc"], best["tcpu"], best["comp"], best["comp"]/tz3, best["ccpu"], best["ccpu"]/cz3, best["crss"],
				best["dec"], best["dec"]/tzd, best["dcpu"], best["dcpu"]/czd, best["drss"])
			t.Log(line)
		}
	}
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

func parseChild(t *testing.T, out []byte) map[string]float64 {
	m := map[string]float64{}
	for _, line := range strings.Split(string(out), "\n") {
		i := strings.Index(line, "RESULT ")
		if i < 0 {
			continue
		}
		for _, kv := range strings.Fields(line[i+7:]) {
			k, v, _ := strings.Cut(kv, "=")
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatalf("%q", line)
			}
			m[k] = f
		}
	}
	if len(m) == 0 {
		t.Fatalf("no result: %s", out)
	}
	return m
}

// zstdCLI runs zstd with args (output to a pipe counted) runs times and
// returns the output size, the least wall time and the least CPU time
// (user + system).
func zstdCLI(t *testing.T, runs int, args ...string) (int64, float64, float64) {
	best, bcpu := 1e9, 1e9
	var n int64
	for range runs {
		cmd := exec.Command("zstd", append([]string{"-q"}, args...)...)
		var c countW
		cmd.Stdout = &c
		start := time.Now()
		if err := cmd.Run(); err != nil {
			t.Fatal(err)
		}
		best = min(best, time.Since(start).Seconds())
		ps := cmd.ProcessState
		bcpu = min(bcpu, (ps.UserTime() + ps.SystemTime()).Seconds())
		n = c.n
	}
	return n, best, bcpu
}

// cpuNow is this process's CPU time so far (user + system), in seconds.
func cpuNow() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

type countW struct{ n int64 }

func (c *countW) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

// speedChild measures one file at one level in this process: T encoding
// alone, then compress, then decompress, printing a RESULT line.
func speedChild(t *testing.T) {
	path := os.Getenv("RDBZ_SPEED_CHILD")
	ok, level := zstd.EncoderLevelFromString(os.Getenv("RDBZ_MEASURE_LEVELS"))
	if !ok {
		t.Fatal("level")
	}
	segSize := atoi(os.Getenv("RDBZ_MEASURE_SEG")) << 20
	tmp := filepath.Join(t.TempDir(), "segs")
	if v := os.Getenv("RDBZ_MEASURE_MEMLIMIT"); v != "" {
		debug.SetMemoryLimit(int64(atoi(v)) << 20)
	}

	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	start, c0 := time.Now(), cpuNow()
	if _, err := tstream.EncodeT(discardSink{}, bufio.NewReaderSize(f, 1<<20), tstream.Options{}, nil); err != nil {
		t.Fatal(err)
	}
	tenc, tcpu := time.Since(start), cpuNow()-c0
	f.Close()

	if p := os.Getenv("RDBZ_MEASURE_CPUPROF"); p != "" {
		pf, _ := os.Create(p)
		pprof.StartCPUProfile(pf)
	}
	start, c0 = time.Now(), cpuNow()
	size := compressFile(t, path, tmp, level, segSize)
	comp, ccpu := time.Since(start), cpuNow()-c0
	if os.Getenv("RDBZ_MEASURE_CPUPROF") != "" {
		pprof.StopCPUProfile()
	}
	crss := vmHWM()

	if p := os.Getenv("RDBZ_MEASURE_DCPUPROF"); p != "" {
		pf, _ := os.Create(p)
		pprof.StartCPUProfile(pf)
	}
	start, c0 = time.Now(), cpuNow()
	tlen := decompressFile(t, tmp)
	dec, dcpu := time.Since(start), cpuNow()-c0
	if os.Getenv("RDBZ_MEASURE_DCPUPROF") != "" {
		pprof.StopCPUProfile()
	}
	t.Logf("RESULT size=%d tenc=%.3f tcpu=%.3f comp=%.3f ccpu=%.3f crss=%.1f dec=%.3f dcpu=%.3f drss=%.1f tlen=%d",
		size, tenc.Seconds(), tcpu, comp.Seconds(), ccpu, crss, dec.Seconds(), dcpu, vmHWM(), tlen)
}

type discardSink struct{}

func (discardSink) Begin([]byte, int64) error   { return nil }
func (discardSink) Write(p []byte) (int, error) { return len(p), nil }

// vmHWM is this process's peak RSS in MiB.
func vmHWM() float64 {
	b, _ := os.ReadFile("/proc/self/status")
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			f := strings.Fields(line)
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb / 1024
		}
	}
	return 0
}

// segSink is the TSink of the compress pipeline: it gathers each record
// whole (a record over a quarter of a segment goes on in Raw pieces), cuts
// segments, and hands them to the workers.
type segSink struct {
	s       *Splitter
	segSize int
	rec     []byte
	key     bool
	raw     bool // the record goes on in pieces
	free    chan *Segment
	bufs    map[*Segment]*[]byte
	work    chan job
	order   chan job
}

type job struct {
	seg *Segment
	buf *[]byte // the compressed segment, recycled with seg
	out chan []byte
}

func (w *segSink) Begin(key []byte, _ int64) error {
	w.flush()
	w.key, w.raw = key != nil, false
	return nil
}

func (w *segSink) Write(p []byte) (int, error) {
	if w.raw {
		w.piece(p)
		return len(p), nil
	}
	w.rec = append(w.rec, p...)
	if len(w.rec) > w.segSize/4 {
		w.raw = true
		r := w.rec
		w.rec = w.rec[:0]
		w.piece(r)
	}
	return len(p), nil
}

func (w *segSink) piece(p []byte) {
	for len(p) > 0 {
		n := min(len(p), w.segSize-w.s.Len())
		if n == 0 {
			w.cut()
			continue
		}
		w.s.Raw(p[:n])
		p = p[n:]
	}
}

// flush hands the gathered record to the Splitter.
func (w *segSink) flush() {
	if len(w.rec) == 0 {
		return
	}
	if w.s.Len() > 0 && w.s.Len()+len(w.rec) > w.segSize {
		w.cut()
	}
	w.s.Record(w.rec, w.key)
	w.rec = w.rec[:0]
}

func (w *segSink) cut() {
	if w.s.Len() == 0 {
		return
	}
	seg := w.s.Finish()
	if w.bufs[seg] == nil {
		w.bufs[seg] = new([]byte)
	}
	j := job{seg: seg, buf: w.bufs[seg], out: make(chan []byte, 1)}
	w.order <- j
	w.work <- j
	w.s.Start(<-w.free)
}

func compressFile(t *testing.T, path, tmp string, level zstd.EncoderLevel, segSize int) int64 {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out, err := os.Create(tmp)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	workers := 2
	if v := os.Getenv("RDBZ_MEASURE_WORKERS"); v != "" {
		workers = atoi(v)
	}
	w := &segSink{s: NewSplitter(), segSize: segSize, free: make(chan *Segment, workers+1), work: make(chan job, workers), order: make(chan job, workers), bufs: map[*Segment]*[]byte{}}
	for range workers {
		w.free <- &Segment{}
	}
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			enc, err := NewEncoder(Options{Level: level, SegmentSize: segSize, Window: atoi(os.Getenv("RDBZ_MEASURE_WINDOW")) << 20})
			if err != nil {
				panic(err)
			}
			defer enc.Close()
			for j := range w.work {
				b, err := enc.Encode((*j.buf)[:0], j.seg)
				if err != nil {
					panic(err)
				}
				*j.buf = b
				j.out <- b
			}
		}()
	}
	var total int64
	wdone := make(chan struct{})
	go func() {
		defer close(wdone)
		bw := bufio.NewWriter(out)
		var hdr [binary.MaxVarintLen64]byte
		nseg := 0
		for j := range w.order {
			b := <-j.out
			if nseg++; nseg == 12 && os.Getenv("RDBZ_MEASURE_HEAPPROF") != "" {
				runtime.GC()
				hf, _ := os.Create(os.Getenv("RDBZ_MEASURE_HEAPPROF"))
				pprof.Lookup("heap").WriteTo(hf, 0)
				hf.Close()
			}
			bw.Write(hdr[:binary.PutUvarint(hdr[:], uint64(len(b)))])
			bw.Write(b)
			total += int64(len(b))
			w.free <- j.seg
		}
		bw.Flush()
	}()
	w.s.Start(&Segment{})
	if _, err := tstream.EncodeT(w, bufio.NewReaderSize(f, 1<<20), tstream.Options{}, nil); err != nil {
		t.Fatal(err)
	}
	w.flush()
	w.cut()
	close(w.work)
	close(w.order)
	wg.Wait()
	<-wdone
	if os.Getenv("RDBZ_MEASURE_CAPS") != "" {
		var caps []int
		for _, seg := range []*Segment{<-w.free, <-w.free, w.s.seg} {
			c := 0
			for _, b := range seg.bufs {
				c += cap(b)
			}
			caps = append(caps, c>>20)
		}
		st := &w.s.sort
		t.Logf("segment buffers (MiB): %v; sorter scratch %d MiB; record buffer %d MiB", caps, (cap(st.data)+cap(st.lens)+cap(st.order))>>20, cap(w.rec)>>20)
	}
	return total
}

func decompressFile(t *testing.T, tmp string) int64 {
	f, err := os.Open(tmp)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<20)
	const workers = 2
	type djob struct {
		src  []byte
		done chan int
	}
	work := make(chan djob, workers)
	order := make(chan djob, workers)
	pool := make(chan []byte, 2*workers+1)
	for range cap(pool) {
		pool <- nil
	}
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			dec, err := NewDecoder(0)
			if err != nil {
				panic(err)
			}
			defer dec.Close()
			var out []byte
			for j := range work {
				if out, err = dec.Decode(out, j.src); err != nil {
					panic(err)
				}
				j.done <- len(out)
				pool <- j.src
			}
		}()
	}
	var tlen int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		for j := range order {
			tlen += int64(<-j.done)
		}
	}()
	for {
		n, err := binary.ReadUvarint(br)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		src := <-pool
		if cap(src) < int(n) {
			src = make([]byte, n)
		}
		src = src[:n]
		if _, err := io.ReadFull(br, src); err != nil {
			t.Fatal(err)
		}
		j := djob{src: src, done: make(chan int, 1)}
		order <- j
		work <- j
	}
	close(work)
	close(order)
	wg.Wait()
	<-done
	return tlen
}
