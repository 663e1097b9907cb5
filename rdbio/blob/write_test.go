package blob_test

import (
	"bytes"
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rdbz/rdbz/rdbio/blob"
)

func TestRedisInt(t *testing.T) {
	for _, c := range []struct {
		s  string
		v  int64
		ok bool
	}{
		{"0", 0, true}, {"7", 7, true}, {"-1", -1, true}, {"12345", 12345, true},
		{"9223372036854775807", math.MaxInt64, true}, {"-9223372036854775808", math.MinInt64, true},
		{"9223372036854775808", 0, false}, {"-9223372036854775809", 0, false},
		{"99999999999999999999", 0, false}, {"", 0, false}, {"-", 0, false}, {"-0", 0, false},
		{"01", 0, false}, {"+1", 0, false}, {" 1", 0, false}, {"1 ", 0, false}, {"1a", 0, false},
		{"1.0", 0, false}, {"00", 0, false},
	} {
		v, ok := blob.RedisInt([]byte(c.s))
		if v != c.v || ok != c.ok {
			t.Errorf("RedisInt(%q) = %d, %v; want %d, %v", c.s, v, ok, c.v, c.ok)
		}
	}
}

// entryText is an entry as the server reads it back: an integer's digits.
func entryText(e blob.Entry) string {
	if e.IsInt {
		return strconv.FormatInt(e.Int, 10)
	}
	return string(e.Str)
}

// blobTexts reads a blob's entries back as text.
func blobTexts(t *testing.T, kind blob.Kind, b []byte) []string {
	t.Helper()
	var out []string
	if err := blob.Entries(kind, b, func(e blob.Entry) error { out = append(out, entryText(e)); return nil }); err != nil {
		t.Fatalf("%s: %v", kind, err)
	}
	return out
}

// codecElements has every encoding boundary of listpacks and ziplists.
func codecElements() []string {
	var els []string
	for _, v := range []int64{0, 1, 12, 13, 127, 128, -1, -128, -129, 4095, 4096, -4096, -4097,
		32767, 32768, -32768, -32769, 1<<23 - 1, 1 << 23, -1 << 23, -1<<23 - 1,
		math.MaxInt32, math.MaxInt32 + 1, math.MinInt32, math.MinInt32 - 1, math.MaxInt64, math.MinInt64} {
		els = append(els, strconv.FormatInt(v, 10))
	}
	for _, n := range []int{0, 1, 20, 21, 31, 32, 63, 64, 120, 127, 128, 250, 251, 252, 253, 254, 4095,
		4096, 16383, 16384, 16385, 70000} {
		els = append(els, strings.Repeat("x", n))
	}
	return append(els, "-0", "01", "+5", "1.5", "9223372036854775808", "abc")
}

func TestWritersRoundTrip(t *testing.T) {
	els := codecElements()
	for _, w := range []struct {
		kind blob.Kind
		w    blob.EntryWriter
	}{{blob.Listpack, blob.NewListpackWriter(1 << 20)}, {blob.Ziplist, blob.NewZiplistWriter(1 << 20)}} {
		rev := slices.Clone(els)
		slices.Reverse(rev)
		for _, order := range [][]string{els, rev} {
			w.w.Reset()
			for _, s := range order {
				if err := w.w.Append(blob.Entry{Str: []byte(s)}); err != nil {
					t.Fatalf("%s: %v", w.kind, err)
				}
			}
			b := w.w.Bytes()
			if len(b) != w.w.Size() || w.w.Len() != len(order) {
				t.Errorf("%s: %d bytes, Size %d; Len %d of %d", w.kind, len(b), w.w.Size(), w.w.Len(), len(order))
			}
			if err := blob.Check(w.kind, b, true, 1); err != nil {
				t.Errorf("%s: %v", w.kind, err)
			}
			if got := blobTexts(t, w.kind, b); !slices.Equal(got, order) {
				t.Errorf("%s: entries read back differ", w.kind)
			}
			if n, ok := blob.Count(w.kind, b, true); !ok || n != int64(len(order)) {
				t.Errorf("%s: blob.Count %d, %v", w.kind, n, ok)
			}
		}
	}
}

func TestWritersCountUnknown(t *testing.T) {
	for _, w := range []blob.EntryWriter{blob.NewListpackWriter(1 << 20), blob.NewZiplistWriter(1 << 20)} {
		kind, off := blob.Listpack, 4
		if _, ok := w.(*blob.ZiplistWriter); ok {
			kind, off = blob.Ziplist, 8
		}
		for _, n := range []int{65534, 65535, 70000} {
			w.Reset()
			for i := range n {
				if err := w.Append(blob.Entry{Int: int64(i % 100), IsInt: true}); err != nil {
					t.Fatal(err)
				}
			}
			b := w.Bytes()
			want := min(n, 65535)
			if h := int(b[off]) | int(b[off+1])<<8; h != want {
				t.Errorf("%s of %d entries: header count %d, want %d", kind, n, h, want)
			}
			if c, ok := blob.Count(kind, b, true); !ok || c != int64(n) {
				t.Errorf("%s of %d entries: blob.Count %d, %v", kind, n, c, ok)
			}
			if err := blob.Check(kind, b, true, 1); err != nil {
				t.Errorf("%s: %v", kind, err)
			}
		}
	}
}

func TestIntsetWriter(t *testing.T) {
	for _, c := range []struct {
		in    []int64
		width int
	}{
		{[]int64{5, -3, 1}, 2}, {[]int64{math.MaxInt16, math.MinInt16}, 2}, {[]int64{1, math.MaxInt16 + 1}, 4},
		{[]int64{math.MinInt16 - 1, 0}, 4}, {[]int64{math.MinInt32, math.MaxInt32}, 4},
		{[]int64{3, math.MaxInt32 + 1, 3}, 8}, {[]int64{math.MinInt64, math.MaxInt64, 0}, 8},
	} {
		w := blob.NewIntsetWriter(1 << 10)
		for _, v := range c.in {
			if err := w.Append(blob.Entry{Str: []byte(strconv.FormatInt(v, 10))}); err != nil {
				t.Fatal(err)
			}
		}
		b := w.Bytes()
		want := slices.Compact(slices.Sorted(slices.Values(c.in)))
		var got []int64
		if err := blob.Entries(blob.Intset, b, func(e blob.Entry) error { got = append(got, e.Int); return nil }); err != nil {
			t.Fatal(err)
		}
		if int(b[0]) != c.width || !slices.Equal(got, want) {
			t.Errorf("%v: width %d, members %v; want %d, %v", c.in, b[0], got, c.width, want)
		}
		if err := blob.Check(blob.Intset, b, true, 1); err != nil {
			t.Errorf("%v: %v", c.in, err)
		}
	}
	w := blob.NewIntsetWriter(1 << 10)
	if err := w.Append(blob.Entry{Str: []byte("01")}); !errors.Is(err, blob.ErrNotInteger) {
		t.Errorf("non-integer member: %v, want blob.ErrNotInteger", err)
	}
}

func TestWritersCap(t *testing.T) {
	long := bytes.Repeat([]byte("y"), 100)
	for _, w := range []blob.EntryWriter{blob.NewListpackWriter(300), blob.NewZiplistWriter(300), blob.NewIntsetWriter(300)} {
		var err error
		for err == nil {
			e := blob.Entry{Str: long}
			if _, ok := w.(*blob.IntsetWriter); ok {
				e = blob.Entry{Int: 1 << 40, IsInt: true}
			}
			err = w.Append(e)
		}
		if !errors.Is(err, blob.ErrTooLarge) {
			t.Fatalf("%T: %v, want blob.ErrTooLarge", w, err)
		}
		n, size := w.Len(), w.Size()
		if size > 300 || w.Append(blob.Entry{Str: long}) == nil {
			t.Errorf("%T: %d bytes over the cap, or a refused entry taken", w, size)
		}
		if w.Len() != n || len(w.Bytes()) > 300 {
			t.Errorf("%T: a refused entry changed the writer", w)
		}
	}
}

func TestSingleEntryFrame(t *testing.T) {
	for _, kind := range []blob.Kind{blob.Listpack, blob.Ziplist} {
		for _, n := range []int{21, 63, 64, 125, 126, 127, 128, 253, 254, 4095, 4096, 16383, 16384, 70000} {
			s := bytes.Repeat([]byte("z"), n)
			w := blob.EntryWriter(blob.NewListpackWriter(1 << 20))
			if kind == blob.Ziplist {
				w = blob.NewZiplistWriter(1 << 20)
			}
			if err := w.Append(blob.Entry{Str: s}); err != nil {
				t.Fatal(err)
			}
			head, tail, err := blob.SingleEntryFrame(kind, uint64(n))
			if err != nil {
				t.Fatal(err)
			}
			if got := slices.Concat(head, s, tail); !bytes.Equal(got, w.Bytes()) {
				t.Errorf("%s, %d bytes: frame differs from the writer's blob", kind, n)
			}
		}
		if _, _, err := blob.SingleEntryFrame(kind, 20); err == nil {
			t.Errorf("%s: a 20-byte frame was given", kind)
		}
	}
}

func TestRecode(t *testing.T) {
	lw, zw := blob.NewListpackWriter(1<<20), blob.NewZiplistWriter(1<<20)
	for _, s := range codecElements() {
		if err := lw.AppendString([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	lp := slices.Clone(lw.Bytes())
	if err := blob.Recode(zw, blob.Listpack, lp); err != nil {
		t.Fatal(err)
	}
	lw.Reset()
	if err := blob.Recode(lw, blob.Ziplist, zw.Bytes()); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(lw.Bytes(), lp) {
		t.Error("listpack → ziplist → listpack is not the same listpack")
	}
	iw := blob.NewIntsetWriter(1 << 10)
	if err := blob.Recode(iw, blob.Listpack, lp); !errors.Is(err, blob.ErrNotInteger) {
		t.Errorf("recoding strings as an intset: %v, want blob.ErrNotInteger", err)
	}
	if err := blob.Recode(zw, blob.Listpack, lp[:len(lp)-1]); !errors.Is(err, blob.ErrCorrupt) {
		t.Errorf("recoding a cut listpack: %v, want blob.ErrCorrupt", err)
	}
}

// FuzzWriters builds a listpack, a ziplist and an intset from entries cut
// out of the input (at 0x00 bytes): each must pass the servers' deep check
// and read back as the same entries.
func FuzzWriters(f *testing.F) {
	f.Add([]byte("a\x00123\x00-5\x00\x0001\x00" + strings.Repeat("q", 300)))
	f.Add([]byte("9223372036854775807\x00-9223372036854775808\x0070000\x00-4097"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<14 {
			return
		}
		parts := bytes.Split(data, []byte{0})
		want := make([]string, len(parts))
		for i, p := range parts {
			want[i] = string(p)
		}
		for _, w := range []blob.EntryWriter{blob.NewListpackWriter(1 << 16), blob.NewZiplistWriter(1 << 16)} {
			kind := blob.Listpack
			if _, ok := w.(*blob.ZiplistWriter); ok {
				kind = blob.Ziplist
			}
			for _, p := range parts {
				if err := w.Append(blob.Entry{Str: p}); err != nil {
					t.Fatal(err)
				}
			}
			b := w.Bytes()
			if err := blob.Check(kind, b, true, 1); err != nil {
				t.Fatalf("%s: %v", kind, err)
			}
			if got := blobTexts(t, kind, b); !slices.Equal(got, want) {
				t.Fatalf("%s: read back %q, want %q", kind, got, want)
			}
		}
		iw := blob.NewIntsetWriter(1 << 20)
		var ints []int64
		for _, p := range parts {
			v, ok := blob.RedisInt(p)
			if err := iw.AppendString(p); ok != (err == nil) {
				t.Fatalf("intset member %q: %v", p, err)
			}
			if ok {
				ints = append(ints, v)
			}
		}
		if len(ints) > 0 {
			b := iw.Bytes()
			if err := blob.Check(blob.Intset, b, true, 1); err != nil {
				t.Fatal(err)
			}
			var got []int64
			_ = blob.Entries(blob.Intset, b, func(e blob.Entry) error { got = append(got, e.Int); return nil })
			if !slices.Equal(got, slices.Compact(slices.Sorted(slices.Values(ints)))) {
				t.Fatalf("intset members %v from %v", got, ints)
			}
		}
	})
}

func TestZipmapWriter(t *testing.T) {
	w := blob.NewZipmapWriter(1 << 20)
	var kv []string
	for i, s := range codecElements() {
		kv = append(kv, "f"+strconv.Itoa(i), s)
	}
	for _, n := range []int{2, len(kv)} {
		w.Reset()
		for _, s := range kv[:n] {
			if err := w.AppendString([]byte(s)); err != nil {
				t.Fatal(err)
			}
		}
		b := w.Bytes()
		if err := blob.Check(blob.Zipmap, b, true, 2); err != nil {
			t.Error(err)
		}
		if got := blobTexts(t, blob.Zipmap, b); !slices.Equal(got, kv[:n]) || len(b) != w.Size() {
			t.Errorf("%d strings: zipmap reads back otherwise", n)
		}
	}
	w.Reset()
	for i := range 300 {
		_ = w.AppendInt(int64(i))
		_ = w.AppendString(nil)
	}
	if b := w.Bytes(); b[0] != 254 || blob.Check(blob.Zipmap, b, true, 2) != nil {
		t.Errorf("300 pairs: count byte %d", b[0])
	}
	lw := blob.NewListpackWriter(1 << 20)
	if err := blob.Recode(lw, blob.Zipmap, w.Bytes()); err != nil || lw.Len() != 600 {
		t.Errorf("zipmap → listpack: %v, %d entries", err, lw.Len())
	}
}

// FuzzRecode reads the input as a blob of each kind: a blob blob.Entries walks
// without error must re-encode, as a listpack and a ziplist, into one
// that passes the deep check and holds the same entries.
func FuzzRecode(f *testing.F) {
	lw, zw := blob.NewListpackWriter(1<<20), blob.NewZiplistWriter(1<<20)
	for _, s := range codecElements()[:40] {
		_ = lw.AppendString([]byte(s))
		_ = zw.AppendString([]byte(s))
	}
	f.Add(slices.Clone(lw.Bytes()))
	f.Add(slices.Clone(zw.Bytes()))
	iw := blob.NewIntsetWriter(1 << 10)
	_ = iw.AppendInt(-7)
	_ = iw.AppendInt(1 << 40)
	f.Add(slices.Clone(iw.Bytes()))
	mw := blob.NewZipmapWriter(1 << 10)
	for _, s := range []string{"a", "1", "bb", strings.Repeat("v", 300)} {
		_ = mw.AppendString([]byte(s))
	}
	f.Add(slices.Clone(mw.Bytes()))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		for _, kind := range []blob.Kind{blob.Listpack, blob.Ziplist, blob.Intset, blob.Zipmap} {
			var want []string
			if blob.Entries(kind, data, func(e blob.Entry) error { want = append(want, entryText(e)); return nil }) != nil {
				continue
			}
			for _, w := range []blob.EntryWriter{blob.NewListpackWriter(1 << 20), blob.NewZiplistWriter(1 << 20)} {
				if err := blob.Recode(w, kind, data); err != nil {
					t.Fatalf("%s → %T: %v", kind, w, err)
				}
				to := blob.Listpack
				if _, ok := w.(*blob.ZiplistWriter); ok {
					to = blob.Ziplist
				}
				b := w.Bytes()
				if err := blob.Check(to, b, true, 1); err != nil {
					t.Fatalf("%s → %s: %v", kind, to, err)
				}
				if got := blobTexts(t, to, b); !slices.Equal(got, want) {
					t.Fatalf("%s → %s: entries differ", kind, to)
				}
			}
		}
	})
}
