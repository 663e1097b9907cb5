package tstream

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/rdbz/rdbz/rdbio"
	"github.com/rdbz/rdbz/rdbio/lzf"
	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

// tbuf is a TSink that keeps T and its record starts.
type tbuf struct {
	bytes.Buffer
	starts []int64
	keys   int
}

func (t *tbuf) Begin(key []byte, input int64) error {
	t.starts = append(t.starts, int64(t.Len()))
	if key != nil {
		t.keys++
	}
	return nil
}

// TestTRoundTrip: every corpus file → T → original is the file byte for
// byte; → raw and → lzf are RDBs the reader walks with a good checksum.
func TestTRoundTrip(t *testing.T) {
	for _, f := range rdbiotest.Files(t) {
		if f.Folder == "generated" && f.Fields["bytes"] > "" && len(f.Fields["bytes"]) > 7 {
			continue // the large dumps go through listcodec's format-2 tests
		}
		src, err := os.ReadFile(f.Path)
		if err != nil {
			t.Fatal(err)
		}
		var tb tbuf
		st, err := EncodeT(&tb, bytes.NewReader(src), Options{}, nil)
		if err != nil {
			if errors.Is(err, rdbio.ErrCorrupt) || errors.Is(err, rdbio.ErrChecksum) {
				continue // files the reader refuses are refused alike
			}
			t.Errorf("%s: EncodeT: %v", f.Name, err)
			continue
		}
		if st.TBytes != int64(tb.Len()) || st.InBytes != int64(len(src)) {
			t.Errorf("%s: stats %+v, T %d bytes, input %d", f.Name, st, tb.Len(), len(src))
		}
		for _, target := range []Target{TargetOriginal, TargetRaw, TargetLZF} {
			var out bytes.Buffer
			if _, err := DecodeT(&out, bytes.NewReader(tb.Bytes()), target, Options{}, nil); err != nil {
				t.Errorf("%s: DecodeT %v: %v", f.Name, target, err)
				continue
			}
			if target == TargetOriginal {
				if !bytes.Equal(out.Bytes(), src) {
					t.Errorf("%s: original differs from the source (%d vs %d bytes)", f.Name, out.Len(), len(src))
				}
				continue
			}
			if _, err := rdbio.Copy(new(bytes.Buffer), bytes.NewReader(out.Bytes()), rdbio.Options{}); err != nil && !errors.Is(err, rdbio.ErrUnsupported) {
				t.Errorf("%s: %v output does not read back: %v", f.Name, target, err)
			}
		}
	}
}

// tcheck is a TSink that checks what block.Writer requires: every record
// gets a byte before the next Begin, input offsets do not decrease.
type tcheck struct {
	t      *testing.T
	name   string
	n, at  int
	input  int64
	begins int
}

func (c *tcheck) Begin(key []byte, input int64) error {
	if c.begins > 0 && c.n == c.at {
		c.t.Errorf("%s: empty record before input offset %d", c.name, input)
	}
	if input < c.input {
		c.t.Errorf("%s: input offset %d after %d", c.name, input, c.input)
	}
	c.begins++
	c.at, c.input = c.n, input
	return nil
}

func (c *tcheck) Write(p []byte) (int, error) { c.n += len(p); return len(p), nil }

// TestTRecords: EncodeT's records are never empty and their offsets grow,
// files rdbio stops in (rdbio.ErrUnsupported) included.
func TestTRecords(t *testing.T) {
	for _, f := range rdbiotest.Files(t) {
		if f.Folder == "generated" {
			continue
		}
		src, err := os.ReadFile(f.Path)
		if err != nil {
			t.Fatal(err)
		}
		c := &tcheck{t: t, name: f.Name}
		if _, err := EncodeT(c, bytes.NewReader(src), Options{Options: rdbio.Options{IgnoreChecksum: true}}, nil); err != nil && !errors.Is(err, rdbio.ErrCorrupt) {
			t.Errorf("%s: %v", f.Name, err)
		}
	}
}

// TestTHostile: 0xC5 strings that lie, are over the cap, carry flags or
// stand where no string may fail cleanly, naming their offset; and 0xC5 in
// an ordinary RDB is refused.
func TestTHostile(t *testing.T) {
	rdb := func(body ...byte) []byte {
		b := append([]byte("REDIS0009"), body...)
		return append(b, rdbio.OpEOF, 0, 0, 0, 0, 0, 0, 0, 0) // trailer 0: not checked
	}
	key := []byte{0, 1, 'k'} // type string, key "k"
	cases := []struct {
		name string
		in   []byte
		want error
	}{
		{"length runs past the end", rdb(append(key, 0xC5, 0, 0x40|0x3F, 0xFF, 'x')...), rdbio.ErrCorrupt},
		{"over the cap", rdb(append(key, 0xC5, 0, 0x80, 0x10, 0, 0, 0)...), rdbio.ErrTooLarge},
		{"flags", rdb(append(key, 0xC5, 1, 1, 'x')...), rdbio.ErrCorrupt},
		{"zero length", rdb(append(key, 0xC5, 0, 0)...), rdbio.ErrCorrupt},
		{"as a length", rdb(rdbio.OpSelectDB, 0xC5, 0, 1, 'x'), rdbio.ErrCorrupt},
		{"as a collection count", rdb(2, 1, 'k', 0xC5, 0, 1, 'x'), rdbio.ErrCorrupt},
	}
	for _, c := range cases {
		for _, target := range []Target{TargetOriginal, TargetRaw, TargetLZF} {
			_, err := DecodeT(io.Discard, bytes.NewReader(c.in), target, Options{Options: rdbio.Options{Cap: 1 << 20}}, nil)
			var re *rdbio.Error
			if !errors.Is(err, c.want) || !errors.As(err, &re) || re.Offset <= 9 {
				t.Errorf("%s, %v: %v, want %v with an offset", c.name, target, err, c.want)
			}
		}
	}
	plain := rdb(append(key, 0xC5, 0, 1, 'x')...)
	if _, err := rdbio.Copy(io.Discard, bytes.NewReader(plain), rdbio.Options{}); !errors.Is(err, rdbio.ErrCorrupt) {
		t.Errorf("0xC5 in an RDB: %v", err)
	}
	if _, err := EncodeT(&tbuf{}, bytes.NewReader(plain), Options{}, nil); !errors.Is(err, rdbio.ErrCorrupt) {
		t.Errorf("0xC5 in EncodeT's input: %v", err)
	}
	// The good one decodes to each target.
	good := rdb(append(key, 0xC5, 0, 30, 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a')...)
	for _, target := range []Target{TargetOriginal, TargetRaw, TargetLZF} {
		var out bytes.Buffer
		if _, err := DecodeT(&out, bytes.NewReader(good), target, Options{}, nil); err != nil {
			t.Errorf("good, %v: %v", target, err)
		}
		if _, err := rdbio.Copy(io.Discard, bytes.NewReader(out.Bytes()), rdbio.Options{}); err != nil {
			t.Errorf("good, %v: output: %v", target, err)
		}
	}
}

// TestTPipe: EncodeT's LZF strings, done on other goroutines, come out in
// order and as the reading goroutine alone would give them — faithful ones
// decoded, unfaithful ones kept, one over the pipe's size done in line —
// and a corrupt one far into the file fails naming its key and offset.
func TestTPipe(t *testing.T) {
	var enc lzf.Encoder
	file, str, faithful, unfaithful := pipeFile(t, &enc)
	good := append(bytes.Clone(*file), rdbio.OpEOF, 0, 0, 0, 0, 0, 0, 0, 0)
	var tb tbuf
	st, err := EncodeT(&tb, bytes.NewReader(good), Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if st.Decoded != int64(faithful) || st.Unfaithful != int64(unfaithful) || st.TBytes != int64(tb.Len()) {
		t.Errorf("stats %+v, want %d decoded, %d unfaithful, %d T bytes", st, faithful, unfaithful, tb.Len())
	}
	var out bytes.Buffer
	if _, err := DecodeT(&out, bytes.NewReader(tb.Bytes()), TargetOriginal, Options{}, nil); err != nil || !bytes.Equal(out.Bytes(), good) {
		t.Fatalf("original: %v, equal %v", err, bytes.Equal(out.Bytes(), good))
	}
	lit := []byte("0123456789")
	at := str("bad", make([]byte, 12), append([]byte{9}, lit...)) // decodes to 10 of 12
	str("after", []byte(strings.Repeat("xy", 40)), mustSave(t, &enc, []byte(strings.Repeat("xy", 40))))
	*file = append(*file, rdbio.OpEOF, 0, 0, 0, 0, 0, 0, 0, 0)
	_, err = EncodeT(&tbuf{}, bytes.NewReader(*file), Options{}, nil)
	var re *rdbio.Error
	if !errors.Is(err, rdbio.ErrCorrupt) || !errors.As(err, &re) || string(re.Key) != "bad" || re.Offset != at {
		t.Errorf("corrupt LZF: %v, want rdbio.ErrCorrupt for key bad at offset %d", err, at)
	}
}

// TestTPipeInline: on one thread the pipe starts no goroutine and the
// reading goroutine does every string (newTPipe); T, its stats and the
// file DecodeT makes of it, LZF strings encoded again, are those of the
// pipe with workers.
func TestTPipeInline(t *testing.T) {
	var enc lzf.Encoder
	file, _, _, _ := pipeFile(t, &enc)
	good := append(*file, rdbio.OpEOF, 0, 0, 0, 0, 0, 0, 0, 0)
	run := func(procs int) ([]byte, TStats, []byte) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		if p := newTPipe(&tbuf{}, mode{toT: true}, 9, 0); p.inline != (procs == 1) {
			t.Errorf("GOMAXPROCS %d: pipe inline %v", procs, p.inline)
		}
		var tb tbuf
		st, err := EncodeT(&tb, bytes.NewReader(good), Options{}, nil)
		if err != nil {
			t.Fatalf("GOMAXPROCS %d: %v", procs, err)
		}
		var out bytes.Buffer
		if _, err := DecodeT(&out, bytes.NewReader(tb.Bytes()), TargetLZF, Options{}, nil); err != nil {
			t.Fatalf("GOMAXPROCS %d: to LZF: %v", procs, err)
		}
		return tb.Bytes(), st, out.Bytes()
	}
	t2, st2, lzf2 := run(2)
	t1, st1, lzf1 := run(1)
	if !bytes.Equal(t1, t2) || st1 != st2 {
		t.Errorf("one thread: %d T bytes, %+v; with workers %d, %+v", len(t1), st1, len(t2), st2)
	}
	if !bytes.Equal(lzf1, lzf2) {
		t.Errorf("one thread: %d bytes of LZF file; with workers %d", len(lzf1), len(lzf2))
	}
}

// pipeFile is an RDB without its end of 3000 LZF strings, most as Redis
// saves them (faithful), some not (unfaithful), one over pipeMaxString
// decoded, and str, which adds one more.
func pipeFile(t *testing.T, enc *lzf.Encoder) (file *[]byte, str func(key string, v, comp []byte) int64, faithful, unfaithful int) {
	rnd := rand.New(rand.NewPCG(1, 2))
	b := []byte("REDIS0009")
	file = &b
	str = func(key string, v []byte, comp []byte) int64 {
		b = append(b, 0)
		b = rdbio.AppendLen(b, uint64(len(key)))
		b = append(b, key...)
		at := int64(len(b))
		b = rdbio.AppendStringHead(b, rdbio.EncLZF, 0, uint64(len(comp)), uint64(len(v)))
		b = append(b, comp...)
		return at
	}
	for i := range 3000 {
		v := rdbiotest.JSONish(rnd, 40+rnd.IntN(3000))
		if i == 1500 {
			v = rdbiotest.LowEntropy(rnd, pipeMaxString+12345)
		}
		if i%97 == 0 {
			lit := bytes.Repeat([]byte{'a'}, 30) // LZF as no encoder writes it
			str(fmt.Sprintf("u:%d", i), lit, append([]byte{29}, lit...))
			unfaithful++
			continue
		}
		if _, ok := enc.RedisSave(nil, v); !ok {
			v = bytes.Repeat(v[:10], 10)
		}
		str(fmt.Sprintf("k:%d", i), v, mustSave(t, enc, v))
		faithful++
	}
	return file, str, faithful, unfaithful
}

func mustSave(t *testing.T, enc *lzf.Encoder, v []byte) []byte {
	comp, ok := enc.RedisSave(nil, v)
	if !ok {
		t.Fatal("does not compress")
	}
	return comp
}

// TestTOverCapToRaw: an LZF string longer than the cap stays LZF in T;
// DecodeT to raw decodes it as it streams, to the same bytes.
func TestTOverCapToRaw(t *testing.T) {
	var enc lzf.Encoder
	v := bytes.Repeat([]byte("over the cap, "), 400)
	file := append([]byte("REDIS0009"), 0, 1, 'k')
	comp := mustSave(t, &enc, v)
	file = rdbio.AppendStringHead(file, rdbio.EncLZF, 0, uint64(len(comp)), uint64(len(v)))
	file = append(append(file, comp...), rdbio.OpEOF, 0, 0, 0, 0, 0, 0, 0, 0)
	opt := Options{Options: rdbio.Options{Cap: 1 << 10}}
	var tb tbuf
	st, err := EncodeT(&tb, bytes.NewReader(file), opt, nil)
	if err != nil || st.OverCap != 1 || st.Decoded != 0 {
		t.Fatalf("EncodeT: %v, %+v", err, st)
	}
	var out bytes.Buffer
	if _, err := DecodeT(&out, bytes.NewReader(tb.Bytes()), TargetRaw, opt, nil); err != nil {
		t.Fatal(err)
	}
	want := append([]byte("REDIS0009"), 0, 1, 'k')
	want = append(rdbio.AppendLen(want, uint64(len(v))), v...)
	if got := out.Bytes(); len(got) != len(want)+9 || !bytes.Equal(got[:len(want)], want) {
		t.Fatalf("raw output %d bytes, want the string raw (%d bytes before the trailer)", len(got), len(want))
	}
}

// TestTAlteredEveryTarget: a T stream that still parses but is not the
// one its trailer sums — a byte of a decoded LZF string changed, or two
// records of equal length swapped, as swapped blocks of equal size would
// — is a checksum error for every target, not only TargetOriginal (whose
// output is the file the trailer sums; the others sum it on the side).
func TestTAlteredEveryTarget(t *testing.T) {
	src, err := os.ReadFile("../../testdata/small.rdb")
	if err != nil {
		t.Fatal(err)
	}
	var tb tbuf
	if _, err := EncodeT(&tb, bytes.NewReader(src), Options{}, nil); err != nil {
		t.Fatal(err)
	}
	clean := tb.Bytes()
	i := bytes.Index(clean, []byte{0xC0 | rdbio.EncodingT, 0})
	if i < 0 {
		t.Fatal("no 0xC5 string in small.rdb's T")
	}
	flipped := bytes.Clone(clean)
	flipped[i+5] ^= 0x20 // inside the decoded bytes of the string
	var two tbuf
	if _, err := EncodeT(&two, bytes.NewReader(twoKeys(t)), Options{}, nil); err != nil {
		t.Fatal(err)
	}
	swapped := swapEqualRecords(t, two.Bytes(), two.starts)
	for name, tt := range map[string][]byte{"flipped": flipped, "swapped": swapped} {
		for _, target := range []Target{TargetOriginal, TargetRaw, TargetLZF} {
			_, err := DecodeT(io.Discard, bytes.NewReader(tt), target, Options{}, nil)
			if !errors.Is(err, rdbio.ErrChecksum) {
				t.Errorf("%s T, %v: %v; want a checksum error", name, target, err)
			}
			if _, err := DecodeT(io.Discard, bytes.NewReader(tt), target, Options{Options: rdbio.Options{IgnoreChecksum: true}}, nil); err != nil {
				t.Errorf("%s T, %v, checksum ignored: %v", name, target, err)
			}
		}
	}
	for _, target := range []Target{TargetOriginal, TargetRaw, TargetLZF} {
		if _, err := DecodeT(io.Discard, bytes.NewReader(clean), target, Options{}, nil); err != nil {
			t.Errorf("clean T, %v: %v", target, err)
		}
	}
}

// twoKeys is an RDB of two string keys of equal lengths.
func twoKeys(t *testing.T) []byte {
	var b bytes.Buffer
	w, err := rdbio.NewWriter(&b, rdbio.Header{Magic: "REDIS0009", Version: 9})
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte{rdbio.OpSelectDB, 0})
	for _, kv := range []string{"k1", "v1", "k2", "v2"} {
		if kv[0] == 'k' {
			w.Write([]byte{0})
		}
		w.WriteString([]byte(kv))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	w.Flush()
	return b.Bytes()
}

// swapEqualRecords swaps two different key records of T of the same
// length, a T that still parses.
func swapEqualRecords(t *testing.T, tt []byte, starts []int64) []byte {
	t.Helper()
	for a := 1; a+1 < len(starts); a++ {
		for b := a + 1; b+1 < len(starts); b++ {
			ra, rb := tt[starts[a]:starts[a+1]], tt[starts[b]:starts[b+1]]
			if len(ra) == len(rb) && ra[0] == rb[0] && ra[0] < 20 && !bytes.Equal(ra, rb) {
				out := bytes.Clone(tt)
				copy(out[starts[a]:], rb)
				copy(out[starts[b]:], ra)
				return out
			}
		}
	}
	t.Fatal("no two key records of equal length")
	return nil
}

// TestToTRefusesImpossibleLength: an LZF string claiming more decoded bytes
// than its payload can hold fails as corrupt without growing the batch's
// result; a true one decodes behind T's head.
func TestToTRefusesImpossibleLength(t *testing.T) {
	var s strWork
	text := bytes.Repeat([]byte("abcdefgh"), 64)
	comp, ok := new(lzf.Encoder).RedisSave(nil, text)
	if !ok {
		t.Fatal("test string does not compress")
	}
	hold := rdbio.AppendStringHead(nil, rdbio.EncLZF, 0, uint64(len(comp)), uint64(len(text)))
	dst := make([]byte, 3, 16)
	got, err := s.toT(dst, hold, comp, 1<<20, new(TStats))
	if !errors.Is(err, rdbio.ErrCorrupt) || len(got) != 3 || cap(got) != 16 {
		t.Fatalf("a 1 MiB claim of %d bytes: err %v, result len %d cap %d", len(comp), err, len(got), cap(got))
	}
	st := new(TStats)
	got, err = s.toT(dst, hold, comp, len(text), st)
	want := append(rdbio.AppendLen([]byte{0, 0, 0, tByte, 0}, uint64(len(text))), text...)
	if err != nil || !bytes.Equal(got, want) || st.Decoded != 1 {
		t.Fatalf("the true claim: err %v, %d bytes, %d decoded", err, len(got), st.Decoded)
	}
}

// countSink counts T's bytes and keeps none.
type countSink struct{ n int }

func (c *countSink) Begin([]byte, int64) error   { return nil }
func (c *countSink) Write(p []byte) (int, error) { c.n += len(p); return len(p), nil }

// TestTPipeKeepsLargeBatch: in DecodeT, whose pipe LZF-encodes the
// strings, strings larger than a batch reuse the pipe's kept large batch,
// so that twenty more of them allocate less than one string's bytes each
// (a fresh batch for each allocated one and a half). EncodeT's pipe keeps
// none (tpipe.freeBatch).
func TestTPipeKeepsLargeBatch(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	var enc lzf.Encoder
	rnd := rand.New(rand.NewPCG(3, 4))
	const size = 3 * pipeBatch
	allocated := func(n int) uint64 {
		file := []byte("REDIS0009")
		for i := range n {
			v := rdbiotest.LowEntropy(rnd, size)
			comp := mustSave(t, &enc, v)
			file = append(file, 0)
			file = rdbio.AppendLen(file, uint64(len(fmt.Sprint(i))))
			file = append(file, fmt.Sprint(i)...)
			file = rdbio.AppendStringHead(file, rdbio.EncLZF, 0, uint64(len(comp)), uint64(len(v)))
			file = append(file, comp...)
		}
		file = append(file, rdbio.OpEOF, 0, 0, 0, 0, 0, 0, 0, 0)
		var tb tbuf
		if st, err := EncodeT(&tb, bytes.NewReader(file), Options{}, nil); err != nil || st.Decoded != int64(n) {
			t.Fatalf("%d strings: %v, %d decoded", n, err, st.Decoded)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := DecodeT(io.Discard, bytes.NewReader(tb.Bytes()), TargetLZF, Options{}, nil)
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatalf("%d strings: DecodeT: %v", n, err)
		}
		return after.TotalAlloc - before.TotalAlloc
	}
	few, many := allocated(10), allocated(30)
	if many > few+20*size {
		t.Errorf("30 strings of %d bytes allocated %d bytes, 10 of them %d: %.1f bytes a string more", size, many, few, float64(many-few)/20)
	}
	p := newTPipe(&countSink{}, mode{toT: true}, 9, 0)
	p.freeBatch(&tBatch{buf: make([]byte, 0, maxKeptBatch+1)})
	if len(p.large) != 0 {
		t.Errorf("EncodeT's pipe kept a large batch")
	}
	p.close(false)
}
