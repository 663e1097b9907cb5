package train

import (
	"fmt"
	"testing"
	"github.com/klauspost/compress/zstd"
)

func TestTmpGrid(t *testing.T) {
	for _, s := range experimentSets(t) {
		zd, _ := cachedZstdDict(t, s)
		zs, _ := compressedSize(zd, s.eval, zstd.SpeedDefault)
		t.Logf("%s", s.name)
		for _, d := range []int{5, 6, 7, 8} {
			line := fmt.Sprintf("  d=%d", d)
			for _, k := range []int{48, 96, 192, 384, 768, 1536, 3072} {
				cfg := defaultConfig
				cfg.tableN, cfg.perSample, cfg.refine = 1000, true, true
				ours, err := build(s.train, Params{ID: 40000, Seed: 1, K: k, D: d}, cfg)
				if err != nil { t.Fatal(err) }
				x, _ := compressedSize(ours, s.eval, zstd.SpeedDefault)
				line += fmt.Sprintf(" k%d=%.4f", k, float64(x)/float64(zs))
			}
			t.Log(line)
		}
	}
}
