package columns

import (
	"bytes"
	"os"
	"testing"

	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

// TestCorpusRoundTrip: Join(Split(T)) is T on every corpus file, in
// segments of 1 MiB and of 64 KiB (files over 4 MiB need RDBZ_LONG=1).
func TestCorpusRoundTrip(t *testing.T) {
	for _, f := range rdbiotest.Files(t) {
		st, err := os.Stat(f.Path)
		if err != nil {
			t.Fatal(err)
		}
		if st.Size() > 4<<20 && !rdbiotest.Long() {
			continue
		}
		tf := readTOrSkip(t, f.Path)
		if tf == nil {
			continue
		}
		roundTrip(t, f.Name, tf, 1<<20)
		roundTrip(t, f.Name, tf, 64<<10)
	}
}

// TestRawPieces: records longer than a quarter of a segment go in Raw
// pieces across segments (as a pipeline cuts them), and come back.
func TestRawPieces(t *testing.T) {
	var files []string
	for _, f := range rdbiotest.Files(t) {
		st, err := os.Stat(f.Path)
		if err == nil && st.Size() <= 4<<20 && st.Size() > 64<<10 {
			files = append(files, f.Path)
		}
	}
	if !rdbiotest.Long() && len(files) > 6 {
		files = files[:6]
	}
	const size = 16 << 10
	for _, path := range files {
		tf := readTOrSkip(t, path)
		if tf == nil {
			continue
		}
		var got []byte
		s := NewSplitter()
		seg := &Segment{}
		s.Start(seg)
		flush := func() {
			out, err := Join(nil, s.Finish())
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			got = append(got, out...)
			s.Start(seg)
		}
		for i, r := range tf.recs {
			rec := tf.record(i)
			if len(rec) <= size/4 {
				if s.Len()+len(rec) > size {
					flush()
				}
				s.Record(rec, r.key)
				continue
			}
			for len(rec) > 0 {
				n := min(len(rec), size-s.Len())
				if n == 0 {
					flush()
					continue
				}
				s.Raw(rec[:n])
				rec = rec[n:]
			}
		}
		flush()
		if !bytes.Equal(got, tf.t) {
			t.Fatalf("%s: T differs", path)
		}
	}
}
