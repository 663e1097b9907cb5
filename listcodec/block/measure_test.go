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
			train.AddBytes(s, t[off:min(off+sampleChunk, r.end)])
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
		hits += len(f.Lookup(k))
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
