package columns

import (
	"bytes"
	"os"
	"testing"

	"github.com/rdbz/rdbz/listcodec/tstream"
	"github.com/rdbz/rdbz/rdbio"
)

// tfile is the T of an RDB file and where its records start.
type tfile struct {
	t    []byte
	recs []trec
}

type trec struct {
	off int
	key bool
}

func (c *tfile) Begin(key []byte, _ int64) error {
	c.recs = append(c.recs, trec{len(c.t), key != nil})
	return nil
}

func (c *tfile) Write(p []byte) (int, error) {
	c.t = append(c.t, p...)
	return len(p), nil
}

// record is record i's bytes.
func (c *tfile) record(i int) []byte {
	end := len(c.t)
	if i+1 < len(c.recs) {
		end = c.recs[i+1].off
	}
	return c.t[c.recs[i].off:end]
}

// readT encodes the RDB file at path into T.
func readT(tb testing.TB, path string) *tfile {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	c := &tfile{}
	if _, err := tstream.EncodeT(c, f, tstream.Options{Options: rdbio.Options{IgnoreChecksum: true}}, nil); err != nil {
		tb.Fatalf("%s: EncodeT: %v", path, err)
	}
	return c
}

// eachSegment splits tf into segments of about size T bytes (whole
// records; a record over size alone) and calls fn with each segment and
// the T it stands for.
func eachSegment(tf *tfile, size int, fn func(seg *Segment, t []byte)) {
	s := NewSplitter()
	seg := &Segment{}
	s.Start(seg)
	start := 0
	for i, r := range tf.recs {
		if s.Len() > 0 && s.Len()+len(tf.record(i)) > size {
			fn(s.Finish(), tf.t[start:r.off])
			start = r.off
			s.Start(seg)
		}
		s.Record(tf.record(i), r.key)
	}
	if s.Len() > 0 {
		fn(s.Finish(), tf.t[start:])
	}
}

// roundTrip splits tf and joins every segment back, and compresses and
// decompresses it.
func roundTrip(tb testing.TB, name string, tf *tfile, size int) {
	tb.Helper()
	var out, comp []byte
	n := 0
	enc, err := NewEncoder(Options{SegmentSize: max(size, len(tf.t))})
	if err != nil {
		tb.Fatal(err)
	}
	defer enc.Close()
	dec, err := NewDecoder(0)
	if err != nil {
		tb.Fatal(err)
	}
	defer dec.Close()
	eachSegment(tf, size, func(seg *Segment, t []byte) {
		var err error
		out, err = Join(out, seg)
		if err != nil {
			tb.Fatalf("%s: segment %d: %v", name, n, err)
		}
		sameT(tb, name, n, "Join", out, t)
		if comp, err = enc.Encode(comp[:0], seg); err != nil {
			tb.Fatalf("%s: segment %d: Encode: %v", name, n, err)
		}
		if out, err = dec.Decode(out, comp); err != nil {
			tb.Fatalf("%s: segment %d: Decode: %v", name, n, err)
		}
		sameT(tb, name, n, "Decode", out, t)
		n++
	})
}

func sameT(tb testing.TB, name string, n int, what string, got, want []byte) {
	tb.Helper()
	if bytes.Equal(got, want) {
		return
	}
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	tb.Fatalf("%s: segment %d: %s differs at byte %d of %d (got %d bytes)", name, n, what, i, len(want), len(got))
}

// readTOrSkip is readT, or nil for a file rdbio does not encode (a
// corrupt-by-design fixture).
func readTOrSkip(tb testing.TB, path string) *tfile {
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	c := &tfile{}
	if _, err := tstream.EncodeT(c, f, tstream.Options{Options: rdbio.Options{IgnoreChecksum: true}}, nil); err != nil {
		tb.Logf("%s: not encoded into T (%v)", path, err)
		return nil
	}
	return c
}
