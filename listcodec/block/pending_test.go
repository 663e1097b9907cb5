package block

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestColumnsPendingHoldsOneRecord: with column segments the Writer holds
// only the record not split yet, not the block's T: after 3 MiB of 700-byte
// records in 2 MiB blocks its buffer has not grown past its first capacity,
// a record longer than a block streams through a buffer of at most one
// block, and the file reads back as the T written.
func TestColumnsPendingHoldsOneRecord(t *testing.T) {
	const bs = 2 << 20
	rng := rand.New(rand.NewPCG(1, 2))
	var tb []byte
	var recs []record
	add := func(key []byte, n int) {
		off := len(tb)
		for range n {
			tb = append(tb, "abcdefgh"[rng.IntN(8)])
		}
		recs = append(recs, record{key: key, off: int64(off), end: int64(len(tb))})
	}
	for i := 0; len(tb) < 3<<20; i++ {
		add(fmt.Appendf(nil, "key:%d", i), 700)
	}
	var out bytes.Buffer
	w, err := NewWriter(context.Background(), &out, nil, Options{BlockSize: bs, Columns: true, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := feed(w, tb, recs); err != nil {
		t.Fatal(err)
	}
	if c := cap(w.cur.data); c > firstBlockCap(bs) {
		t.Errorf("after records of 700 bytes the pending buffer holds %d bytes, over its first %d", c, firstBlockCap(bs))
	}
	n := len(recs)
	add([]byte("big"), 5<<20) // over two blocks
	add(nil, 10)
	if err := feed(w, tb, recs[n:]); err != nil {
		t.Fatal(err)
	}
	if c := cap(w.cur.data); c > bs {
		t.Errorf("a record longer than a block grew the pending buffer to %d bytes, over the block's %d", c, bs)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got := readAll(t, out.Bytes(), ReaderOptions{}); !bytes.Equal(got, tb) {
		t.Fatalf("read back %d bytes, not the %d written", len(got), len(tb))
	}
}
