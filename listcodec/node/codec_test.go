package node

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/rdbz/rdbz/listcodec/internal/nodetest"
	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

const testDictID = nodetest.DictID

var testNodes = nodetest.Nodes

// buildTestDict builds a dictionary with ID id (nodetest.DictBytes).
func buildTestDict(tb testing.TB, id uint32) *Dict {
	tb.Helper()
	d, err := ParseDict(nodetest.DictBytes(tb, id))
	if err != nil {
		tb.Fatalf("ParseDict: %v", err)
	}
	return d
}

var (
	sharedDictOnce sync.Once
	sharedDict     *Dict
)

// testDict is one dictionary shared by the tests and benchmarks.
func testDict(tb testing.TB) *Dict {
	sharedDictOnce.Do(func() { sharedDict = buildTestDict(tb, testDictID) })
	return sharedDict
}

func newTestCodec(tb testing.TB, dicts []*Dict, enc *Dict) *Codec {
	tb.Helper()
	c, err := NewCodec(dicts, enc, zstd.SpeedDefault)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

func TestParseDict(t *testing.T) {
	d := testDict(t)
	tests := []struct {
		name string
		b    []byte
		want string // substring of the error, "" for success
	}{
		{"trained", d.Bytes, ""},
		{"short", d.Bytes[:6], "too short"},
		{"raw content", []byte(strings.Repeat("raw dictionary content ", 10)), "not a usable zstd dictionary: magic"},
		{"ID 0", append([]byte{0x37, 0xa4, 0x30, 0xec, 0, 0, 0, 0}, d.Bytes[8:]...), "reserved"},
		{"truncated tables", d.Bytes[:20], "zstd dictionary 40000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseDict(tt.b)
			if tt.want == "" {
				if err != nil || got.ID != testDictID {
					t.Fatalf("ParseDict = %+v, %v", got, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("ParseDict error %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestReadDictFile(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.dict")
	bad := filepath.Join(dir, "bad.dict")
	os.WriteFile(good, testDict(t).Bytes, 0o644)
	os.WriteFile(bad, []byte("definitely not a dictionary"), 0o644)
	if d, err := ReadDictFile(good); err != nil || d.ID != testDictID {
		t.Fatalf("ReadDictFile(good) = %v, %v", d, err)
	}
	if _, err := ReadDictFile(bad); err == nil || !strings.Contains(err.Error(), bad) {
		t.Fatalf("ReadDictFile(bad) error %v, want one naming the file", err)
	}
	if _, err := ReadDictFile(filepath.Join(dir, "missing")); err == nil {
		t.Fatal("ReadDictFile(missing) succeeded")
	}
}

func TestCodecRoundTrip(t *testing.T) {
	d := testDict(t)
	r := rand.New(rand.NewPCG(5, 5))
	inputs := map[string][]byte{
		"empty":       {},
		"one byte":    {'x'},
		"json 8k":     rdbiotest.JSONish(r, 8192),
		"json 100":    rdbiotest.JSONish(r, 100),
		"json 300k":   rdbiotest.JSONish(r, 300<<10), // several blocks, beyond the window
		"random 8k":   rdbiotest.RandomBytes(r, 8192),
		"zeros 8k":    make([]byte, 8192),
		"low entropy": rdbiotest.LowEntropy(r, 8192),
	}
	codecs := map[string]*Codec{
		"dict":    newTestCodec(t, []*Dict{d}, d),
		"no dict": newTestCodec(t, []*Dict{d}, nil),
	}
	for cname, c := range codecs {
		for name, src := range inputs {
			t.Run(cname+"/"+name, func(t *testing.T) {
				frame := c.Compress(nil, src)
				id, err := FrameDictID(frame)
				if err != nil {
					t.Fatal(err)
				}
				if id != 0 && id != testDictID {
					t.Fatalf("frame names dictionary %d", id)
				}
				got, err := c.Decompress(nil, frame, len(src))
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, src) {
					t.Fatal("round trip mismatch")
				}
			})
		}
	}
}

// TestCodecDictHelps checks that the dictionary is used and pays off on
// nodes like its samples, and that the no-dictionary fallback wins on
// degenerate data.
func TestCodecDictHelps(t *testing.T) {
	d := testDict(t)
	withDict := newTestCodec(t, []*Dict{d}, d)
	noDict := newTestCodec(t, nil, nil)
	var sumDict, sumPlain, sumRaw int
	for _, node := range testNodes(77, 50, 8192) {
		f := withDict.Compress(nil, node)
		if id, _ := FrameDictID(f); id != testDictID {
			t.Fatalf("JSON node compressed without the dictionary (frame names %d)", id)
		}
		sumDict += len(f)
		sumPlain += len(noDict.Compress(nil, node))
		sumRaw += len(node)
	}
	t.Logf("ratio without dictionary %.2f, with %.2f", float64(sumRaw)/float64(sumPlain), float64(sumRaw)/float64(sumDict))
	if sumDict >= sumPlain {
		t.Fatalf("dictionary does not help: %d vs %d bytes", sumDict, sumPlain)
	}

	degenerate := bytes.Repeat([]byte("x"), 8192)
	f := withDict.Compress(nil, degenerate)
	if id, _ := FrameDictID(f); id != 0 || len(f) != len(noDict.Compress(nil, degenerate)) {
		t.Fatalf("degenerate node: frame of %d bytes names dictionary %d; want the no-dictionary frame", len(f), id)
	}
}

func TestCodecDecompressErrors(t *testing.T) {
	d := testDict(t)
	other := buildTestDict(t, 41234)
	c := newTestCodec(t, []*Dict{d}, d)
	src := rdbiotest.JSONish(rand.New(rand.NewPCG(8, 8)), 8192)
	frame := c.Compress(nil, src)
	foreign := newTestCodec(t, nil, other).Compress(nil, src)

	t.Run("unknown dictionary", func(t *testing.T) {
		_, err := c.Decompress(nil, foreign, len(src))
		if !errors.Is(err, ErrUnknownDict) || !strings.Contains(err.Error(), "41234") {
			t.Fatalf("error %v; want ErrUnknownDict naming 41234", err)
		}
	})
	for _, ulen := range []int{0, len(src) - 1, len(src) + 1, 2 * len(src)} {
		if _, err := c.Decompress(nil, frame, ulen); err == nil {
			t.Errorf("ulen %d (frame holds %d): no error", ulen, len(src))
		}
	}
	corrupt := bytes.Clone(frame)
	corrupt[len(corrupt)/2] ^= 0x55
	if got, err := c.Decompress(nil, corrupt, len(src)); err == nil && bytes.Equal(got, src) {
		t.Error("corrupt frame decoded to the original")
	}
	if _, err := c.Decompress(nil, []byte("not a frame at all"), 5); err == nil {
		t.Error("garbage decoded")
	}
	if _, err := c.Decompress(nil, append(bytes.Clone(frame), frame...), len(src)); err == nil {
		t.Error("two frames decoded as one")
	}
}

// TestCodecDecompressBounded checks that a frame claiming (or holding) far
// more than ulen is refused without allocating for it.
func TestCodecDecompressBounded(t *testing.T) {
	c := newTestCodec(t, nil, nil)
	zeros := make([]byte, 64<<20)
	withSize := c.Compress(nil, zeros)
	// A streamed frame does not state its content size up front.
	var streamed bytes.Buffer
	w, _ := zstd.NewWriter(&streamed, zstd.WithEncoderConcurrency(1))
	w.Write(zeros)
	w.Close()
	if fcs, _ := frameContentSizeKnown(streamed.Bytes()); fcs {
		t.Fatal("streamed frame states its size; the test needs one that does not")
	}
	for name, frame := range map[string][]byte{"content size": withSize, "no content size": streamed.Bytes()} {
		t.Run(name, func(t *testing.T) {
			var before, after runtimeMem
			before.read()
			for range 5 {
				if _, err := c.Decompress(nil, frame, 1000); err == nil {
					t.Fatal("64 MiB frame accepted for ulen 1000")
				}
			}
			after.read()
			t.Logf("%d bytes allocated per refused call", (after.total-before.total)/5)
			// A zstd block is at most 128 KiB, so decoding stops after one.
			if per := (after.total - before.total) / 5; per > 512<<10 {
				t.Fatalf("refusing a 64 MiB frame allocated %d bytes per call", per)
			}
		})
	}
}

// frameContentSizeKnown reports whether a frame header has the content
// size field (single segment, or a non-zero size flag).
func frameContentSizeKnown(frame []byte) (bool, error) {
	if _, err := FrameDictID(frame); err != nil {
		return false, err
	}
	return frame[4]&0xe0 != 0, nil
}

func TestNewCodecErrors(t *testing.T) {
	d := testDict(t)
	other := buildTestDict(t, 41234)
	mislabelled := &Dict{ID: 7, Bytes: d.Bytes}
	sameID := &Dict{ID: testDictID, Bytes: append(bytes.Clone(d.Bytes), 0)}
	tests := []struct {
		name  string
		dicts []*Dict
		enc   *Dict
	}{
		{"nil dictionary", []*Dict{nil}, d},
		{"ID not in bytes", []*Dict{mislabelled}, nil},
		{"two dictionaries, one ID", []*Dict{d, other}, sameID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if c, err := NewCodec(tt.dicts, tt.enc, zstd.SpeedDefault); err == nil {
				c.Close()
				t.Fatal("NewCodec succeeded")
			}
		})
	}
	// The same dictionary twice is fine, and encDict need not be in dicts.
	for _, dicts := range [][]*Dict{{d, d}, nil} {
		c, err := NewCodec(dicts, d, zstd.SpeedDefault)
		if err != nil {
			t.Fatal(err)
		}
		c.Close()
	}
}

// TestCodecHeap checks that a warmed-up Codec stays small (encoderWindow).
func TestCodecHeap(t *testing.T) {
	d := testDict(t)
	nodes := testNodes(4, 16, 8192)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	c := newTestCodec(t, []*Dict{d}, d)
	for _, n := range nodes {
		if _, err := c.Decompress(nil, c.Compress(nil, n), len(n)); err != nil {
			t.Fatal(err)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	heap := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	runtime.KeepAlive(c)
	t.Logf("Codec heap after warm-up: %.1f MB", float64(heap)/1e6)
	if heap > 12<<20 {
		t.Fatalf("Codec heap %d bytes; the encoder window is not applied?", heap)
	}
}

func TestFrameDictID(t *testing.T) {
	tests := []struct {
		name  string
		frame []byte
		id    uint32
		ok    bool
	}{
		{"no id, single segment", []byte{0x28, 0xb5, 0x2f, 0xfd, 0x20, 0x00}, 0, true},
		{"1-byte id", []byte{0x28, 0xb5, 0x2f, 0xfd, 0x21, 0x07}, 7, true},
		{"2-byte id", []byte{0x28, 0xb5, 0x2f, 0xfd, 0x22, 0x40, 0x9c}, 40000, true},
		{"4-byte id with window", []byte{0x28, 0xb5, 0x2f, 0xfd, 0x03, 0x58, 0x78, 0x56, 0x34, 0x12}, 0x12345678, true},
		{"truncated id", []byte{0x28, 0xb5, 0x2f, 0xfd, 0x22, 0x40}, 0, false},
		{"reserved bit", []byte{0x28, 0xb5, 0x2f, 0xfd, 0x28, 0x00}, 0, false},
		{"skippable", []byte{0x50, 0x2a, 0x4d, 0x18, 0x00, 0x00}, 0, false},
		{"bad magic", []byte{0x37, 0xa4, 0x30, 0xec, 0x00}, 0, false},
		{"short", []byte{0x28, 0xb5}, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id, err := FrameDictID(tt.frame)
			if (err == nil) != tt.ok || id != tt.id {
				t.Fatalf("FrameDictID = %d, %v; want %d, ok %v", id, err, tt.id, tt.ok)
			}
		})
	}
	// And on real frames: the dictionary ID costs 2 bytes.
	d := testDict(t)
	frame := newTestCodec(t, []*Dict{d}, d).Compress(nil, rdbiotest.JSONish(rand.New(rand.NewPCG(1, 1)), 4000))
	if id, err := FrameDictID(frame); err != nil || id != testDictID || frame[4]&3 != 2 {
		t.Fatalf("real frame: id %d, descriptor %#x, %v", id, frame[4], err)
	}
}

// TestCodecConcurrent runs one Codec per goroutine over a shared Dict; run
// with -race.
func TestCodecConcurrent(t *testing.T) {
	d := testDict(t)
	nodes := testNodes(99, 40, 8192)
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for w := range 4 {
		wg.Go(func() {
			c, err := NewCodec([]*Dict{d}, d, zstd.SpeedDefault)
			if err != nil {
				errs <- err
				return
			}
			defer c.Close()
			var frame, out []byte
			for i := range 3 * len(nodes) {
				node := nodes[(i+w*7)%len(nodes)]
				frame = c.Compress(frame, node)
				if out, err = c.Decompress(out, frame, len(node)); err != nil {
					errs <- err
					return
				}
				if !bytes.Equal(out, node) {
					errs <- errors.New("round trip mismatch")
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// TestZstdCLI shows that the reference zstd decodes our frames with the
// dictionary (CompatV155 keeps dictionaries loadable by zstd <= 1.5.5).
func TestZstdCLI(t *testing.T) {
	cli, err := exec.LookPath("zstd")
	if err != nil {
		t.Skip("zstd command not installed; skipping the interoperability check")
	}
	d := testDict(t)
	c := newTestCodec(t, []*Dict{d}, d)
	src := rdbiotest.JSONish(rand.New(rand.NewPCG(3, 3)), 8192)
	dir := t.TempDir()
	dictPath := filepath.Join(dir, "nodes.dict")
	framePath := filepath.Join(dir, "node.zst")
	outPath := filepath.Join(dir, "node")
	os.WriteFile(dictPath, d.Bytes, 0o644)
	os.WriteFile(framePath, c.Compress(nil, src), 0o644)
	out, err := exec.Command(cli, "-q", "-d", "-D", dictPath, framePath, "-o", outPath).CombinedOutput()
	if err != nil {
		t.Fatalf("zstd -d -D: %v\n%s", err, out)
	}
	got, err := os.ReadFile(outPath)
	if err != nil || !bytes.Equal(got, src) {
		t.Fatalf("zstd decoded %d bytes (%v), want the %d-byte node", len(got), err, len(src))
	}
}

func FuzzCodecDecompress(f *testing.F) {
	d := testDict(f)
	c := newTestCodec(f, []*Dict{d}, d)
	for _, n := range testNodes(31, 8, 2000) {
		f.Add(c.Compress(nil, n), uint16(len(n)))
	}
	f.Add(c.Compress(nil, make([]byte, 5000)), uint16(5000))
	f.Fuzz(func(t *testing.T, frame []byte, ulen uint16) {
		got, err := c.Decompress(nil, frame, int(ulen))
		if err == nil && len(got) != int(ulen) {
			t.Fatalf("decoded %d bytes, want %d", len(got), ulen)
		}
	})
}

// codecBenchCases are the configurations the Codec benchmarks compare.
var codecBenchCases = []struct {
	name    string
	useDict bool
	level   zstd.EncoderLevel
}{
	{"dict/default", true, zstd.SpeedDefault},
	{"dict/fastest", true, zstd.SpeedFastest},
	{"nodict/default", false, zstd.SpeedDefault},
}

func benchCodec(b *testing.B, useDict bool, level zstd.EncoderLevel) *Codec {
	d := testDict(b)
	var enc *Dict
	if useDict {
		enc = d
	}
	c, err := NewCodec([]*Dict{d}, enc, level)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(c.Close)
	return c
}

func BenchmarkCodecCompress(b *testing.B) {
	nodes := testNodes(123, 64, 8192)
	for _, bc := range codecBenchCases {
		b.Run(bc.name, func(b *testing.B) {
			c := benchCodec(b, bc.useDict, bc.level)
			var raw, packed int
			benchNodes(b, nodes, func(dst, node []byte) []byte {
				out := c.Compress(dst, node)
				raw, packed = raw+len(node), packed+len(out)
				return out
			})
			b.ReportMetric(float64(raw)/float64(packed), "ratio")
		})
	}
}

func BenchmarkCodecDecompress(b *testing.B) {
	nodes := testNodes(123, 64, 8192)
	for _, bc := range codecBenchCases {
		if bc.level != zstd.SpeedDefault {
			continue // decoding speed hardly depends on the level
		}
		b.Run(bc.name, func(b *testing.B) {
			c := benchCodec(b, bc.useDict, bc.level)
			frames := make([][]byte, len(nodes))
			for i, n := range nodes {
				frames[i] = c.Compress(nil, n)
			}
			i := 0
			benchNodes(b, nodes, func(dst, node []byte) []byte {
				out, err := c.Decompress(dst, frames[i%len(frames)], len(node))
				if err != nil {
					b.Fatal(err)
				}
				i++
				return out
			})
		})
	}
}

// benchNodes runs op over nodes in turn, reusing one buffer, and reports
// throughput in input bytes.
func benchNodes(b *testing.B, nodes [][]byte, op func(dst, node []byte) []byte) {
	total := 0
	for _, n := range nodes {
		total += len(n)
	}
	b.SetBytes(int64(total / len(nodes)))
	b.ReportAllocs()
	buf := make([]byte, 0, 32<<10)
	for i := 0; i < len(nodes); i++ { // warm up
		buf = op(buf, nodes[i])
	}
	i := 0
	cpu := startCPU()
	for b.Loop() {
		buf = op(buf, nodes[i%len(nodes)])
		i++
	}
	cpu.report(b, int64(total/len(nodes)))
}

// cpuMeter reports throughput per second of process CPU time, which stays
// meaningful on a busy machine where wall-clock MB/s does not. With no
// allocations in the loop, nearly all of that time is the benchmark's.
type cpuMeter int64

func startCPU() cpuMeter { return cpuMeter(cpuNanos()) }

func (m cpuMeter) report(b *testing.B, bytesPerOp int64) {
	if ns := cpuNanos() - int64(m); ns > 0 && m != 0 {
		b.ReportMetric(float64(bytesPerOp)*float64(b.N)*1e3/float64(ns), "MB/cpu-s")
	}
}

// runtimeMem samples the bytes allocated so far.
type runtimeMem struct{ total uint64 }

func (m *runtimeMem) read() {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	m.total = ms.TotalAlloc
}
