package columns

import (
	"os"
	"testing"
)

// benchT is the T of RDBZ_BENCH_FILE (default: the corpus's
// app-cache-nocompress.rdb), read once.
var benchT *tfile

func benchFile(b *testing.B) *tfile {
	if benchT != nil {
		return benchT
	}
	path := os.Getenv("RDBZ_BENCH_FILE")
	if path == "" {
		path = "../../../shared/corpus/generated/app-cache-nocompress.rdb"
	}
	if _, err := os.Stat(path); err != nil {
		b.Skipf("no bench file (%v): set RDBZ_BENCH_FILE", err)
	}
	benchT = readT(b, path)
	return benchT
}

// BenchmarkSplit: the Splitter over the file's T in 8 MiB segments, its
// Segment recycled (as a pipeline does).
func BenchmarkSplit(b *testing.B) {
	tf := benchFile(b)
	s := NewSplitter()
	seg := &Segment{}
	b.SetBytes(int64(len(tf.t)))
	b.ResetTimer()
	for range b.N {
		s.Start(seg)
		for i, r := range tf.recs {
			if s.Len() > 0 && s.Len()+len(tf.record(i)) > DefaultSegmentSize {
				s.Finish()
				s.Start(seg)
			}
			s.Record(tf.record(i), r.key)
		}
		s.Finish()
	}
}

// benchSegments splits the file's T into segments of DefaultSegmentSize.
func benchSegments(tf *tfile) []*Segment {
	var segs []*Segment
	s := NewSplitter()
	s.Start(&Segment{})
	for i, r := range tf.recs {
		if s.Len() > 0 && s.Len()+len(tf.record(i)) > DefaultSegmentSize {
			segs = append(segs, s.Finish())
			s.Start(&Segment{})
		}
		s.Record(tf.record(i), r.key)
	}
	return append(segs, s.Finish())
}

// BenchmarkJoin: Join of the file's segments.
func BenchmarkJoin(b *testing.B) {
	tf := benchFile(b)
	segs := benchSegments(tf)
	b.SetBytes(int64(len(tf.t)))
	b.ResetTimer()
	var out []byte
	var err error
	for range b.N {
		for _, seg := range segs {
			if out, err = Join(out, seg); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkTokenize: the strings of every role of the file's segments
// tokenized, plain and with fields (as a trial's two token ways), the
// fields kept to the segment's end as an Encoder keeps them.
func BenchmarkTokenize(b *testing.B) {
	tf := benchFile(b)
	segs := benchSegments(tf)
	for _, way := range []string{"plain", "fields"} {
		b.Run(way, func(b *testing.B) {
			var t tokens
			var fs fieldSet
			b.SetBytes(int64(len(tf.t)))
			for range b.N {
				for _, sg := range segs {
					fs.reset(sg) // the segment's free roles, for fields
					for r := 1; r < MaxRoles; r++ {
						t.reset()
						t.fields = nil
						if way == "fields" {
							t.fields = &fs
							fs.begin(r)
						}
						t.tokenize(sg.bufs[dataID(r)], sg.bufs[lensID(r)])
					}
				}
			}
		})
	}
}
