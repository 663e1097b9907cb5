package columns

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
)

// TestMeasureSplitTime is the time split of MEASURED.md, on one
// goroutine, in CPU time of the process (the garbage collector's
// included; wall time is no measure on a loaded machine): T encoding (tstream.EncodeT into memory), split, Encode,
// Unpack (zstd and the token and plane inverses) and Join, each summed
// over the segments. Behind RDBZ_MEASURE=split (files and level as for
// the other measurements; 4 MiB segments).
func TestMeasureSplitTime(t *testing.T) {
	if os.Getenv("RDBZ_MEASURE") != "split" {
		t.Skip("RDBZ_MEASURE=split runs the time split")
	}
	ok, level := zstd.EncoderLevelFromString(os.Getenv("RDBZ_MEASURE_LEVELS"))
	if !ok {
		level = zstd.SpeedDefault
	}
	for _, path := range strings.Split(os.Getenv("RDBZ_MEASURE_FILES"), ",") {
		if path == "" {
			continue
		}
		start := cpuClock()
		tf := readT(t, path)
		tenc := dur(cpuClock() - start)
		enc, err := NewEncoder(Options{Level: level})
		if err != nil {
			t.Fatal(err)
		}
		dec, err := NewDecoder(0)
		if err != nil {
			t.Fatal(err)
		}
		var split, encode, unpack, join time.Duration
		var out, comp []byte
		var size int64
		s := NewSplitter()
		seg := &Segment{}
		s.Start(seg)
		st := cpuClock()
		finish := func() {
			done := s.Finish()
			split += dur(cpuClock() - st)
			t0 := cpuClock()
			if comp, err = enc.Encode(comp[:0], done); err != nil {
				t.Fatal(err)
			}
			size += int64(len(comp))
			t1 := cpuClock()
			u, err := dec.Unpack(comp)
			if err != nil {
				t.Fatal(err)
			}
			t2 := cpuClock()
			if out, err = dec.j.join(out, u); err != nil {
				t.Fatal(err)
			}
			t3 := cpuClock()
			encode, unpack, join = encode+dur(t1-t0), unpack+dur(t2-t1), join+dur(t3-t2)
			s.Start(seg)
			st = cpuClock()
		}
		for i, r := range tf.recs {
			if s.Len() > 0 && s.Len()+len(tf.record(i)) > DefaultSegmentSize {
				finish()
			}
			s.Record(tf.record(i), r.key)
		}
		finish()
		enc.Close()
		dec.Close()
		mb := float64(len(tf.t)) / 1e6
		t.Logf("%s (%s): T %.1f MB, %d bytes; T encoding %.2fs, split %.2fs (%.0f MB/s), Encode %.2fs (%.0f MB/s), Unpack %.2fs, Join %.2fs (%.0f MB/s)",
			filepath.Base(path), level, mb, size, tenc.Seconds(), split.Seconds(), mb/split.Seconds(), encode.Seconds(), mb/encode.Seconds(),
			unpack.Seconds(), join.Seconds(), mb/join.Seconds())
	}
}

func cpuClock() float64 { return cpuNow() }

func dur(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
