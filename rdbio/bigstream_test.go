package rdbio

import (
	"bytes"
	"encoding/binary"
	"hash"
	"io"
	"runtime"
	"runtime/metrics"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hdt3213/rdb/crc64jones"
	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

// synthRDB generates an RDB on the fly: a sequence of parts, each either
// literal bytes or a run of one byte, then the EOF opcode and the CRC.
type synthRDB struct {
	parts []synthPart
	crc   hash.Hash64
	tail  []byte
	done  bool
}

type synthPart struct {
	lit []byte
	run int64 // bytes of 'x' when lit is nil
}

func (s *synthRDB) Read(p []byte) (int, error) {
	for len(s.parts) > 0 {
		part := &s.parts[0]
		if part.lit != nil {
			n := copy(p, part.lit)
			part.lit = part.lit[n:]
			if len(part.lit) == 0 {
				s.parts = s.parts[1:]
			}
			s.crc.Write(p[:n])
			return n, nil
		}
		if part.run == 0 {
			s.parts = s.parts[1:]
			continue
		}
		n := int(min(int64(len(p)), part.run))
		for i := range p[:n] {
			p[i] = 'x'
		}
		part.run -= int64(n)
		s.crc.Write(p[:n])
		return n, nil
	}
	if !s.done {
		s.done = true
		s.crc.Write([]byte{OpEOF})
		s.tail = binary.LittleEndian.AppendUint64([]byte{OpEOF}, s.crc.Sum64())
	}
	if len(s.tail) == 0 {
		return 0, io.EOF
	}
	n := copy(p, s.tail)
	s.tail = s.tail[n:]
	return n, nil
}

// newBigRDB: one string of strLen bytes and one quicklist2 list of nodes
// PLAIN nodes of nodeLen bytes each.
func newBigRDB(strLen int64, nodes int, nodeLen int64) *synthRDB {
	lit := func(b ...[]byte) synthPart { return synthPart{lit: bytes.Join(b, nil)} }
	s := &synthRDB{crc: crc64jones.New()}
	s.parts = append(s.parts,
		lit([]byte("REDIS0010"), []byte{OpSelectDB, 0}),
		lit([]byte{TypeString}, AppendLen(nil, 3), []byte("big"), AppendLen(nil, uint64(strLen))),
		synthPart{run: strLen},
		lit([]byte{TypeListQuicklist2}, AppendLen(nil, 4), []byte("list"), AppendLen(nil, uint64(nodes))))
	for i := 0; i < nodes; i++ {
		s.parts = append(s.parts, lit(AppendLen(nil, 1), AppendLen(nil, uint64(nodeLen))), synthPart{run: nodeLen})
	}
	return s
}

// peakHeap samples the heap while f runs and returns the most seen.
func peakHeap(f func()) uint64 {
	runtime.GC()
	var peak atomic.Uint64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		for {
			metrics.Read(sample)
			if v := sample[0].Value.Uint64(); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	f()
	close(stop)
	<-done
	return peak.Load()
}

// TestHugeValuesStreamWithBoundedHeap streams a string and a list of PLAIN
// nodes, each several times the heap limit, through pass-through and
// through the node reader: by default a 256 MiB string and 256-512 MiB of
// nodes; with RDBZ_LONG=1 a 1 GiB string and 2 GiB of nodes
// (docs/testing.md).
func TestHugeValuesStreamWithBoundedHeap(t *testing.T) {
	if testing.Short() {
		t.Skip("streams gigabytes; skipped with -short")
	}
	rdbiotest.DefaultGC(t) // a peak heap, as the tools collect
	const limit = 64 << 20
	strLen, scale := int64(256<<20), 4 // nodes of the list: a quarter of 256 and 32
	if rdbiotest.Long() {
		strLen, scale = 1<<30, 1
	}
	cases := []struct {
		name    string
		nodeLen int64
		nodes   int
		walk    func(io.Reader) error
	}{
		{"copy/8MiB-nodes", 8 << 20, 256 / scale, func(r io.Reader) error { _, err := Copy(io.Discard, r, Options{}); return err }},
		{"nodes/8MiB-nodes", 8 << 20, 256 / scale, summarize},
		{"nodes/64MiB-nodes-over-cap", 64 << 20, 32 / scale, summarize},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := newBigRDB(strLen, c.nodes, c.nodeLen)
			var err error
			peak := peakHeap(func() { err = c.walk(src) })
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("peak heap %.1f MiB", float64(peak)/(1<<20))
			if peak > limit {
				t.Fatalf("peak heap %d bytes, want < %d", peak, limit)
			}
		})
	}
}

func summarize(src io.Reader) error {
	r, err := NewReader(src, Options{})
	if err != nil {
		return err
	}
	err = walkAll(r)
	return err
}
