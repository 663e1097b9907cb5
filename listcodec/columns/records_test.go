package columns

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/rdbz/rdbz/rdbio/blob"
	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

// Hand-made records of every value type and encoding: each comes back
// byte for byte, and its blobs are taken apart exactly when they are
// canonical.

func rlen(n int) []byte {
	var b [9]byte
	return b[:putRDBLen(b[:], uint64(n))]
}

func rstrOf(s string) []byte  { return append(rlen(len(s)), s...) }
func rstrT(s string) []byte   { return append(append([]byte{0xC5, 0}, rlen(len(s))...), s...) }
func rint(v int64) []byte     { var b [5]byte; return b[:putRDBInt(b[:], v, rdbIntWidth(v))] }
func cat(p ...[]byte) []byte  { return bytes.Join(p, nil) }
func blobStr(b []byte) []byte { return append(rlen(len(b)), b...) }

func listpack(t *testing.T, es ...any) []byte {
	w := blob.NewListpackWriter(1 << 30)
	for _, e := range es {
		switch v := e.(type) {
		case string:
			if err := w.AppendString([]byte(v)); err != nil {
				t.Fatal(err)
			}
		case int:
			if err := w.AppendInt(int64(v)); err != nil {
				t.Fatal(err)
			}
		}
	}
	return append([]byte(nil), w.Bytes()...)
}

func ziplist(t *testing.T, es ...any) []byte {
	w := blob.NewZiplistWriter(1 << 30)
	for _, e := range es {
		switch v := e.(type) {
		case string:
			if err := w.AppendString([]byte(v)); err != nil {
				t.Fatal(err)
			}
		case int:
			if err := w.AppendInt(int64(v)); err != nil {
				t.Fatal(err)
			}
		}
	}
	return append([]byte(nil), w.Bytes()...)
}

func intset(t *testing.T, vs ...int64) []byte {
	w := blob.NewIntsetWriter(1 << 30)
	for _, v := range vs {
		if err := w.AppendInt(v); err != nil {
			t.Fatal(err)
		}
	}
	return append([]byte(nil), w.Bytes()...)
}

type handRec struct {
	name string
	rec  []byte
	key  bool
	// blobs is the number of blob ops the record's split must hold.
	blobs int
}

func handRecords(t *testing.T) []handRec {
	long := strings.Repeat("0123456789abcdef", 300) // 4800 bytes
	mid := strings.Repeat("x", 100)
	big := strings.Repeat("y", 70000)
	many := make([]any, 0, 70000)
	for i := range 70000 {
		many = append(many, i%300-150)
	}
	f64 := func(f float64) []byte { return binary.LittleEndian.AppendUint64(nil, math.Float64bits(f)) }
	nonCanonLP := listpack(t, "a", 5)
	nonCanonLP[8], nonCanonLP = 0xC0, append(nonCanonLP[:9], append([]byte{5, 2}, nonCanonLP[10:]...)...) // 5 as a 13-bit integer
	binary.LittleEndian.PutUint32(nonCanonLP, uint32(len(nonCanonLP)))
	unknownCount := listpack(t, "a", "b")
	binary.LittleEndian.PutUint16(unknownCount[4:], 0xFFFF)
	wideIntset := binary.LittleEndian.AppendUint32(nil, 8)
	wideIntset = binary.LittleEndian.AppendUint32(wideIntset, 2)
	wideIntset = binary.LittleEndian.AppendUint64(wideIntset, 1)
	wideIntset = binary.LittleEndian.AppendUint64(wideIntset, 2)
	stream := cat([]byte{15}, rstrOf("s"), rlen(1), rstrOf(string(make([]byte, 16))),
		blobStr(listpack(t, 1, 0, 1, "f", 0, 0, 0, 0, "v", 1)), rlen(1), rlen(5), rlen(0), rlen(0))
	return []handRec{
		{"magic", []byte("REDIS0011"), false, 0},
		{"aux", cat([]byte{0xFA}, rstrOf("redis-ver"), rstrOf("7.0.15")), false, 0},
		{"selectdb", []byte{0xFE, 0}, false, 0},
		{"expiry", cat([]byte{0xFC}, make([]byte, 8)), false, 0},
		{"string raw", cat([]byte{0}, rstrOf("k"), rstrOf("hello")), true, 0},
		{"string long", cat([]byte{0}, rstrOf("k:1"), rstrOf(long)), true, 0},
		{"string 70000", cat([]byte{0}, rstrOf("k:1"), rstrOf(big)), true, 0},
		{"string empty", cat([]byte{0}, rstrOf(""), rstrOf("")), true, 0},
		{"string int", cat([]byte{0}, rint(7), rint(-100000)), true, 0},
		{"string int wide", cat([]byte{0}, rstrOf("k"), []byte{0xC2, 5, 0, 0, 0}), true, 0},
		{"string T", cat([]byte{0}, rstrT("k:2"), rstrT(long)), true, 0},
		{"string T flags", cat([]byte{0}, rstrOf("k"), []byte{0xC5, 1, 3}, []byte("abc")), true, 0},
		{"string long prefix", cat([]byte{0}, rstrOf("k"), []byte{0x80, 0, 0, 0, 3}, []byte("abc")), true, 0},
		{"string LZF kept", cat([]byte{0}, rstrOf("k"), []byte{0xC3, 4, 6, 1, 'a', 'b', 0xA0, 0}), true, 0},
		{"string 0xC4", cat([]byte{0}, rstrOf("k"), []byte{0xC4, 0, 2, 9, 1, 2}), true, 0},
		{"list", cat([]byte{1}, rstrOf("l"), rlen(3), rstrOf("a"), rint(3), rstrT(mid)), true, 0},
		{"set", cat([]byte{2}, rstrOf("s"), rlen(2), rstrOf("a"), rstrOf("b")), true, 0},
		{"zset", cat([]byte{3}, rstrOf("z"), rlen(3), rstrOf("a"), []byte{3}, []byte("1.5"), rstrOf("b"), []byte{253}, rstrOf("c"), []byte{255}), true, 0},
		{"hash", cat([]byte{4}, rstrOf("h"), rlen(2), rstrOf("name"), rstrOf("x"), rint(5), rint(300)), true, 0},
		{"zset2", cat([]byte{5}, rstrOf("z"), rlen(5), rstrOf("a"), f64(1), rstrOf("b"), f64(-2.5), rstrOf("c"), f64(math.Copysign(0, -1)), rstrOf("d"), f64(math.Inf(1)), rstrOf("e"), f64(1<<60)), true, 0},
		{"module", cat([]byte{7}, rstrOf("m"), rlen(12345), rlen(2), rlen(7), rlen(0)), true, 0},
		{"zipmap", cat([]byte{9}, rstrOf("h"), blobStr(rdbiotest.ZipmapOf("a", "b"))), true, 0},
		{"list ziplist", cat([]byte{10}, rstrOf("l"), blobStr(ziplist(t, "a", 1, -1, 12, 13, 200, 70000, 1<<40, mid, long))), true, 1},
		{"list ziplist odd", cat([]byte{10}, rstrOf("l"), blobStr(rdbiotest.OddZiplist())), true, 0},
		{"intset", cat([]byte{11}, rstrOf("i"), blobStr(intset(t, -5, 1, 2, 1000))), true, 1},
		{"intset wide", cat([]byte{11}, rstrOf("i"), blobStr(intset(t, math.MinInt64, 0, math.MaxInt64))), true, 1},
		{"intset not canonical", cat([]byte{11}, rstrOf("i"), blobStr(wideIntset)), true, 0},
		{"zset ziplist", cat([]byte{12}, rstrOf("z"), blobStr(ziplist(t, "a", 1, "b", "2.5"))), true, 1},
		{"hash ziplist T", cat([]byte{13}, rstrOf("h"), rstrT(string(ziplist(t, "f", "v", "g", 7)))), true, 1},
		{"quicklist", cat([]byte{14}, rstrOf("q"), rlen(2), blobStr(ziplist(t, "a", "b")), blobStr(rdbiotest.OddZiplist())), true, 1},
		{"stream", stream, true, 1},
		{"hash listpack", cat([]byte{16}, rstrOf("h:1"), blobStr(listpack(t, "name", "x", "n", 5, "big", long, "neg", -5000, "i64", 1<<40))), true, 1},
		{"hash listpack 13-bit 5", cat([]byte{16}, rstrOf("h"), blobStr(nonCanonLP)), true, 0},
		{"hash listpack count 65535", cat([]byte{16}, rstrOf("h"), blobStr(unknownCount)), true, 0},
		{"zset listpack", cat([]byte{17}, rstrOf("z"), rstrT(string(listpack(t, "a", 1, "b", "2.5")))), true, 1},
		{"quicklist2", cat([]byte{18}, rstrOf("q"), rlen(3), rlen(2), blobStr(listpack(t, "a", 1)), rlen(1), rstrOf(long), rlen(2), rstrT(string(listpack(t, mid)))), true, 2},
		{"set listpack 70000", cat([]byte{20}, rstrOf("s"), blobStr(listpack(t, many...))), true, 1},
		{"ziplist 70000", cat([]byte{10}, rstrOf("l"), blobStr(ziplist(t, many...))), true, 1},
		{"hash metadata", cat([]byte{24}, rstrOf("h"), make([]byte, 8), rlen(1), rlen(0), rstrOf("f"), rstrOf("v")), true, 0},
		{"hash listpack ex", cat([]byte{25}, rstrOf("h"), make([]byte, 8), blobStr(listpack(t, "f", "v", 0, "g", 5, 1700000000000))), true, 1},
		{"unknown type", cat([]byte{100}, rstrOf("x"), []byte{1, 2, 3}), true, 0},
		{"truncated", cat([]byte{16}, rstrOf("h"), rlen(100), []byte("abc")), true, 0},
		{"garbage", []byte{0, 0xC7, 1, 2}, true, 0},
		{"eof", cat([]byte{0xFF}, make([]byte, 8)), false, 0},
	}
}

func TestHandRecords(t *testing.T) {
	recs := handRecords(t)
	// Each record alone after the magic, then all of them in one segment.
	for _, hr := range recs[1:] {
		seg, tt := splitOf(recs[0], hr)
		checkJoin(t, hr.name, seg, tt)
		if got := countBlobOps(seg); got != hr.blobs {
			t.Errorf("%s: %d blob ops, want %d", hr.name, got, hr.blobs)
		}
	}
	seg, tt := splitOf(recs...)
	checkJoin(t, "all", seg, tt)
}

func splitOf(recs ...handRec) (*Segment, []byte) {
	s := NewSplitter()
	seg := &Segment{}
	s.Start(seg)
	var tt []byte
	for _, r := range recs {
		s.Record(r.rec, r.key)
		tt = append(tt, r.rec...)
	}
	return s.Finish(), tt
}

func checkJoin(t *testing.T, name string, seg *Segment, want []byte) {
	t.Helper()
	got, err := Join(nil, seg)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s: Join gives %x, want %x", name, got[:min(len(got), 64)], want[:min(len(want), 64)])
	}
	enc, _ := NewEncoder(Options{})
	defer enc.Close()
	dec, _ := NewDecoder(0)
	defer dec.Close()
	comp, err := enc.Encode(nil, seg)
	if err != nil {
		t.Fatal(err)
	}
	if got, err = dec.Decode(nil, comp); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("%s: Decode: %v (equal %v)", name, err, bytes.Equal(got, want))
	}
}

// countBlobOps walks the tape and counts its blob ops.
func countBlobOps(seg *Segment) int {
	tape := seg.bufs[idTape]
	n := 0
	for p := 0; p < len(tape); {
		op := tape[p]
		p++
		_, k := binary.Uvarint(tape[p:])
		p += k
		switch op {
		case opLP, opLPT, opZL, opZLT:
			n++
		case opIS, opIST:
			n++
			_, k := binary.Uvarint(tape[p:])
			p += k
		}
	}
	return n
}

func TestHandRecordStrings(t *testing.T) {
	// Every string length around the RDB length and listpack/ziplist
	// encoding boundaries, in every kind of container.
	var recs []handRec
	recs = append(recs, handRec{"magic", []byte("REDIS0011"), false, 0})
	for _, n := range []int{0, 1, 63, 64, 126, 127, 128, 253, 254, 4095, 4096, 16382, 16383, 16384} {
		s := strings.Repeat("a", n)
		recs = append(recs,
			handRec{fmt.Sprint("str ", n), cat([]byte{0}, rstrOf("k"), rstrOf(s)), true, 0},
			handRec{fmt.Sprint("lp ", n), cat([]byte{16}, rstrOf("k"), blobStr(listpack(t, "f", s, "g", n, "h", -n))), true, 1},
			handRec{fmt.Sprint("zl ", n), cat([]byte{13}, rstrOf("k"), blobStr(ziplist(t, "f", s, "g", n, "h", -n, "i", s))), true, 1},
		)
	}
	for _, v := range []int64{0, 12, 13, 127, 128, -128, -129, 4095, 4096, -4096, -4097, 32767, 32768, 1<<23 - 1, 1 << 23, 1<<31 - 1, 1 << 31, math.MaxInt64, math.MinInt64} {
		recs = append(recs,
			handRec{fmt.Sprint("lp int ", v), cat([]byte{16}, rstrOf("k"), blobStr(listpack(t, "f", int(v)))), true, 1},
			handRec{fmt.Sprint("zl int ", v), cat([]byte{13}, rstrOf("k"), blobStr(ziplist(t, "f", int(v)))), true, 1},
			handRec{fmt.Sprint("is ", v), cat([]byte{11}, rstrOf("k"), blobStr(intset(t, v))), true, 1},
		)
		if w := rdbIntWidth(v); w > 0 {
			recs = append(recs, handRec{fmt.Sprint("int ", v), cat([]byte{0}, rstrOf("k"), rint(v)), true, 0})
		}
	}
	for _, hr := range recs[1:] {
		seg, tt := splitOf(recs[0], hr)
		checkJoin(t, hr.name, seg, tt)
		if got := countBlobOps(seg); got != hr.blobs {
			t.Errorf("%s: %d blob ops, want %d", hr.name, got, hr.blobs)
		}
	}
}
