package block

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// FuzzReader feeds arbitrary bytes to both readers: they must not panic
// and must agree: a file both accept decodes to the same T, and the index
// reader accepts whatever the sequential one does but for the cells of the
// index's sections, which only it reads (a sequential reader checks their
// CRC: a fuzzer that kept it valid would find that). (Memory bounds are
// TestHostile*'s: runtime.ReadMemStats took 150 ms and more in a fuzz
// worker, which stopped fuzzing.)
func FuzzReader(f *testing.F) {
	data, recs := randomStream(21, 60, 300)
	for _, dict := range [][]byte{nil, mustDict(f, data, recs)} {
		for _, bs := range []int{MinBlockSize, 4 << 10} {
			file, _ := writeRecords(f, data, recs, dict, Options{BlockSize: bs})
			f.Add(file)
		}
	}
	// Column segments (2.2).
	for _, bs := range []int{MinBlockSize, 4 << 10} {
		file, _ := writeRecords(f, data, recs, nil, Options{BlockSize: bs, Columns: true})
		f.Add(file)
	}
	// An index of several sections.
	pd, precs := randomStream(22, 1500, 30)
	parted, _ := writeRecords(f, pd, precs, nil, Options{BlockSize: 16 << 10, IndexShare: 0.2})
	f.Add(parted)
	var empty bytes.Buffer
	w, _ := NewWriter(context.Background(), &empty, nil, Options{})
	w.Close()
	f.Add(empty.Bytes())
	f.Fuzz(func(t *testing.T, file []byte) {
		seq, seqErr, blocks, idxErr := decodeBoth(file)
		if seqErr == nil && idxErr == nil && !bytes.Equal(seq, blocks) {
			t.Fatalf("the readers disagree: %d vs %d bytes", len(seq), len(blocks))
		}
		if seqErr == nil && idxErr != nil && !strings.Contains(idxErr.Error(), "index: section") {
			t.Fatalf("sequential read accepted what the index refuses: %v", idxErr)
		}
	})
}

func mustDict(tb testing.TB, data []byte, recs []record) []byte {
	d, _ := trainRdbz(tb, trainSamples(data, recs, 64<<10), 4<<10, zstd.SpeedDefault)
	return d
}
