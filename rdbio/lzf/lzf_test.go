package lzf_test

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	hdtlzf "github.com/hdt3213/rdb/lzf"
	"github.com/rdbz/rdbz/rdbio/lzf"
	"github.com/rdbz/rdbz/rdbio/rdbiotest"
	"github.com/rdbz/rdbz/rdbio/rdbiotest/redislzf"
)

// bound is a budget no stream can exceed, with room for lzf_c.c's
// conservative checks: one control byte per 32 literals plus slack.
func bound(n int) int { return n + n/32 + 8 }

// inputs returns named inputs covering the encoder's paths.
func inputs() map[string][]byte {
	r := rand.New(rand.NewPCG(1, 2))
	in := map[string][]byte{
		"empty":    {},
		"one":      {'x'},
		"two":      []byte("xy"),
		"three":    []byte("xyz"),
		"run":      bytes.Repeat([]byte{'a'}, 1000),
		"run70000": bytes.Repeat([]byte{0}, 70000),
		"period3":  bytes.Repeat([]byte("abc"), 333),
		"text":     []byte(strings.Repeat("the quick brown fox jumps over the lazy dog. ", 40)),
		// a match starting 19 or 20 bytes before the end (lzf_c.c's unrolled loop)
		"tail19": []byte("Q0123456789abcdefghijK0123456789abcdefghi"),
		"tail20": []byte("Q0123456789abcdefghijK0123456789abcdefghij"),
	}
	for _, n := range []int{21, 33, 64, 100, 257, 1000, 4096, 8192, 8200, 16384, 65535, 65536, 70000} {
		in[fmt.Sprint("json", n)] = rdbiotest.JSONish(r, n)
		in[fmt.Sprint("random", n)] = rdbiotest.RandomBytes(r, n)
		in[fmt.Sprint("ab", n)] = rdbiotest.LowEntropy(r, n)
		in[fmt.Sprint("patchy", n)] = rdbiotest.Patchy(r, n)
	}
	return in
}

func TestLZFRoundTrip(t *testing.T) {
	var enc lzf.Encoder
	for name, src := range inputs() {
		t.Run(name, func(t *testing.T) {
			z, ok := enc.Encode(nil, src, bound(len(src)))
			if len(src) == 0 {
				if ok {
					t.Fatal("empty input encoded; lzf_compress returns 0 for it")
				}
				return
			}
			if !ok {
				t.Fatalf("encode of %d bytes failed with budget %d", len(src), bound(len(src)))
			}
			got, err := lzf.Decode(nil, z, len(src))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, src) {
				t.Fatal("round trip mismatch")
			}
			// Cross-check with an independent decoder.
			other, err := hdtlzf.Decompress(z, len(z), len(src))
			if err != nil || !bytes.Equal(other, src) {
				t.Fatalf("hdt3213/rdb/lzf decodes our stream differently (err %v)", err)
			}
		})
	}
}

// TestLZFTableState checks that the table's leftovers never change the output
// (see lzf.Encoder): a dirty encoder must match a fresh one on every input.
func TestLZFTableState(t *testing.T) {
	dirty := new(lzf.Encoder)
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 300 {
		// Dirty the table with unrelated data of assorted kinds.
		junk := [][]byte{rdbiotest.JSONish(r, 9000), rdbiotest.Patchy(r, 3000), rdbiotest.LowEntropy(r, 500)}[i%3]
		dirty.Encode(nil, junk, bound(len(junk)))
		src := [][]byte{rdbiotest.JSONish(r, 1+r.IntN(9000)), rdbiotest.Patchy(r, 1+r.IntN(3000)), rdbiotest.LowEntropy(r, 1+r.IntN(500))}[r.IntN(3)]
		want, _ := new(lzf.Encoder).Encode(nil, src, bound(len(src)))
		got, _ := dirty.Encode(nil, src, bound(len(src)))
		if !bytes.Equal(got, want) {
			t.Fatalf("input %d: a used table changed the output", i)
		}
	}
}

// TestLZFBudget checks that a stream which fits is the same at any budget,
// that the fit decision is monotonic in budget, and that lzf_c.c's
// conservative checks ask for at most 4 bytes beyond the stream's length.
func TestLZFBudget(t *testing.T) {
	var enc lzf.Encoder
	for name, src := range inputs() {
		if len(src) == 0 || len(src) > 9000 {
			continue
		}
		full, ok := enc.Encode(nil, src, bound(len(src)))
		if !ok {
			t.Fatalf("%s: encode failed", name)
		}
		fits := -1
		for b := len(full) - 1; b <= len(full)+5; b++ {
			z, ok := enc.Encode(nil, src, b)
			if ok && !bytes.Equal(z, full) {
				t.Fatalf("%s: budget %d changed the stream", name, b)
			}
			if ok && fits < 0 {
				fits = b
			}
			if !ok && fits >= 0 {
				t.Fatalf("%s: fits at budget %d but not at %d", name, fits, b)
			}
		}
		if fits < len(full) || fits > len(full)+lzf.Slack {
			t.Fatalf("%s: %d-byte stream first fits at budget %d", name, len(full), fits)
		}
	}
}

func TestLZFRedisSave(t *testing.T) {
	var enc lzf.Encoder
	tests := []struct {
		name string
		src  []byte
		ok   bool
	}{
		{"20 bytes never", bytes.Repeat([]byte{'a'}, 20), false},
		{"21 bytes compressible", bytes.Repeat([]byte{'a'}, 21), true},
		{"random does not fit", rdbiotest.RandomBytes(rand.New(rand.NewPCG(5, 6)), 100), false},
		{"json fits", rdbiotest.JSONish(rand.New(rand.NewPCG(7, 8)), 2000), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			z, ok := enc.RedisSave(nil, tt.src)
			if ok != tt.ok {
				t.Fatalf("RedisSave ok = %v, want %v", ok, tt.ok)
			}
			if ok && len(z) > len(tt.src)-4 {
				t.Fatalf("kept a %d-byte stream for %d bytes", len(z), len(tt.src))
			}
		})
	}
}

// TestLZFVectors pins streams that redis-server 7.0.15 wrote for these values
// with rdbcompression yes (the same values are in TestLZFMatchesRedis), and
// cross-checks them with hdt3213/rdb's independent decoder.
func TestLZFVectors(t *testing.T) {
	tests := []struct {
		name string
		src  string
		z    []byte
	}{
		// position 0 is never referenced, so two literals come first
		{"a*21", strings.Repeat("a", 21), []byte{0x01, 'a', 'a', 0xe0, 0x0a, 0x00}},
		{"a*31", strings.Repeat("a", 31), []byte{0x01, 'a', 'a', 0xe0, 0x12, 0x00, 0x01, 'a', 'a'}},
		{"abc*40", strings.Repeat("abc", 40), []byte{0x03, 'a', 'b', 'c', 'a', 0xe0, 0x69, 0x02, 0x01, 'b', 'c'}},
		// the match from position 22 ends 2 bytes before the end (maxlen 16) ...
		{"match stops short", "Q0123456789abcdefghijK0123456789abcdefgh",
			append([]byte("\x15Q0123456789abcdefghijK"), 0xe0, 0x07, 0x14, 0x01, 'g', 'h')},
		// ... but with maxlen 17 or 18 lzf_c.c's unrolled compare lets it reach 19
		{"unrolled compare, maxlen 17", "Q0123456789abcdefghijK0123456789abcdefghi",
			append([]byte("\x15Q0123456789abcdefghijK"), 0xe0, 0x0a, 0x14)},
		{"unrolled compare, maxlen 18", "Q0123456789abcdefghijK0123456789abcdefghij",
			append([]byte("\x15Q0123456789abcdefghijK"), 0xe0, 0x0a, 0x14, 0x00, 'j')},
	}
	var enc lzf.Encoder
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			z, ok := enc.RedisSave(nil, []byte(tt.src))
			if !ok || !bytes.Equal(z, tt.z) {
				t.Fatalf("RedisSave = % x, %v; want % x", z, ok, tt.z)
			}
			other, err := hdtlzf.Decompress(tt.z, len(tt.z), len(tt.src))
			if err != nil || string(other) != tt.src {
				t.Fatalf("hdt3213/rdb/lzf decodes %q, %v", other, err)
			}
			got, err := lzf.Decode(nil, tt.z, len(tt.src))
			if err != nil || string(got) != tt.src {
				t.Fatalf("Decode = %q, %v", got, err)
			}
		})
	}
}

func TestLZFDecodeErrors(t *testing.T) {
	tests := []struct {
		name string
		z    []byte
		ulen int
	}{
		{"literal truncated", []byte{0x03, 'a', 'b'}, 4},
		{"literal past ulen", []byte{0x03, 'a', 'b', 'c', 'd'}, 3},
		{"reference before start", []byte{0x00, 'a', 0x20, 0x01}, 4},
		{"reference at start", []byte{0x20, 0x00}, 3},
		{"reference truncated", []byte{0x00, 'a', 0x20}, 4},
		{"long reference truncated", []byte{0x00, 'a', 0xe0}, 20},
		{"long reference no offset", []byte{0x00, 'a', 0xe0, 0x01}, 20},
		{"reference past ulen", []byte{0x00, 'a', 0x40, 0x00}, 3},
		{"short output", []byte{0x01, 'a', 'b'}, 3},
		{"empty input, ulen 1", nil, 1},
		{"negative ulen", []byte{0x00, 'a'}, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := lzf.Decode(make([]byte, 0, 64), tt.z, tt.ulen)
			if !errors.Is(err, lzf.ErrCorrupt) {
				t.Fatalf("Decode = %q, %v; want lzf.ErrCorrupt", got, err)
			}
		})
	}
}

func TestLZFDecodeReusesDst(t *testing.T) {
	var enc lzf.Encoder
	src := rdbiotest.JSONish(rand.New(rand.NewPCG(9, 9)), 5000)
	z, _ := enc.Encode(nil, src, bound(len(src)))
	buf := make([]byte, 10, 6000)
	got, err := lzf.Decode(buf, z, len(src))
	if err != nil || !bytes.Equal(got, src) {
		t.Fatalf("decode: %v", err)
	}
	if &got[0] != &buf[:1][0] {
		t.Fatal("dst storage not reused")
	}
	small := make([]byte, 0, 100)
	got, err = lzf.Decode(small, z, len(src))
	if err != nil || cap(got) != len(src) {
		t.Fatalf("grown dst: cap %d, err %v; want cap %d", cap(got), err, len(src))
	}
}

func FuzzLZFDecode(f *testing.F) {
	var enc lzf.Encoder
	for _, src := range inputs() {
		if z, ok := enc.Encode(nil, src, bound(len(src))); ok && len(src) < 5000 {
			f.Add(z, uint16(len(src)))
		}
	}
	f.Add([]byte{0xff, 0xff, 0xff}, uint16(300))
	f.Add([]byte{0x00, 'a', 0xe0, 0xff, 0x00}, uint16(266))
	f.Fuzz(func(t *testing.T, z []byte, ulen uint16) {
		got, err := lzf.Decode(nil, z, int(ulen))
		if err != nil {
			if !errors.Is(err, lzf.ErrCorrupt) {
				t.Fatalf("error does not wrap lzf.ErrCorrupt: %v", err)
			}
			return
		}
		if len(got) != int(ulen) {
			t.Fatalf("decoded %d bytes, want %d", len(got), ulen)
		}
		if other, err := hdtlzf.Decompress(z, len(z), int(ulen)); err == nil && len(z) > 0 && !bytes.Equal(other, got) {
			t.Fatalf("hdt3213/rdb/lzf decodes differently")
		}
		for _, want := range []int{0, 1, 10, int(ulen) / 2, int(ulen)} {
			pre, err := lzf.DecodePrefix(nil, z, want, int(ulen))
			if err != nil || len(pre) < min(want, int(ulen)) || !bytes.Equal(pre, got[:len(pre)]) {
				t.Fatalf("DecodePrefix(want %d) = %d bytes, %v; not a prefix of Decode's", want, len(pre), err)
			}
		}
	})
}

func FuzzLZFEncode(f *testing.F) {
	for _, src := range inputs() {
		if len(src) < 5000 {
			f.Add(src)
		}
	}
	dirty := new(lzf.Encoder)
	f.Fuzz(func(t *testing.T, src []byte) {
		want, ok := new(lzf.Encoder).Encode(nil, src, bound(len(src)))
		got, ok2 := dirty.Encode(nil, src, bound(len(src)))
		if ok != ok2 || !bytes.Equal(got, want) {
			t.Fatal("a used table changed the output")
		}
		if !ok {
			if len(src) > 0 {
				t.Fatal("encode failed within bound")
			}
			return
		}
		back, err := lzf.Decode(nil, got, len(src))
		if err != nil || !bytes.Equal(back, src) {
			t.Fatalf("round trip: %v", err)
		}
	})
}

func benchNode() []byte { return rdbiotest.JSONish(rand.New(rand.NewPCG(11, 12)), 8192) }

func BenchmarkLZFEncode(b *testing.B) {
	src := benchNode()
	var enc lzf.Encoder
	dst := make([]byte, bound(len(src)))
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := enc.Encode(dst, src, len(src)-4); !ok {
			b.Fatal("does not fit")
		}
	}
}

// benchStream returns benchNode, its LZF stream and a buffer of its
// size, set up as a decoding benchmark's bytes.
func benchStream(b *testing.B) (src, z, dst []byte) {
	src = benchNode()
	z, _ = new(lzf.Encoder).Encode(nil, src, bound(len(src)))
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	return src, z, make([]byte, len(src))
}

func BenchmarkLZFDecode(b *testing.B) {
	src, z, dst := benchStream(b)
	b.ReportMetric(float64(len(src))/float64(len(z)), "ratio")
	for b.Loop() {
		if _, err := lzf.Decode(dst, z, len(src)); err != nil {
			b.Fatal(err)
		}
	}
}

// TestLZFDecodeShortCopies round-trips inputs full of short literal runs and
// short back references at every distance (periods 1..20), ending at every
// length up to 300: the decoder's 8-byte moves must never show through,
// neither near the end of the output nor where a reference overlaps itself.
func TestLZFDecodeShortCopies(t *testing.T) {
	var enc lzf.Encoder
	rng := rand.New(rand.NewPCG(5, 6))
	for period := 1; period <= 20; period++ {
		for n := 1; n <= 300; n++ {
			src := make([]byte, n)
			for i := range src {
				if i >= period && rng.IntN(4) > 0 {
					src[i] = src[i-period]
				} else {
					src[i] = byte(rng.IntN(3))
				}
			}
			z, ok := enc.Encode(nil, src, bound(n))
			if !ok {
				t.Fatalf("period %d length %d: encode failed", period, n)
			}
			got, err := lzf.Decode(make([]byte, 0, n), z, n)
			if err != nil || !bytes.Equal(got, src) {
				t.Fatalf("period %d length %d: round trip mismatch (err %v)", period, n, err)
			}
		}
	}
}

// benchMixed is 8 KiB of JSON-like pieces and random text in turns, which
// LZF shrinks about 1.8× as it does app-cache's values.
func benchMixed() []byte {
	r := rand.New(rand.NewPCG(13, 14))
	j := rdbiotest.JSONish(r, 8192)
	var b []byte
	for i := 0; len(b) < 8192; i++ {
		b = append(b, j[i*48%len(j):][:48]...)
		for range 40 {
			b = append(b, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+/"[r.IntN(64)])
		}
	}
	return b[:8192]
}

func BenchmarkLZFEncodeMixed(b *testing.B) {
	src := benchMixed()
	var enc lzf.Encoder
	dst := make([]byte, bound(len(src)))
	z, _ := enc.Encode(nil, src, bound(len(src)))
	b.ReportMetric(float64(len(src))/float64(len(z)), "ratio")
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, ok := enc.Encode(dst, src, bound(len(src))); !ok {
			b.Fatal("does not fit")
		}
	}
}

// corpusLZF is the LZF strings of the generated corpus files that hold
// the most: what rdbz-bench lzf measures against Redis's C code.
func corpusLZF(b *testing.B) []redislzf.Item {
	var items []redislzf.Item
	for _, name := range []string{"app-cache.rdb", "lists-events-lzf.rdb"} {
		d, err := redislzf.LZFStrings(filepath.Join(rdbiotest.Shared(), "corpus", "generated", name))
		if err != nil {
			b.Skip(err)
		}
		items = append(items, d.Items...)
	}
	return items
}

// benchCorpus runs pass over the corpus strings as a benchmark, reporting
// besides the wall time the thread's CPU time (cpu-MB/s), which a busy
// machine inflates less.
func benchCorpus(b *testing.B, pass func(items []redislzf.Item, dst []byte)) {
	items := corpusLZF(b)
	var n int64
	maxLen := 0
	for _, it := range items {
		n += int64(len(it.Raw))
		maxLen = max(maxLen, len(it.Raw))
	}
	dst := make([]byte, bound(maxLen))
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	b.SetBytes(n)
	var cpu time.Duration
	for b.Loop() {
		start := redislzf.ThreadCPU()
		pass(items, dst)
		cpu += redislzf.ThreadCPU() - start
	}
	b.ReportMetric(float64(n)*float64(b.N)/1e6/cpu.Seconds(), "cpu-MB/s")
}

// BenchmarkLZFCorpusEncode and BenchmarkLZFCorpusDecode pass over those
// strings (MB/s of their decoded bytes); the Old ones do the same with the
// encoder and decoder of before the rewrite.
func BenchmarkLZFCorpusEncode(b *testing.B) {
	var enc lzf.Encoder
	benchCorpus(b, func(items []redislzf.Item, dst []byte) {
		for _, it := range items {
			enc.Encode(dst, it.Raw, it.Budget)
		}
	})
}

func BenchmarkLZFCorpusDecode(b *testing.B) {
	benchCorpus(b, func(items []redislzf.Item, dst []byte) {
		for _, it := range items {
			lzf.Decode(dst, it.Comp, len(it.Raw))
		}
	})
}

func BenchmarkLZFCorpusEncodeOld(b *testing.B) {
	var enc lzf.OldEncoder
	benchCorpus(b, func(items []redislzf.Item, dst []byte) {
		for _, it := range items {
			lzf.OldEncode(&enc, dst[:it.Budget], it.Raw)
		}
	})
}

func BenchmarkLZFCorpusDecodeOld(b *testing.B) {
	benchCorpus(b, func(items []redislzf.Item, dst []byte) {
		for _, it := range items {
			lzf.OldDecode(dst[:len(it.Raw)], it.Comp, len(it.Raw))
		}
	})
}
