package format2

import (
	"runtime"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// TestBlockSizeByLevel: column segments take ColumnsBlockSize up to the
// levels before BestLevel and ColumnsBestBlockSize from it on, a block size
// given is kept, and 2.1's blocks (a dictionary) keep DefaultBlockSize.
func TestBlockSizeByLevel(t *testing.T) {
	for _, tc := range []struct {
		opt  Options
		want int
	}{
		{Options{Columns: true}, ColumnsBlockSize},
		{Options{Columns: true, Level: zstd.SpeedBetterCompression}, ColumnsBlockSize},
		{Options{Columns: true, Level: BestLevel}, ColumnsBestBlockSize},
		{Options{Columns: true, Level: BestLevel, BlockSize: 1 << 20}, 1 << 20},
		{Options{Level: BestLevel}, DefaultBlockSize},
	} {
		if got := tc.opt.withDefaults().BlockSize; got != tc.want {
			t.Errorf("%+v: block size %d, want %d", tc.opt, got, tc.want)
		}
	}
}

// TestLZFWorkers: LZF strings are decoded on one goroutine fewer than the
// CPUs Compress may use (its Workers, at most GOMAXPROCS), and on one at
// least.
func TestLZFWorkers(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, tc := range []struct{ procs, workers, want int }{
		{1, 0, 1}, {1, 4, 1},
		{2, 0, 1}, {2, 1, 1}, {2, 2, 1}, {2, 8, 1},
		{4, 0, 3}, {4, 2, 1}, {4, 3, 2}, {4, 16, 3},
	} {
		runtime.GOMAXPROCS(tc.procs)
		if got := lzfWorkers(tc.workers); got != tc.want {
			t.Errorf("GOMAXPROCS %d, Workers %d: %d LZF workers, want %d", tc.procs, tc.workers, got, tc.want)
		}
	}
}
