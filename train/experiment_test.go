package train

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
)

// expSet is a named train/eval split used by the experiments.
type expSet struct {
	name        string
	train, eval [][]byte
}

func experimentSets(t *testing.T) []expSet {
	var sets []expSet
	mb := sampleMB(t, 8)
	for i, ds := range datasets {
		tr, ev := HeldOut(ds.gen(uint64(100+i), mb<<20), 0.8, 7)
		sets = append(sets, expSet{ds.name, tr, ev})
	}
	for _, name := range []string{"lists-events.rdb", "lists-logs.rdb", "lists-ints-small.rdb", "lists-plain-nodes.rdb", "dfly-seed-synthetic.rdb"} {
		s, err := corpusSamples(name, int64(mb)<<20)
		if err != nil {
			t.Logf("corpus %s: %v", name, err)
			continue
		}
		tr, ev := HeldOut(s, 0.8, 7)
		sets = append(sets, expSet{strings.TrimSuffix(name, ".rdb"), tr, ev})
	}
	return sets
}

// cachedZstdDict returns zstd --train's dictionary for a set, cached across runs.
func cachedZstdDict(t *testing.T, s expSet) ([]byte, time.Duration) {
	dir := filepath.Join(os.TempDir(), "rdbz-train-exp")
	os.MkdirAll(dir, 0o755)
	var n int
	for _, x := range s.train {
		n += len(x)
	}
	p := filepath.Join(dir, fmt.Sprintf("%s-%d-%d.zstd", s.name, len(s.train), n))
	if b, err := os.ReadFile(p); err == nil {
		return b, 0
	}
	d, el := zstdTrain(t, s.train, DefaultDictSize, 40000)
	os.WriteFile(p, d, 0o644)
	return d, el
}

// TestExperiment compares internal configurations with zstd --train. It is
// for tuning and runs only with RDBZ_TRAIN_EXPERIMENT=1.
func TestExperiment(t *testing.T) {
	if os.Getenv("RDBZ_TRAIN_EXPERIMENT") == "" {
		t.Skip("set RDBZ_TRAIN_EXPERIMENT=1 to run the tuning experiment")
	}
	needZstd(t)
	type variant struct {
		name string
		cfg  func(*config)
		p    func(*Params)
	}
	variants := experimentVariants()
	sets := experimentSets(t)
	header := fmt.Sprintf("%-22s %9s %9s", "set", "nodict", "zstd")
	for _, v := range variants {
		header += fmt.Sprintf(" %14s", v.name)
	}
	t.Log(header)
	for _, s := range sets {
		zd, _ := cachedZstdDict(t, s)
		zs, err := compressedSize(zd, s.eval, zstd.SpeedDefault)
		if err != nil {
			t.Fatal(err)
		}
		nd, _ := compressedSize(nil, s.eval, zstd.SpeedDefault)
		line := fmt.Sprintf("%-22s %9d %9d", s.name, nd, zs)
		for _, v := range variants {
			cfg := defaultConfig
			p := Params{ID: 40000, Seed: 1}
			if v.cfg != nil {
				v.cfg(&cfg)
			}
			if v.p != nil {
				v.p(&p)
			}
			start := time.Now()
			d, err := build(s.train, p, cfg)
			if err != nil {
				line += fmt.Sprintf(" %14s", "err")
				t.Logf("%s %s: %v", s.name, v.name, err)
				continue
			}
			el := time.Since(start)
			sz, _ := compressedSize(d, s.eval, zstd.SpeedDefault)
			line += fmt.Sprintf(" %7.4f %5.1fs", float64(sz)/float64(zs), el.Seconds())
		}
		t.Log(line)
	}
}
