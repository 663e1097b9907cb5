package columns

import (
	"fmt"
	"testing"
)

// TestDecoderGrowsSeldom: a Decoder sizes its buffers by each segment in
// turn; over 30 segments each 1% larger than the one before, its arena is
// made a few times, not once per segment (grown).
func TestDecoderGrowsSeldom(t *testing.T) {
	enc, err := NewEncoder(Options{SegmentSize: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	dec, err := NewDecoder(0)
	if err != nil {
		t.Fatal(err)
	}
	defer dec.Close()
	s := NewSplitter()
	var seg Segment
	var comp, out []byte
	made, last := 0, -1
	for i := range 30 {
		var tb []byte
		for n := 0; len(tb) < 100_000+i*1_000; n++ {
			tb = fmt.Appendf(tb, "line %d of segment %d: %x\n", n, i, n*2654435761)
		}
		s.Start(&seg)
		s.Raw(tb)
		if comp, err = enc.Encode(comp[:0], s.Finish()); err != nil {
			t.Fatal(err)
		}
		if out, err = dec.Decode(out, comp); err != nil {
			t.Fatal(err)
		}
		sameT(t, "growing", i, "Decode", out, tb)
		if c := cap(dec.arena); c != last {
			made, last = made+1, c
		}
	}
	if made > 3 {
		t.Errorf("the arena was made %d times over 30 segments growing by 1%% each", made)
	}
}
