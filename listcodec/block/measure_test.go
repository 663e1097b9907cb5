package block

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/rdbz/rdbz/train"
)

// The measurements behind the defaults (docs/compress.md, "Format 2 design
// measurements"). Not part of the suite: RDBZ_MEASURE=1 runs them, on the
// corpus's rdbcompression-no dumps, or on the files named in
// RDBZ_MEASURE_FILES (comma-separated; e.g. gen-corpus OUT 4 --only
// app-cache-nocompress), printing markdown rows. Times are
// the least of RDBZ_MEASURE_RUNS (3) runs; whole-file zstd runs beside.

const sampleChunk = 4 << 10 // samples: one record each, records over 4 KiB cut in 4 KiB pieces

// trainSamples cuts T at records into samples and keeps a uniform sample of
// budget bytes of them.
func trainSamples(t []byte, recs []record, budget int64) [][]byte {
	s := train.NewSampler[[]byte](budget, 1)
	for _, r := range recs {
		for off := r.off; off < r.end; off += sampleChunk {
			p := t[off:min(off+sampleChunk, r.end)]
			s.Add(int64(len(p)), func() []byte { return bytes.Clone(p) })
		}
	}
	return s.Samples()
}

func trainRdbz(tb testing.TB, samples [][]byte, size int, level zstd.EncoderLevel) ([]byte, time.Duration) {
	start := time.Now()
	res, err := train.Train(samples, train.Params{DictSize: size, Seed: 1, Level: level})
	if err != nil {
		tb.Fatal(err)
	}
	return res.Dict, time.Since(start)
}

func trainZstdCLI(tb testing.TB, samples [][]byte, size int) ([]byte, time.Duration) {
	dir := tb.TempDir()
	sd := filepath.Join(dir, "s")
	if err := os.Mkdir(sd, 0o755); err != nil {
		tb.Fatal(err)
	}
	for i, s := range samples {
		if err := os.WriteFile(filepath.Join(sd, strconv.Itoa(i)), s, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	out := filepath.Join(dir, "dict")
	start := time.Now()
	cmd := exec.Command("zstd", "-q", "--train", "-r", sd, "--maxdict="+strconv.Itoa(size), "--dictID=40000", "-o", out)
	if b, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("zstd --train: %v: %s", err, b)
	}
	el := time.Since(start)
	d, err := os.ReadFile(out)
	if err != nil {
		tb.Fatal(err)
	}
	return d, el
}

type result struct {
	size         int64
	index        int64
	comp, decomp time.Duration
	fp           float64
	blocks       int
}

func runs() int {
	if n, err := strconv.Atoi(os.Getenv("RDBZ_MEASURE_RUNS")); err == nil && n > 0 {
		return n
	}
	return 3
}

func measureOne(tb testing.TB, t []byte, recs []record, dict []byte, opt Options, fp bool) result {
	var res result
	var file []byte
	for i := range runs() {
		start := time.Now()
		f, st := writeRecords(tb, t, recs, dict, opt)
		el := time.Since(start)
		if i == 0 || el < res.comp {
			res.comp = el
		}
		file = f
		res.size, res.index, res.blocks = st.Total(), st.IndexBytes, st.Blocks
	}
	for i := range runs() {
		start := time.Now()
		r, err := NewReader(context.Background(), bytes.NewReader(file), ReaderOptions{})
		if err != nil {
			tb.Fatal(err)
		}
		n, err := io.Copy(io.Discard, r)
		r.Close()
		el := time.Since(start)
		if err != nil || n != int64(len(t)) {
			tb.Fatalf("decoded %d of %d bytes: %v", n, len(t), err)
		}
		if i == 0 || el < res.decomp {
			res.decomp = el
		}
	}
	if fp {
		res.fp = falsePositives(tb, file, 2000)
	}
	return res
}

// falsePositives is the share of blocks whose filter admits a key that is
// in no block.
func falsePositives(tb testing.TB, file []byte, probes int) float64 {
	f, err := OpenFile(bytes.NewReader(file), int64(len(file)), ReaderOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	rng := rand.New(rand.NewPCG(7, 7))
	hits := 0
	for range probes {
		k := fmt.Appendf(nil, "absent:%d", rng.Uint64())
		got, err := f.Lookup(k)
		if err != nil {
			tb.Fatal(err)
		}
		hits += len(got)
	}
	return float64(hits) / float64(probes) / float64(len(f.Blocks()))
}

func zstdCLI(tb testing.TB, path string, args ...string) (int64, time.Duration, time.Duration) {
	var best, bestD time.Duration
	var size int64
	out := filepath.Join(tb.TempDir(), "z.zst")
	for i := range runs() {
		start := time.Now()
		cmd := exec.Command("zstd", append(append([]string{"-q", "-f"}, args...), path, "-o", out)...)
		if b, err := cmd.CombinedOutput(); err != nil {
			tb.Fatalf("zstd: %v: %s", err, b)
		}
		if el := time.Since(start); i == 0 || el < best {
			best = el
		}
		st, _ := os.Stat(out)
		size = st.Size()
		start = time.Now()
		cmd = exec.Command("zstd", "-q", "-d", "-c", out)
		cmd.Stdout = io.Discard
		if err := cmd.Run(); err != nil {
			tb.Fatal(err)
		}
		if el := time.Since(start); i == 0 || el < bestD {
			bestD = el
		}
	}
	return size, best, bestD
}

func levelName(l zstd.EncoderLevel) string {
	return map[zstd.EncoderLevel]string{zstd.SpeedFastest: "fastest", zstd.SpeedDefault: "default", zstd.SpeedBetterCompression: "better"}[l]
}

func TestMeasureFormat2(t *testing.T) {
	if os.Getenv("RDBZ_MEASURE") == "" {
		t.Skip("RDBZ_MEASURE=1 runs the format-2 design measurements")
	}
	dir := corpusDir()
	var files []string
	if dir != "" && os.Getenv("RDBZ_MEASURE_FILES") == "" {
		for _, n := range []string{"app-cache-nocompress.rdb", "mixed-nocompress.rdb", "lists-events.rdb"} {
			files = append(files, filepath.Join(dir, "generated", n))
		}
	}
	if f := os.Getenv("RDBZ_MEASURE_FILES"); f != "" {
		files = append(files, strings.Split(f, ",")...)
	}
	grid := os.Getenv("RDBZ_MEASURE_GRID") // "full" (default), "defaults"
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		recs := rdbRecords(t, data)
		keys := 0
		for _, r := range recs {
			if r.key != nil {
				keys++
			}
		}
		name := filepath.Base(path)
		mb := func(n int64) string { return fmt.Sprintf("%.2f MB", float64(n)/1e6) }
		sec := func(d time.Duration) string { return fmt.Sprintf("%.3f s", d.Seconds()) }
		fmt.Printf("\n### %s: %s, %d records, %d keys\n\n", name, mb(int64(len(data))), len(recs), keys)
		var z3 int64
		for _, a := range [][]string{{"-3", "-T2"}, {"-1", "-T2"}} {
			s, c, d := zstdCLI(t, path, a...)
			if z3 == 0 {
				z3 = s
			}
			fmt.Printf("| zstd %s %s (whole file) | | | | %s | %s | %s | | |\n", a[0], a[1], mb(s), sec(c), sec(d))
		}
		samples := trainSamples(data, recs, 2<<20)
		dicts := map[string][]byte{"none": nil}
		for _, size := range []int{32 << 10, 64 << 10, 110 << 10} {
			d, el := trainRdbz(t, samples, size, zstd.SpeedDefault)
			k := fmt.Sprintf("rdbz %d KiB", size>>10)
			dicts[k] = d
			fmt.Printf("| train %s (2 MiB sample, %d samples) | | got %d B | | | %s | | | |\n", k, len(samples), len(d), sec(el))
		}
		zd, el := trainZstdCLI(t, samples, 110<<10)
		dicts["zstd 110 KiB"] = zd
		fmt.Printf("| zstd --train 110 KiB (same samples) | | got %d B | | | %s | | | |\n", len(zd), sec(el))
		fmt.Printf("\n| config | block | dict | level | output | compress | decode | index | FP/block |\n| --- | ---: | --- | --- | ---: | ---: | ---: | ---: | ---: |\n")
		row := func(bs int, dn string, level zstd.EncoderLevel) {
			r := measureOne(t, data, recs, dicts[dn], Options{BlockSize: bs, Level: level}, true)
			fmt.Printf("| | %d KiB | %s | %s | %s (%.3f× zstd -3) | %s | %s | %.2f%% | %.3f |\n",
				bs>>10, dn, levelName(level), mb(r.size), float64(r.size)/float64(z3), sec(r.comp), sec(r.decomp), 100*float64(r.index)/float64(r.size), r.fp)
		}
		if grid != "defaults" {
			for _, bs := range []int{16 << 10, 32 << 10, 64 << 10, 128 << 10, 256 << 10} {
				for _, dn := range []string{"none", "rdbz 110 KiB"} {
					row(bs, dn, zstd.SpeedDefault)
				}
			}
			for _, dn := range []string{"rdbz 32 KiB", "rdbz 64 KiB", "zstd 110 KiB"} {
				row(64<<10, dn, zstd.SpeedDefault)
			}
			for _, l := range []zstd.EncoderLevel{zstd.SpeedFastest, zstd.SpeedBetterCompression} {
				row(64<<10, "rdbz 110 KiB", l)
			}
			// Combinations of the best of each.
			for _, bs := range []int{64 << 10, 128 << 10} {
				for _, l := range []zstd.EncoderLevel{zstd.SpeedFastest, zstd.SpeedDefault, zstd.SpeedBetterCompression} {
					row(bs, "rdbz 32 KiB", l)
				}
			}
		} else {
			row(DefaultBlockSize, "rdbz 64 KiB", DefaultLevel)
		}
	}
}

// TestMeasureDefaults compares candidate defaults with whole-file zstd in
// turns (each run: zstd -3 -T2, zstd -d, then every candidate), least of
// RDBZ_MEASURE_RUNS, on the files of RDBZ_MEASURE_FILES; and what the
// index share buys in lookups.
func TestMeasureDefaults(t *testing.T) {
	if os.Getenv("RDBZ_MEASURE") != "defaults" {
		t.Skip("RDBZ_MEASURE=defaults runs it")
	}
	type cand struct {
		name   string
		bs     int
		level  zstd.EncoderLevel
		dict   int   // KiB, 0 none
		sample int64 // sample bytes
		share  float64
	}
	cands := []cand{
		{"128K/32K/default", 128 << 10, zstd.SpeedDefault, 32, 2 << 20, 0.01},
		{"128K/32K/default, 1 MiB sample", 128 << 10, zstd.SpeedDefault, 32, 1 << 20, 0.01},
		{"128K/32K/better", 128 << 10, zstd.SpeedBetterCompression, 32, 2 << 20, 0.01},
		{"128K/32K/fastest", 128 << 10, zstd.SpeedFastest, 32, 2 << 20, 0.01},
		{"64K/32K/default", 64 << 10, zstd.SpeedDefault, 32, 2 << 20, 0.01},
		{"256K/32K/default", 256 << 10, zstd.SpeedDefault, 32, 2 << 20, 0.01},
		{"128K/32K/default, index 0.5%", 128 << 10, zstd.SpeedDefault, 32, 2 << 20, 0.005},
		{"128K/32K/default, index 0.25%", 128 << 10, zstd.SpeedDefault, 32, 2 << 20, 0.0025},
	}
	for _, path := range strings.Split(os.Getenv("RDBZ_MEASURE_FILES"), ",") {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		recs := rdbRecords(t, data)
		type best struct {
			size                int64
			train, comp, decomp time.Duration
			index               int64
			fp                  float64
			lookup              time.Duration
			blocks              int
		}
		res := make([]best, len(cands))
		var z3c, z3d, z1c time.Duration
		var z3s, z1s int64
		upd := func(d *time.Duration, v time.Duration, first bool) {
			if first || v < *d {
				*d = v
			}
		}
		for run := range runs() {
			first := run == 0
			s, c, d := zstdCLIOnce(t, path, "-3", "-T2")
			z3s = s
			upd(&z3c, c, first)
			upd(&z3d, d, first)
			s, c, _ = zstdCLIOnce(t, path, "-1", "-T2")
			z1s = s
			upd(&z1c, c, first)
			for i, c := range cands {
				start := time.Now()
				var dict []byte
				if c.dict > 0 {
					samples := trainSamples(data, recs, c.sample)
					dict, _ = trainRdbz(t, samples, c.dict<<10, c.level)
				}
				tr := time.Since(start)
				start = time.Now()
				file, st := writeRecords(t, data, recs, dict, Options{BlockSize: c.bs, Level: c.level, IndexShare: c.share})
				cp := time.Since(start)
				start = time.Now()
				r, err := NewReader(context.Background(), bytes.NewReader(file), ReaderOptions{})
				if err != nil {
					t.Fatal(err)
				}
				io.Copy(io.Discard, r)
				r.Close()
				dc := time.Since(start)
				b := &res[i]
				b.size, b.index, b.blocks = st.Total(), st.IndexBytes, st.Blocks
				upd(&b.train, tr, first)
				upd(&b.comp, cp, first)
				upd(&b.decomp, dc, first)
				if first {
					b.fp = falsePositives(t, file, 1000)
					b.lookup = lookupTime(t, file, recs, 300)
				}
			}
		}
		fmt.Printf("\n### %s (%.1f MB), least of %d runs in turns\n\n", filepath.Base(path), float64(len(data))/1e6, runs())
		fmt.Printf("| | output | / zstd -3 | train | compress | train + compress / zstd -3 | decode / zstd -d | index | FP per block | blocks | lookup (filters + decoding) |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
		fmt.Printf("| zstd -3 -T2 | %.2f MB | 1 | | %.3f s | | %.3f s (zstd -d) | | | | |\n", float64(z3s)/1e6, z3c.Seconds(), z3d.Seconds())
		fmt.Printf("| zstd -1 -T2 | %.2f MB | %.3f | | %.3f s | | | | | | |\n", float64(z1s)/1e6, float64(z1s)/float64(z3s), z1c.Seconds())
		for i, c := range cands {
			b := res[i]
			fmt.Printf("| %s | %.2f MB | %.3f | %.3f s | %.3f s | %.2f | %.3f s (%.2f) | %.2f%% | %.4f | %d | %.2f ms |\n", c.name, float64(b.size)/1e6, float64(b.size)/float64(z3s),
				b.train.Seconds(), b.comp.Seconds(), (b.train+b.comp).Seconds()/z3c.Seconds(), b.decomp.Seconds(), b.decomp.Seconds()/z3d.Seconds(),
				100*float64(b.index)/float64(b.size), b.fp, b.blocks, float64(b.lookup.Microseconds())/1000)
		}
	}
}

func zstdCLIOnce(tb testing.TB, path string, args ...string) (int64, time.Duration, time.Duration) {
	out := filepath.Join(tb.TempDir(), "z.zst")
	start := time.Now()
	cmd := exec.Command("zstd", append(append([]string{"-q", "-f"}, args...), path, "-o", out)...)
	if b, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("zstd: %v: %s", err, b)
	}
	c := time.Since(start)
	st, _ := os.Stat(out)
	start = time.Now()
	cmd = exec.Command("zstd", "-q", "-d", "-c", out)
	cmd.Stdout = io.Discard
	if err := cmd.Run(); err != nil {
		tb.Fatal(err)
	}
	return st.Size(), c, time.Since(start)
}

// lookupTime is the mean time to find n keys of recs: Lookup, then decode
// every block it names.
func lookupTime(tb testing.TB, file []byte, recs []record, n int) time.Duration {
	f, err := OpenFile(bytes.NewReader(file), int64(len(file)), ReaderOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var keys [][]byte
	for i := 0; i < len(recs) && len(keys) < n; i += max(1, len(recs)/n) {
		if recs[i].key != nil {
			keys = append(keys, recs[i].key)
		}
	}
	start := time.Now()
	var buf []byte
	for _, k := range keys {
		got, err := f.Lookup(k)
		if err != nil {
			tb.Fatal(err)
		}
		for _, b := range got {
			if buf, err = f.DecodeBlock(b, buf); err != nil {
				tb.Fatal(err)
			}
		}
	}
	return time.Since(start) / time.Duration(max(len(keys), 1))
}

// cpuTime is the process's user + system time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestMeasureLevels measures CPU time (less disturbed by the other users
// of the machine than wall time) of writing and reading at each level,
// 128 KiB blocks, a 32 KiB dictionary.
func TestMeasureLevels(t *testing.T) {
	if os.Getenv("RDBZ_MEASURE") != "levels" {
		t.Skip("RDBZ_MEASURE=levels runs it")
	}
	for _, path := range strings.Split(os.Getenv("RDBZ_MEASURE_FILES"), ",") {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		recs := rdbRecords(t, data)
		samples := trainSamples(data, recs, 2<<20)
		fmt.Printf("\n### %s: CPU seconds, least of %d\n\n| block | dict | level | output | train CPU | write CPU | write wall | read CPU | read wall |\n| ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n", filepath.Base(path), runs())
		type cfg struct {
			bs, dict int
			l        zstd.EncoderLevel
		}
		var cfgs []cfg
		for _, bs := range []int{128 << 10, 256 << 10} {
			for _, l := range []zstd.EncoderLevel{zstd.SpeedFastest, zstd.SpeedDefault, zstd.SpeedBetterCompression} {
				cfgs = append(cfgs, cfg{bs, 32 << 10, l})
			}
		}
		cfgs = append(cfgs, cfg{128 << 10, 0, zstd.SpeedDefault}, cfg{128 << 10, 0, zstd.SpeedFastest})
		for _, c := range cfgs {
			l := c.l
			var trc, wc, ww, rc, rw time.Duration
			var size int64
			for run := range runs() {
				c0 := cpuTime()
				var dict []byte
				if c.dict > 0 {
					dict, _ = trainRdbz(t, samples, c.dict, l)
				}
				c1, w1 := cpuTime(), time.Now()
				file, st := writeRecords(t, data, recs, dict, Options{BlockSize: c.bs, Level: l})
				c2, w2 := cpuTime(), time.Now()
				r, _ := NewReader(context.Background(), bytes.NewReader(file), ReaderOptions{})
				io.Copy(io.Discard, r)
				r.Close()
				c3, w3 := cpuTime(), time.Now()
				size = st.Total()
				first := run == 0
				for _, p := range []struct {
					d *time.Duration
					v time.Duration
				}{{&trc, c1 - c0}, {&wc, c2 - c1}, {&ww, w2.Sub(w1)}, {&rc, c3 - c2}, {&rw, w3.Sub(w2)}} {
					if first || p.v < *p.d {
						*p.d = p.v
					}
				}
			}
			fmt.Printf("| %d KiB | %d KiB | %s | %.2f MB | %.2f | %.2f | %.2f | %.2f | %.2f |\n", c.bs>>10, c.dict>>10, levelName(l), float64(size)/1e6, trc.Seconds(), wc.Seconds(), ww.Seconds(), rc.Seconds(), rw.Seconds())
		}
	}
}

// TestMeasureMove measures where a record that does not fit a full block
// should go: moved whole to the next block when it starts at MinMove or
// later, else continued. Sizes only (deterministic).
func TestMeasureMove(t *testing.T) {
	if os.Getenv("RDBZ_MEASURE") != "move" {
		t.Skip("RDBZ_MEASURE=move runs it")
	}
	for _, path := range strings.Split(os.Getenv("RDBZ_MEASURE_FILES"), ",") {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		recs := rdbRecords(t, data)
		dict, _ := trainRdbz(t, trainSamples(data, recs, 2<<20), DefaultDictSize, DefaultLevel)
		fmt.Printf("\n### %s\n\n| MinMove | output | blocks | blocks starting inside a record |\n| --- | ---: | ---: | ---: |\n", filepath.Base(path))
		bs := DefaultBlockSize
		for _, mm := range []int{1, bs / 8, bs / 4, bs / 2, bs} {
			file, st := writeRecords(t, data, recs, dict, Options{MinMove: mm})
			f, err := OpenFile(bytes.NewReader(file), int64(len(file)), ReaderOptions{})
			if err != nil {
				t.Fatal(err)
			}
			inside := 0
			for _, b := range f.Blocks() {
				if b.First != 0 {
					inside++
				}
			}
			f.Close()
			fmt.Printf("| %d | %d | %d | %d |\n", mm, st.Total(), st.Blocks, inside)
		}
	}
}
