package rdbio

import (
	"bytes"
	"io"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/rdbz/rdbz/rdbio/crc64"
)

// TestInputSumsWhatItConsumes consumes 6 MB in random steps (takes, skips,
// flushes to sinks that change, bytes that pass outside the window as
// tailCheck's do), from a source that returns short reads at times, and checks the
// CRC-64 of what was consumed against the bytes themselves at every step,
// with the background sum off (one CPU, or a CPU that folds) and on (two
// CPUs, the folding turned off as on a CPU without it).
func TestInputSumsWhatItConsumes(t *testing.T) {
	data := make([]byte, 6<<20)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range data {
		data[i] = byte(rng.Uint32())
	}
	folds := crc64.Folds
	defer func() { crc64.Folds = folds }()
	for _, c := range []struct {
		procs int
		folds bool
	}{{1, folds}, {2, folds}, {2, false}} {
		old := runtime.GOMAXPROCS(c.procs)
		crc64.Folds = c.folds
		for seed := range uint64(4) {
			consumeRandomly(t, data, rand.New(rand.NewPCG(seed, procs64(c.procs))))
		}
		runtime.GOMAXPROCS(old)
	}
}

func procs64(n int) uint64 { return uint64(n) }

// shortReader reads all that is asked three times in four, else less.
type shortReader struct {
	r   io.Reader
	rng *rand.Rand
}

func (s *shortReader) Read(p []byte) (int, error) {
	if len(p) > 1 && s.rng.IntN(4) == 0 {
		p = p[:1+s.rng.IntN(len(p)-1)]
	}
	return s.r.Read(p)
}

func consumeRandomly(t *testing.T, data []byte, rng *rand.Rand) {
	t.Helper()
	in := newInput(&shortReader{r: bytes.NewReader(data), rng: rng}, true)
	var out bytes.Buffer
	var extra []byte // bytes summed outside the window, in their place
	want := func() uint64 {
		return crc64.Update(0, data[:in.offset()])
	}
	for step := 0; in.offset() < int64(len(data))-(1<<20); step++ {
		switch rng.IntN(6) {
		case 0:
			n := 1 + rng.IntN(min(4<<10, len(in.buf)))
			if rng.IntN(4) == 0 { // a take that moves the window with little consumed
				n = len(in.buf) - rng.IntN(1<<10)
			}
			if _, err := in.take(n); err != nil {
				t.Fatal(err)
			}
		case 1:
			if err := in.skip(uint64(rng.IntN(300 << 10))); err != nil {
				t.Fatal(err)
			}
		case 2:
			if err := in.setOut(&out); err != nil {
				t.Fatal(err)
			}
		case 3:
			if err := in.setOut(nil); err != nil {
				t.Fatal(err)
			}
		case 4:
			// As tailCheck: what stands in the window goes on by hand.
			if err := in.fill(1); err != nil {
				t.Fatal(err)
			}
			if err := in.flush(); err != nil {
				t.Fatal(err)
			}
			in.pos = min(in.end, in.pos+rng.IntN(100<<10))
			extra = append(extra[:0], in.buf[in.mark:in.pos]...)
			in.checksum(extra)
			in.passed()
		case 5:
			if got, w := in.consumedSum(), want(); got != w {
				t.Fatalf("step %d at %d: sum %016x, want %016x", step, in.offset(), got, w)
			}
		}
	}
	if err := in.flush(); err != nil {
		t.Fatal(err)
	}
	if got, w := in.crcSum(), want(); got != w {
		t.Fatalf("at the end (%d): sum %016x, want %016x", in.offset(), got, w)
	}
	_, _ = io.Copy(io.Discard, &out)
}
