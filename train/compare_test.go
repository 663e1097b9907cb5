package train

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
)

// This file measures Build against the reference trainer, `zstd --train`
// (FastCover, d=8, k optimized over 50..2000 in 4 steps, split 0.75), on the
// synthetic sample sets: both train on the same samples and are judged by the
// total klauspost EncodeAll size of held-out samples at SpeedDefault.
//
// Run with: go test ./train/ -run TestCompareZstdCLI -v
// RDBZ_TRAIN_MB sets the megabytes of samples per set (default 8).

const zstdCLI = "/usr/bin/zstd"

func sampleMB(t testing.TB, def int) int {
	if s := os.Getenv("RDBZ_TRAIN_MB"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 {
			t.Fatalf("RDBZ_TRAIN_MB=%q: want a positive integer", s)
		}
		return n
	}
	return def
}

// zstdTrain runs the zstd CLI trainer on samples and returns the dictionary
// and the time it took.
func zstdTrain(t testing.TB, samples [][]byte, dictSize int, id uint32) ([]byte, time.Duration) {
	t.Helper()
	dir := t.TempDir()
	sdir := filepath.Join(dir, "samples")
	if err := os.Mkdir(sdir, 0o755); err != nil {
		t.Fatal(err)
	}
	args := []string{"-q", "--train", "-o", filepath.Join(dir, "d.zstd"),
		"--maxdict=" + strconv.Itoa(dictSize), "--dictID=" + strconv.Itoa(int(id)), "-r", sdir}
	for i, s := range samples {
		name := filepath.Join(sdir, fmt.Sprintf("s%06d", i))
		if err := os.WriteFile(name, s, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	start := time.Now()
	out, err := exec.Command(zstdCLI, args...).CombinedOutput()
	el := time.Since(start)
	if err != nil {
		t.Fatalf("zstd --train: %v\n%s", err, out)
	}
	dict, err := os.ReadFile(filepath.Join(dir, "d.zstd"))
	if err != nil {
		t.Fatal(err)
	}
	return dict, el
}

type comparison struct {
	name               string
	trainBytes         int
	raw, noDict        int64
	ours, theirs       int64
	oursDur, theirsDur time.Duration
	oursLen, theirsLen int
}

func (c comparison) ratio() float64 { return float64(c.ours) / float64(c.theirs) }

func (c comparison) String() string {
	return fmt.Sprintf("| %-12s | %6.1f MB | %10d | %10d | %10d (%5.2fs, %5d B) | %10d (%5.2fs, %5d B) | %.4f |",
		c.name, float64(c.trainBytes)/1e6, c.raw, c.noDict, c.ours, c.oursDur.Seconds(), c.oursLen,
		c.theirs, c.theirsDur.Seconds(), c.theirsLen, c.ratio())
}

const comparisonHeader = "| set          | train    | raw held-out | no dict | ours (time, size) | zstd --train (time, size) | ours/zstd |\n" +
	"|---|---|---|---|---|---|---|"

// compare trains both dictionaries on trainSet and measures them on evalSet.
func compare(t testing.TB, name string, trainSet, evalSet [][]byte, build func([][]byte) ([]byte, error)) comparison {
	t.Helper()
	c := comparison{name: name}
	for _, s := range trainSet {
		c.trainBytes += len(s)
	}
	start := time.Now()
	ours, err := build(trainSet)
	c.oursDur = time.Since(start)
	if err != nil {
		t.Fatalf("%s: Build: %v", name, err)
	}
	theirs, dur := zstdTrain(t, trainSet, DefaultDictSize, 40000)
	c.theirsDur = dur
	c.oursLen, c.theirsLen = len(ours), len(theirs)
	so, err := Evaluate(ours, evalSet, zstd.SpeedDefault)
	if err != nil {
		t.Fatalf("%s: Evaluate ours: %v", name, err)
	}
	st, err := Evaluate(theirs, evalSet, zstd.SpeedDefault)
	if err != nil {
		t.Fatalf("%s: Evaluate zstd's: %v", name, err)
	}
	c.raw, c.noDict, c.ours, c.theirs = so.Raw, so.NoDict, so.WithDict, st.WithDict
	return c
}

func needZstd(t testing.TB) {
	if testing.Short() {
		t.Skip("comparison with zstd --train skipped in -short mode")
	}
	if _, err := os.Stat(zstdCLI); err != nil {
		t.Skipf("comparison with zstd --train skipped: %s not found", zstdCLI)
	}
}

func TestCompareZstdCLI(t *testing.T) {
	needZstd(t)
	mb := sampleMB(t, 8)
	var rows []comparison
	for i, ds := range datasets {
		samples := ds.gen(uint64(100+i), mb<<20)
		trainSet, evalSet := HeldOut(samples, 0.8, 7)
		c := compare(t, ds.name, trainSet, evalSet, func(s [][]byte) ([]byte, error) {
			return Build(s, Params{DictSize: DefaultDictSize, ID: 40000, Seed: 1})
		})
		rows = append(rows, c)
	}
	t.Log("\n" + comparisonHeader)
	for _, c := range rows {
		t.Log(c)
	}
	for _, c := range rows {
		if c.ratio() > 1.0 {
			t.Errorf("%s: ours %d bytes > zstd --train %d bytes (%.4f×)", c.name, c.ours, c.theirs, c.ratio())
		}
	}
}
