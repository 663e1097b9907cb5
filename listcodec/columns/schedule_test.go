package columns

import (
	"bytes"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

// TestEncodersShareTrials: the segments of a file come out the same
// whether one Encoder compresses them all or three share them out of
// order, over more than two trial periods, with a role (the JSON of
// app-cache's sessions, moved to the end) that the first trial segments
// do not hold: the choices between strings, tokens and fields depend on
// the segment and its trial's plan only.
func TestEncodersShareTrials(t *testing.T) {
	p := filepath.Join(rdbiotest.Shared(), "corpus", "generated", "app-cache.rdb")
	if _, err := os.Stat(p); err != nil {
		t.Skipf("no corpus (%v): ../shared/corpus holds the generated dumps", err)
	}
	tf := readT(t, p)
	const segSize = 64 << 10
	// About 2 trial periods and a half of other records, then 4 segments
	// of sessions.
	var order, late []int
	var early, lateBytes int
	for i := range tf.recs {
		rec := tf.record(i)
		switch {
		case len(rec) > segSize: // the block writer's pieces, not tested here
		case bytes.Contains(rec[:min(len(rec), 16)], []byte("sess:")):
			if lateBytes < 4*segSize {
				late, lateBytes = append(late, i), lateBytes+len(rec)
			}
		case early < (2*retryTokens+8)*segSize:
			order, early = append(order, i), early+len(rec)
		}
	}
	order = append(order, late...)
	var segs []*Segment
	s := NewSplitter()
	s.Start(&Segment{})
	for _, i := range order {
		if rec := tf.record(i); s.Len() > 0 && s.Len()+len(rec) > segSize {
			segs = append(segs, s.Finish())
			s.Start(&Segment{})
		}
		s.Record(tf.record(i), tf.recs[i].key)
	}
	segs = append(segs, s.Finish())
	if len(segs) < 2*retryTokens+2 {
		t.Fatalf("%d segments, want more than two trial periods", len(segs))
	}
	encode := func(encoders int) [][]byte {
		sched := NewSchedule()
		out := make([][]byte, len(segs))
		var wg sync.WaitGroup
		for w := range encoders {
			e, err := NewEncoder(Options{SegmentSize: segSize, Schedule: sched})
			if err != nil {
				t.Fatal(err)
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer e.Close()
				// Worker w takes every encoders-th segment, so that
				// segments wait on trials another worker encodes.
				for i := w; i < len(segs); i += encoders {
					b, err := e.Encode(nil, segs[i])
					if err != nil {
						t.Error(err)
						sched.Abort()
						return
					}
					out[i] = b
				}
			}()
		}
		wg.Wait()
		return out
	}
	one, three := encode(1), encode(3)
	for i := range segs {
		if !bytes.Equal(one[i], three[i]) {
			t.Fatalf("segment %d of %d: 1 encoder and 3 differ", i, len(segs))
		}
	}
	// The late role goes as fields in its own segments: version 2's
	// field marker stands in them.
	dec, err := NewDecoder(0)
	if err != nil {
		t.Fatal(err)
	}
	defer dec.Close()
	fielded := 0
	for i := len(segs) - 3; i < len(segs); i++ {
		if _, err := dec.Unpack(one[i]); err != nil {
			t.Fatal(err)
		}
		for r := 1; r < MaxRoles; r++ {
			if dec.fr.used[r] {
				fielded++
			}
		}
	}
	if fielded == 0 {
		t.Error("the sessions' segments hold no field")
	}
}
