package columns

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

// sampleSegments compresses the hand-made records and a small corpus file
// (when present) into segments, for the hostile tests and the fuzz seeds.
func sampleSegments(t testing.TB) [][]byte {
	var out [][]byte
	enc, err := NewEncoder(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	tt := &testing.T{}
	recs := handRecords(tt)
	seg, _ := splitOf(recs...)
	b, err := enc.Encode(nil, seg)
	if err != nil {
		t.Fatal(err)
	}
	out = append(out, b)
	p := filepath.Join(rdbiotest.Shared(), "corpus", "public", "librdb__misc_with_stream.rdb")
	if _, err := os.Stat(p); err == nil {
		tf := readT(t, p)
		n := 0
		eachSegment(tf, 16<<10, func(seg *Segment, _ []byte) {
			if n++; n > 4 && !rdbiotest.Long() {
				return
			}
			b, err := enc.Encode(nil, seg)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, b)
		})
	}
	return out
}

func isSentinel(err error) bool {
	return errors.Is(err, ErrCorrupt) || errors.Is(err, ErrLimit) || errors.Is(err, ErrChecksum) || errors.Is(err, ErrDict)
}

// TestTruncatedAndFlipped: every prefix of a segment fails with one of the
// package's errors; so does the segment with any one byte changed, unless
// it still gives the same T (a bit of a zstd frame that does not change
// what it decodes to).
func TestTruncatedAndFlipped(t *testing.T) {
	dec, err := NewDecoder(0)
	if err != nil {
		t.Fatal(err)
	}
	defer dec.Close()
	var out []byte
	for si, seg := range sampleSegments(t) {
		if _, err := dec.Decode(nil, seg); err != nil {
			t.Fatalf("segment %d: %v", si, err)
		}
		step := 1
		if !rdbiotest.Long() {
			step = max(1, len(seg)/400) // about 400 cuts and 1200 changes a segment (RDBZ_LONG=1: every byte)
		}
		for n := 0; n < len(seg); n += step {
			if out, err = dec.Decode(out, seg[:n]); err == nil || !isSentinel(err) {
				t.Fatalf("segment %d cut at %d of %d: %v", si, n, len(seg), err)
			}
		}
		want, _ := dec.Decode(nil, seg)
		bad := append([]byte(nil), seg...)
		for i := 0; i < len(bad); i += step {
			// A flip may leave T as it was (a symbol's weight in an
			// entropy table the data never uses): then Decode may succeed,
			// with the same T; the frame header's unused bit (0x10) is
			// checked.
			for _, x := range []byte{1, 0x10, 0x80, 0xFF} {
				bad[i] ^= x
				out, err = dec.Decode(out, bad)
				if err == nil && !bytes.Equal(out, want) || err != nil && !isSentinel(err) {
					t.Fatalf("segment %d with byte %d xor %02x: %v", si, i, x, err)
				}
				bad[i] ^= x
			}
		}
		for _, f := range frameStarts(seg) {
			bad[f+4] ^= 0x10
			if _, err := dec.Decode(out, bad); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("segment %d with the unused bit of the frame at %d set: %v", si, f, err)
			}
			bad[f+4] ^= 0x10
		}
		if _, err := dec.Decode(out, append(seg, 0)); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("segment %d with a byte after it: %v", si, err)
		}
	}
}

// frameStarts are the offsets of what look like zstd frames in b.
func frameStarts(b []byte) []int {
	var at []int
	for i := 0; ; i++ {
		j := bytes.Index(b[i:], []byte{0x28, 0xB5, 0x2F, 0xFD})
		if j < 0 {
			return at
		}
		i += j
		at = append(at, i)
	}
}

// header builds a segment header (with its checksum) from descriptors.
type hdesc struct {
	id, method int
	raw, size  uint64
}

func buildHeader(version byte, tlen uint64, sum uint32, ds []hdesc) []byte {
	h := []byte{version}
	h = binary.AppendUvarint(h, tlen)
	h = binary.LittleEndian.AppendUint32(h, sum)
	h = binary.AppendUvarint(h, uint64(len(ds)))
	prev := -1
	for _, d := range ds {
		h = binary.AppendUvarint(h, uint64(d.id-prev-1))
		h = append(h, byte(d.method))
		h = binary.AppendUvarint(h, d.raw)
		if d.method != methodStored {
			h = binary.AppendUvarint(h, d.size)
		}
		prev = d.id
	}
	return binary.LittleEndian.AppendUint32(h, crc32.Checksum(h, castagnoli))
}

// TestHostileHeaders: every field of the header lying.
func TestHostileHeaders(t *testing.T) {
	dec, err := NewDecoder(1 << 20)
	if err != nil {
		t.Fatal(err)
	}
	defer dec.Close()
	// A valid segment: T = "abc" in the skeleton.
	tape := []byte{opSkel, 3}
	sum := crc32.Checksum([]byte("abc"), castagnoli)
	good := append(buildHeader(1, 3, sum, []hdesc{{idTape, 0, 2, 2}, {idSkel, 0, 3, 3}}), append(tape, "abc"...)...)
	if got, err := dec.Decode(nil, good); err != nil || string(got) != "abc" {
		t.Fatalf("good segment: %q %v", got, err)
	}
	body := append(append([]byte(nil), tape...), "abc"...)
	cases := []struct {
		name string
		seg  []byte
		want error
		msg  string
	}{
		{"version", append(buildHeader(3, 3, sum, []hdesc{{0, 0, 2, 2}, {1, 0, 3, 3}}), body...), ErrCorrupt, "version 3"},
		{"T length 0", append(buildHeader(1, 0, sum, nil), body...), ErrLimit, "0 T bytes"},
		{"T length over the limit", append(buildHeader(1, 1<<20+1, sum, nil), body...), ErrLimit, "limit"},
		{"T length huge", append(buildHeader(1, 1<<62, sum, nil), body...), ErrLimit, "limit"},
		{"T length short", append(buildHeader(1, 2, sum, []hdesc{{0, 0, 2, 2}, {1, 0, 3, 3}}), body...), ErrCorrupt, "past the end"},
		{"T length long", append(buildHeader(1, 4, sum, []hdesc{{0, 0, 2, 2}, {1, 0, 3, 3}}), body...), ErrCorrupt, "gives 3 bytes"},
		{"T sum", append(buildHeader(1, 3, sum+1, []hdesc{{0, 0, 2, 2}, {1, 0, 3, 3}}), body...), ErrChecksum, "CRC-32C"},
		{"stream count", append(buildHeader(1, 3, sum, make([]hdesc, NumStreams+1)), body...), ErrCorrupt, "streams, at most"},
		{"id twice", append(buildHeader(1, 3, sum, []hdesc{{0, 0, 2, 2}, {0, 0, 3, 3}}), body...), ErrCorrupt, ""},
		{"id out of range", append(buildHeader(1, 3, sum, []hdesc{{0, 0, 2, 2}, {NumStreams, 0, 3, 3}}), body...), ErrCorrupt, "id over"},
		{"method", append(buildHeader(1, 3, sum, []hdesc{{0, 4, 2, 2}, {1, 0, 3, 3}}), body...), ErrCorrupt, "method 4"},
		{"planes not zstd", append(buildHeader(1, 3, sum, []hdesc{{0, 3, 2, 2}, {1, 0, 3, 3}}), body...), ErrCorrupt, "stream 0"},
		{"dictionary", append(buildHeader(1, 3, sum, []hdesc{{0, 2, 2, 2}, {1, 0, 3, 3}}), body...), ErrDict, "dictionary"},
		{"raw 0", append(buildHeader(1, 3, sum, []hdesc{{0, 0, 0, 0}, {1, 0, 3, 3}}), body...), ErrCorrupt, "empty"},
		{"raw huge", append(buildHeader(1, 3, sum, []hdesc{{0, 1, 1 << 40, 2}, {1, 0, 3, 3}}), body...), ErrLimit, "stream 0"},
		{"stored huge", append(buildHeader(1, 3, sum, []hdesc{{0, 1, 2, 1 << 40}, {1, 0, 3, 3}}), body...), ErrLimit, "stream 0"},
		{"stored short", append(buildHeader(1, 3, sum, []hdesc{{0, 0, 2, 2}, {1, 0, 2, 2}}), body...), ErrCorrupt, "follow the header"},
		{"not zstd", append(buildHeader(1, 3, sum, []hdesc{{0, 1, 2, 2}, {1, 0, 3, 3}}), body...), ErrCorrupt, "stream 0"},
		{"header sum", append(good[:len(good)-len(body)-1], append([]byte{good[len(good)-len(body)-1] ^ 1}, body...)...), ErrChecksum, "header CRC"},
		{"empty", nil, ErrCorrupt, "version"},
	}
	for _, c := range cases {
		_, err := dec.Decode(nil, c.seg)
		if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: %v, want %v with %q", c.name, err, c.want, c.msg)
		}
	}
}

// TestHostileTapes: every op lying, through Join.
func TestHostileTapes(t *testing.T) {
	type streams map[int]string
	cases := []struct {
		name string
		tlen int
		s    streams
		msg  string
	}{
		{"unknown op", 1, streams{idTape: "\x00"}, "unknown op"},
		{"op 15", 1, streams{idTape: "\x0f"}, "unknown op"},
		{"entry outside a blob", 1, streams{idTape: "\x0d\x01"}, "unknown op"},
		{"skel past the skeleton", 4, streams{idTape: "\x01\x04", idSkel: "abc"}, "stream 1"},
		{"skel past T", 2, streams{idTape: "\x01\x03", idSkel: "abc"}, "past the end of the segment"},
		{"skel without its operand", 1, streams{idTape: "\x01"}, "tape ends"},
		{"operand overflows", 1, streams{idTape: "\x01\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"}, "tape ends"},
		{"role 0", 2, streams{idTape: "\x02\x00"}, "role out of range"},
		{"role 256", 2, streams{idTape: "\x02\x80\x02"}, "role out of range"},
		{"string without length", 2, streams{idTape: "\x02\x01"}, fmt.Sprint("stream ", lensID(1))},
		{"string past its data", 4, streams{idTape: "\x02\x01", lensID(1): "\x05", dataID(1): "abc"}, fmt.Sprint("stream ", dataID(1))},
		{"string past T", 3, streams{idTape: "\x02\x01", lensID(1): "\x03", dataID(1): "abc"}, "past the end"},
		{"length not a varint", 4, streams{idTape: "\x02\x01", lensID(1): "\xff\xff\xff\xff\xff\xff\xff\xff\xff\x7f"}, "not a uvarint"},
		{"length cut short", 4, streams{idTape: "\x02\x01", lensID(1): "\xff"}, "ends early"},
		{"int out of 32 bits", 9, streams{idTape: "\x04\x01", numsID(1): "\x80\x80\x80\x80\x80\x01"}, "32 bits"},
		{"double tag", 8, streams{idTape: "\x06\x01", numsID(1): "\x03"}, "tag"},
		{"double bytes missing", 8, streams{idTape: "\x06\x01", numsID(1): "\x01", lensID(1): "\x08", dataID(1): "abc"}, fmt.Sprint("stream ", dataID(1))},
		{"double not 8 bytes", 8, streams{idTape: "\x06\x01", numsID(1): "\x01", lensID(1): "\x03", dataID(1): "abc"}, "not 8 bytes"},
		{"listpack count past the tape", 100, streams{idTape: "\x07\x10\x0d\x01"}, "count"},
		{"listpack entry op", 100, streams{idTape: "\x07\x01\x01\x01"}, "entry op"},
		{"listpack entry past its data", 100, streams{idTape: "\x07\x01\x0d\x01", lensID(1): "\x09"}, fmt.Sprint("stream ", dataID(1))},
		{"listpack past T", 5, streams{idTape: "\x07\x01\x0e\x01", numsID(1): "\x02"}, "past the end"},
		{"ziplist past T", 5, streams{idTape: "\x09\x01\x0e\x01", numsID(1): "\x02"}, "past the end"},
		{"ziplist at T's end", 1, streams{idTape: "\x01\x01\x09\x00", idSkel: "a"}, "past the end"},
		{"intset of 0", 20, streams{idTape: "\x0b\x01\x00", numsID(1): "\x02"}, "count"},
		{"intset count past nums", 20, streams{idTape: "\x0b\x01\x05", numsID(1): "\x02"}, "count"},
		{"intset overflow", 40, streams{idTape: "\x0b\x01\x02", numsID(1): "\xfe\xff\xff\xff\xff\xff\xff\xff\xff\x01\x05"}, "out of order"},
		{"T short", 5, streams{idTape: "\x01\x03", idSkel: "abc"}, "gives 3 bytes"},
		{"skeleton left over", 2, streams{idTape: "\x01\x02", idSkel: "abc"}, "stream 1: 1 of its 3 bytes left over"},
		{"nums left over", 3, streams{idTape: "\x01\x03", idSkel: "abc", numsID(7): "\x01"}, fmt.Sprint("stream ", numsID(7))},
	}
	for _, c := range cases {
		seg := &Segment{tlen: c.tlen}
		for id, b := range c.s {
			seg.bufs[id] = []byte(b)
		}
		_, err := Join(nil, seg)
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: %v, want ErrCorrupt with %q", c.name, err, c.msg)
		}
	}
	seg := &Segment{tlen: MaxSegment + 1}
	if _, err := Join(nil, seg); !errors.Is(err, ErrLimit) {
		t.Errorf("T over MaxSegment: %v", err)
	}
	seg = &Segment{tlen: 3}
	seg.bufs[idTape], seg.bufs[idSkel] = []byte{opSkel, 3}, []byte("abc")
	if _, err := Join(nil, seg); !errors.Is(err, ErrChecksum) {
		t.Errorf("wrong sum: %v", err)
	}
}

// storedSegment builds a segment of the given version whose streams are
// stored as they are.
func storedSegment(version byte, t []byte, s map[int]string) []byte {
	var ds []hdesc
	var body []byte
	for id := range NumStreams {
		if b, ok := s[id]; ok {
			ds = append(ds, hdesc{id, methodStored, uint64(len(b)), uint64(len(b))})
			body = append(body, b...)
		}
	}
	return append(buildHeader(version, uint64(len(t)), crc32.Checksum(t, castagnoli), ds), body...)
}

// TestHostileFields: a version 2 segment's field markers lying, and a
// version 1 segment's byte 0x04 read as itself.
func TestHostileFields(t *testing.T) {
	dec, err := NewDecoder(1 << 20)
	if err != nil {
		t.Fatal(err)
	}
	defer dec.Close()
	good, want := fieldStreams()
	doc, tape := want[1:], good[idTape]
	if got, err := dec.Decode(nil, storedSegment(2, want, good)); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("good segment: %q %v", got, err)
	}
	with := func(id int, b string) map[int]string {
		s := maps.Clone(good)
		if b == "" {
			delete(s, id)
		} else {
			s[id] = b
		}
		return s
	}
	tmplID := streamID(16, partTmpl)
	withTmpl := func(tm string) map[int]string {
		s := with(tmplID, tm)
		s[streamID(16, partTLens)] = string([]byte{byte(len(doc)), byte(len(tm))})
		return s
	}
	asTokens := with(dataID(17), "")
	delete(asTokens, lensID(17))
	asTokens[streamID(17, partTmpl)], asTokens[streamID(17, partTLens)] = "xyz", "\x03\x03"
	left := with(dataID(17), "xyzw")
	left[lensID(17)] = "\x03\x01"
	cases := []struct {
		name string
		s    map[int]string
		msg  string
	}{
		{"the owner as its field", with(tmplID, "{\"a\":\"\x04\x10\"}"), errTokField.Error()},
		{"role 0 as a field", with(tmplID, "{\"a\":\"\x04\x00\"}"), errTokField.Error()},
		{"a field with numbers", with(numsID(17), "\x01"), errTokField.Error()},
		{"a field stored sorted", with(orderID(17), "\x00"), errTokField.Error()},
		{"a field stored as tokens", asTokens, errTokField.Error()},
		{"a field without strings", with(tmplID, "{\"a\":\"\x04\x12\"}"), errTokens.Error()},
		{"a marker cut short", withTmpl("{\"a\":\"xyz\"}\x04"), errTokMark.Error()},
		{"a field's string left", left, errFieldLeft.Error()},
		{"the tape takes a field's string", with(idTape, tape+string([]byte{opBytes, 17})), "ends early"},
		{"an escape of 0x06", withTmpl("{\"a\":\"\x03\x06\"}"), errTokMark.Error()},
		{"a path slot cut short", withTmpl("{\"a\":\"xyz\"}\x05"), errTokMark.Error()},
		{"a path slot among the ordinal ones", withTmpl("{\"a\":\"xyz\"}\x05\x0f"), errTokMark.Error()},
		{"a path slot past the last", withTmpl("{\"a\":\"xyz\"}\x05\x40"), errTokMark.Error()},
	}
	for _, c := range cases {
		_, err := dec.Decode(nil, storedSegment(2, want, c.s))
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: %v, want ErrCorrupt with %q", c.name, err, c.msg)
		}
	}
	// Version 1: 0x04 is a byte of the string, and cannot be escaped.
	v1 := "a\x04b"
	s1 := map[int]string{idTape: tape, tmplID: v1, streamID(16, partTLens): "\x03\x03"}
	want1 := append([]byte{3}, v1...)
	if got, err := dec.Decode(nil, storedSegment(1, want1, s1)); err != nil || !bytes.Equal(got, want1) {
		t.Errorf("version 1 with a byte 0x04: %q %v", got, err)
	}
	if _, err := dec.Decode(nil, storedSegment(2, want1, s1)); !errors.Is(err, ErrCorrupt) {
		t.Errorf("version 2 reading 0x04 'b' as a field of role 98: %v", err)
	}
	s1[tmplID], s1[streamID(16, partTLens)] = "a\x03\x04b", "\x03\x04"
	if _, err := dec.Decode(nil, storedSegment(1, want1, s1)); !errors.Is(err, ErrCorrupt) {
		t.Errorf("version 1 with 0x04 escaped: %v", err)
	}
	if got, err := dec.Decode(nil, storedSegment(2, want1, s1)); err != nil || !bytes.Equal(got, want1) {
		t.Errorf("version 2 with 0x04 escaped: %q %v", got, err)
	}
}

// fieldStreams are the streams of a version 2 segment whose one string,
// a JSON document, has its value in a field, and the T they make.
func fieldStreams() (map[int]string, []byte) {
	doc := `{"a":"xyz"}`
	tmpl := "{\"a\":\"\x04\x11\"}" // role 16's template: role 17's next string
	tlens := string([]byte{byte(len(doc)), byte(len(tmpl))})
	tape := string([]byte{opStr, 16})
	s := map[int]string{idTape: tape, streamID(16, partTmpl): tmpl, streamID(16, partTLens): tlens, dataID(17): "xyz", lensID(17): "\x03"}
	return s, append([]byte{byte(len(doc))}, doc...)
}
