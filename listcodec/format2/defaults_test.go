package format2

import (
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
