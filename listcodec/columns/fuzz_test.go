package columns

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"testing"
)

// FuzzDecode: Decode of any bytes returns T or one of the package's
// errors, never panics, and T, when it comes, has the length and the sum
// the header declares. The header's checksum is set right before each
// try (fixHeaderSum), so that the fuzzer's changes reach the streams.
//
//	go test ./listcodec/columns -run '^$' -fuzz FuzzDecode -fuzztime 10m
func FuzzDecode(f *testing.F) {
	for _, s := range sampleSegments(f) {
		f.Add(s)
	}
	fs, t := fieldStreams()
	f.Add(storedSegment(segVersion, t, fs))
	dec, err := NewDecoder(1 << 20)
	if err != nil {
		f.Fatal(err)
	}
	var out []byte
	f.Fuzz(func(t *testing.T, b []byte) {
		fixHeaderSum(b)
		out, err = dec.Decode(out, b)
		if err != nil {
			if !isSentinel(err) {
				t.Fatalf("error without a sentinel: %v", err)
			}
			return
		}
		if len(out) != dec.seg.tlen {
			t.Fatalf("%d bytes, the header says %d", len(out), dec.seg.tlen)
		}
	})
}

// FuzzJoin runs Join on segments made of the fuzzer's bytes, without the
// header's checksum in the way: the first byte picks the T length (up to
// 4 KiB), the rest is cut into the tape, the skeleton and the three
// streams of roles 1 and 2 (each piece after a 1-byte length). Join must
// return T or an error wrapping ErrCorrupt or ErrChecksum, never panic.
//
//	go test ./listcodec/columns -run '^$' -fuzz FuzzJoin -fuzztime 10m
func FuzzJoin(f *testing.F) {
	for _, hr := range handRecords(&testing.T{}) {
		seg, _ := splitOf(hr)
		f.Add(joinSeed(seg))
	}
	seg, _ := splitOf(handRecords(&testing.T{})...)
	f.Add(joinSeed(seg))
	var out []byte
	f.Fuzz(func(t *testing.T, b []byte) {
		seg := fuzzSegment(b)
		var err error
		out, err = Join(out, seg)
		if err != nil {
			if !isSentinel(err) {
				t.Fatalf("error without a sentinel: %v", err)
			}
			return
		}
		if len(out) != seg.tlen {
			t.Fatalf("%d bytes for %d", len(out), seg.tlen)
		}
	})
}

var fuzzIDs = [...]int{idTape, idSkel, dataID(1), lensID(1), numsID(1), dataID(2), lensID(2), numsID(2)}

// fuzzSegment cuts b into a segment (FuzzJoin).
func fuzzSegment(b []byte) *Segment {
	seg := &Segment{}
	if len(b) < 2 {
		return seg
	}
	seg.tlen = int(binary.LittleEndian.Uint16(b)) & 0xFFF
	b = b[2:]
	for _, id := range fuzzIDs {
		if len(b) == 0 {
			break
		}
		n := min(int(b[0]), len(b)-1)
		seg.bufs[id] = b[1 : 1+n]
		b = b[1+n:]
	}
	return seg
}

// joinSeed is the FuzzJoin input for a segment: its streams of the ids
// fuzzSegment knows, each cut to 255 bytes (the others are left out, so
// most seeds fail, but deep in the tape).
func joinSeed(seg *Segment) []byte {
	var b bytes.Buffer
	binary.Write(&b, binary.LittleEndian, uint16(seg.tlen&0xFFF))
	for _, id := range fuzzIDs {
		s := seg.bufs[id]
		if len(s) > 255 {
			s = s[:255]
		}
		b.WriteByte(byte(len(s)))
		b.Write(s)
	}
	return b.Bytes()
}

// fixHeaderSum writes the right CRC-32C after the header of the segment b,
// where the header can be read.
func fixHeaderSum(b []byte) {
	r := hdrReader{b: b}
	r.byte()
	r.uvarint("")
	r.u32("")
	m := r.uvarint("")
	for i := uint64(0); i < m && r.err == nil && i < NumStreams; i++ {
		r.uvarint("")
		if r.byte() != methodStored {
			r.uvarint("")
		}
		r.uvarint("")
	}
	if r.err == nil && len(b)-r.p >= 4 {
		binary.LittleEndian.PutUint32(b[r.p:], crc32.Checksum(b[:r.p], castagnoli))
	}
}
