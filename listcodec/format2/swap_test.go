package format2

import (
	"bytes"
	"context"
	"io"
	"os"
	"testing"

	"github.com/rdbz/rdbz/listcodec/block"
	"github.com/rdbz/rdbz/listcodec/tstream"
)

// TestSwappedBlocksFail: two blocks of equal length swapped, or one copied
// over the other, pass every container check (each frame is whole, each
// length is right), and must still fail to decompress to every target:
// the decoded stream no longer matches its checksums.
func TestSwappedBlocksFail(t *testing.T) {
	file := smallFormat2(t, 1<<10)
	f, err := block.OpenFile(bytes.NewReader(file), int64(len(file)), block.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	blocks := f.Blocks()
	f.Close()
	frame := func(b []byte, i int) []byte { return b[blocks[i].Offset : blocks[i].Offset+int64(blocks[i].Size)] }
	pairs := 0
	for i := range blocks {
		for j := i + 1; j < len(blocks) && pairs < 6; j++ {
			if blocks[i].Size != blocks[j].Size || bytes.Equal(frame(file, i), frame(file, j)) {
				continue
			}
			pairs++
			swapped := bytes.Clone(file)
			copy(frame(swapped, i), frame(file, j))
			copy(frame(swapped, j), frame(file, i))
			copied := bytes.Clone(file)
			copy(frame(copied, j), frame(file, i))
			for name, in := range map[string][]byte{"swapped": swapped, "copied": copied} {
				for _, to := range []tstream.Target{tstream.TargetOriginal, tstream.TargetRaw, tstream.TargetLZF} {
					_, err := Decompress(context.Background(), io.Discard, bytes.NewReader(in), DecompressOptions{To: to})
					if err == nil {
						t.Errorf("blocks %d and %d %s: decompress to %v accepted it", i, j, name, to)
					}
				}
			}
		}
	}
	if pairs == 0 {
		t.Fatal("no two blocks of equal length to swap: make the blocks smaller")
	}
}

// smallFormat2 is testdata/small.rdb compressed in format 2 with blocks of
// blockSize.
func smallFormat2(t *testing.T, blockSize int) []byte {
	t.Helper()
	src, err := os.ReadFile("../../testdata/small.rdb")
	if err != nil {
		t.Fatal(err)
	}
	var z bytes.Buffer
	if _, err := Compress(context.Background(), &z, bytes.NewReader(src), Options{BlockSize: blockSize}); err != nil {
		t.Fatal(err)
	}
	return z.Bytes()
}
