package train

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
)

// cachedZstdDict returns zstd --train's dictionary for a set, cached across
// runs in the temporary directory.
func cachedZstdDict(t *testing.T, s sampleSet, dictSize int) []byte {
	dir := filepath.Join(os.TempDir(), "rdbz-train-exp")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var n int
	for _, x := range s.train {
		n += len(x)
	}
	p := filepath.Join(dir, fmt.Sprintf("%s-%d-%d-%d.zstd", s.name, len(s.train), n, dictSize))
	if b, err := os.ReadFile(p); err == nil {
		return b
	}
	d, _ := zstdTrain(t, s.train, dictSize, 40000)
	if err := os.WriteFile(p, d, 0o644); err != nil {
		t.Fatal(err)
	}
	return d
}

// TestExperiment compares internal configurations (experimentVariants) with
// zstd --train. It is for tuning and runs only with RDBZ_TRAIN_EXPERIMENT=1;
// RDBZ_TRAIN_DICTS lists the dictionary sizes (default "16384,65536").
// Each cell is ours/zstd on the held-out samples, the CPU time of the
// build, and the k/d chosen.
func TestExperiment(t *testing.T) {
	if os.Getenv("RDBZ_TRAIN_EXPERIMENT") == "" {
		t.Skip("set RDBZ_TRAIN_EXPERIMENT=1 to run the tuning experiment")
	}
	needZstd(t)
	sizes := []int{16 << 10, 64 << 10}
	if v := os.Getenv("RDBZ_TRAIN_DICTS"); v != "" {
		sizes = nil
		for _, f := range strings.Split(v, ",") {
			n, err := strconv.Atoi(f)
			if err != nil {
				t.Fatalf("RDBZ_TRAIN_DICTS=%q: %v", v, err)
			}
			sizes = append(sizes, n)
		}
	}
	variants := experimentVariants()
	sets := comparisonSets(t, sampleMB(t, 8))
	header := fmt.Sprintf("%-20s %5s %8s %8s", "set", "dict", "nodict", "zstd")
	for _, v := range variants {
		header += fmt.Sprintf(" %25s", v.name)
	}
	t.Log(header)
	for _, s := range sets {
		nd, err := compressedSize(nil, s.eval, zstd.SpeedDefault)
		if err != nil {
			t.Fatal(err)
		}
		for _, size := range sizes {
			zs, err := compressedSize(cachedZstdDict(t, s, size), s.eval, zstd.SpeedDefault)
			if err != nil {
				t.Fatal(err)
			}
			line := fmt.Sprintf("%-20s %4dK %8d %8d", s.name, size>>10, nd, zs)
			for _, v := range variants {
				cfg := defaultConfig
				p := Params{DictSize: size, ID: 40000, Seed: 1}
				if v.cfg != nil {
					v.cfg(&cfg)
				}
				if v.p != nil {
					v.p(&p)
				}
				start := cpuTime()
				res, err := build(s.train, p, cfg)
				if err != nil {
					line += fmt.Sprintf(" %21s", "err")
					t.Logf("%s %s: %v", s.name, v.name, err)
					continue
				}
				el := cpuTime() - start
				sz, _ := compressedSize(res.Dict, s.eval, zstd.SpeedDefault)
				line += fmt.Sprintf(" %.4f %4.1fc %4d/%d%s %2dK", float64(sz)/float64(zs), el.Seconds(), res.K, res.D,
					map[bool]string{true: "s", false: "o"}[res.PerSample], (len(res.Dict)+1023)>>10)
			}
			t.Log(line)
		}
	}
}

// cpuTime returns the CPU time used by the process so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
