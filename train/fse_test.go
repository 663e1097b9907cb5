package train

import (
	"bytes"
	"math/rand/v2"
	"os"
	"slices"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// TestNCountRewriteZstdTables reads the FSE tables of a dictionary made by
// zstd --train and writes them again: the bytes must be identical.
func TestNCountRewriteZstdTables(t *testing.T) {
	if _, err := os.Stat(zstdCLI); err != nil {
		t.Skipf("%s not found", zstdCLI)
	}
	for _, ds := range datasets {
		samples := ds.gen(3, 256<<10)
		d, _ := zstdTrain(t, samples, 8<<10, 40000)
		p, err := parseDict(d)
		if err != nil {
			t.Fatalf("%s: %v", ds.name, err)
		}
		for _, x := range []struct {
			name string
			raw  []byte
			norm []int16
			log  uint
		}{{"of", p.of, p.ofNorm, p.ofLog}, {"ml", p.ml, p.mlNorm, p.mlLog}, {"ll", p.ll, p.llNorm, p.llLog}} {
			if got := writeNCount(nil, x.norm, x.log); !bytes.Equal(got, x.raw) {
				t.Errorf("%s %s: rewrite %x, want %x (norm %v)", ds.name, x.name, got, x.raw, x.norm)
			}
		}
		if !bytes.Equal(p.assemble(), d) {
			t.Errorf("%s: reassembly differs", ds.name)
		}
	}
}

// TestOwnTables checks the tables of our dictionaries parse back within
// the limits of RFC 8878.
func TestOwnTables(t *testing.T) {
	for _, ds := range datasets {
		samples := ds.gen(4, 256<<10)
		d, err := dictOf(samples, Params{DictSize: 8 << 10, K: 200, D: 7})
		if err != nil {
			t.Fatal(err)
		}
		p, err := parseDict(d)
		if err != nil {
			t.Fatalf("%s: %v", ds.name, err)
		}
		if p.ofLog > dictOFLog || p.mlLog > dictMLLog || p.llLog > dictLLLog {
			t.Errorf("%s: table logs %d/%d/%d", ds.name, p.ofLog, p.mlLog, p.llLog)
		}
		if p.offsets != [3]uint32{1, 4, 8} || len(d) != 8<<10 {
			t.Errorf("%s: offsets %v, size %d", ds.name, p.offsets, len(d))
		}
		t.Logf("%s: huffman %d B, of %d B (log %d), ml %d B (log %d), ll %d B (log %d)",
			ds.name, len(p.huf), len(p.of), p.ofLog, len(p.ml), p.mlLog, len(p.ll), p.llLog)
	}
}

func TestSeqStatsDecodesFrames(t *testing.T) {
	samples := jsonEvents(5, 1<<20)
	dict, err := dictOf(samples, Params{DictSize: 16 << 10, K: 1024, D: 8})
	if err != nil {
		t.Fatal(err)
	}
	p, err := parseDict(dict)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range [][]byte{nil, dict} {
		enc, err := newEncoder(d, 0+2)
		if err != nil {
			t.Fatal(err)
		}
		var st codeStats
		var buf []byte
		for i, s := range samples {
			buf = enc.EncodeAll(s, buf[:0])
			if err := st.addFrame(buf, s, dictSeqTables(p)); err != nil {
				t.Fatalf("sample %d (dict %v): %v", i, d != nil, err)
			}
		}
		if st.n == 0 || st.blocks == 0 {
			t.Errorf("dict=%v: no sequences read", d != nil)
		}
	}
}

func TestNormalizeCounts(t *testing.T) {
	tests := []struct {
		name  string
		count []uint32
		log   uint
	}{
		{"flat", []uint32{5, 5, 5, 5, 5, 5, 5, 5}, 5},
		{"skewed", []uint32{100000, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, 9},
		{"zeros", []uint32{10, 0, 0, 0, 0, 3, 0, 700, 0, 1}, 8},
		{"many-rare", func() []uint32 {
			c := make([]uint32, 53)
			for i := range c {
				c[i] = 1
			}
			c[3] = 1 << 20
			c[4] = 1 << 19
			return c
		}(), 9},
		{"single", []uint32{0, 0, 7}, 6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			norm, err := normalizeCounts(tt.count, tt.log)
			if err != nil {
				t.Fatal(err)
			}
			sum := 0
			for i, v := range norm {
				if (v == 0) != (tt.count[i] == 0) {
					t.Errorf("symbol %d: count %d, norm %d", i, tt.count[i], v)
				}
				if v < 0 {
					sum++
				} else {
					sum += int(v)
				}
			}
			if sum != 1<<tt.log {
				t.Fatalf("norm %v sums to %d, want %d", norm, sum, 1<<tt.log)
			}
			desc := writeNCount(nil, norm, tt.log)
			back, log, n, err := readNCount(desc, len(norm)-1)
			if err != nil || log != tt.log || n != len(desc) || !slices.Equal(back, norm) {
				t.Fatalf("round trip: %v %d %d %v, want %v %d %d", back, log, n, err, norm, tt.log, len(desc))
			}
		})
	}
}

// TestRawDictSameParse checks the premise of collectStats: the encoder
// emits the same sequences with the content as a raw dictionary as with the
// finished dictionary, whose tables it may use.
func TestRawDictSameParse(t *testing.T) {
	samples := jsonEvents(6, 512<<10)
	for _, level := range []zstd.EncoderLevel{zstd.SpeedFastest, zstd.SpeedDefault, zstd.SpeedBetterCompression} {
		t.Run(level.String(), func(t *testing.T) {
			dict, err := dictOf(samples, Params{DictSize: 16 << 10, K: 512, D: 7, Level: level})
			if err != nil {
				t.Fatal(err)
			}
			p, err := parseDict(dict)
			if err != nil {
				t.Fatal(err)
			}
			cd, err := newCoder(level)
			if err != nil {
				t.Fatal(err)
			}
			defer cd.close()
			raw, err := collectStats([]*coder{cd}, p.content, samples)
			if err != nil {
				t.Fatal(err)
			}
			if err := cd.useDict(dict); err != nil {
				t.Fatal(err)
			}
			var full codeStats
			for _, s := range samples {
				if err := full.addFrame(cd.enc.EncodeAll(s, nil), s, dictSeqTables(p)); err != nil {
					t.Fatal(err)
				}
			}
			if raw.ll != full.ll || raw.ml != full.ml || raw.of != full.of || raw.lit != full.lit {
				t.Errorf("sequences differ: %d vs %d", raw.n, full.n)
			}
		})
	}
}

// TestNormalizeRandomHistograms: random histograms (many rare symbols,
// zeros, a few large counts: the shapes that send normalizeCounts to its
// slow path) never panic, and every normalization it returns sums to the
// table size, gives each non-zero count a state and reads back. A 40 MB
// training once divided by zero here (total used up by the rare symbols
// while zero-count symbols remained).
func TestNormalizeRandomHistograms(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 200000 {
		n := 2 + r.IntN(60)
		count := make([]uint32, n)
		for s := range count {
			switch r.IntN(4) {
			case 0: // zero
			case 1:
				count[s] = 1 + uint32(r.IntN(3))
			case 2:
				count[s] = uint32(r.IntN(40))
			default:
				count[s] = uint32(r.IntN(1 << uint(r.IntN(20))))
			}
		}
		count[n-1] = max(count[n-1], 1)
		log := uint(fseMinTableLog + r.IntN(fseMaxTableLog-fseMinTableLog+1))
		norm, err := normalizeCounts(count, log)
		if err != nil {
			continue
		}
		sum := 0
		for s, v := range norm {
			if (v == 0) != (count[s] == 0) {
				t.Fatalf("case %d: symbol %d: count %d, norm %d (%v)", i, s, count[s], v, count)
			}
			if v < 0 { // "less than one": one state
				sum++
			} else {
				sum += int(v)
			}
		}
		if sum != 1<<log {
			t.Fatalf("case %d: %v normalized to %v (log %d) sums to %d", i, count, norm, log, sum)
		}
		if _, _, _, err := readNCount(writeNCount(nil, norm, log), len(norm)-1); err != nil {
			t.Fatalf("case %d: %v: %v", i, norm, err)
		}
	}
}

// TestStatsOnSeveralCoders: the statistics collected on three encoders,
// each a run of the samples, are those of one encoder taking them all.
func TestStatsOnSeveralCoders(t *testing.T) {
	samples := jsonEvents(5, 256<<10)
	content := bytes.Join(samples[:8], nil)
	var cds []*coder
	for range 3 {
		cd, err := newCoder(zstd.SpeedDefault)
		if err != nil {
			t.Fatal(err)
		}
		defer cd.close()
		cds = append(cds, cd)
	}
	one, err := collectStats(cds[:1], content, samples)
	if err != nil {
		t.Fatal(err)
	}
	three, err := collectStats(cds, content, samples)
	if err != nil {
		t.Fatal(err)
	}
	if one.n == 0 || *one != *three {
		t.Errorf("one encoder: %d sequences in %d blocks; three: %d in %d, or other counts differ", one.n, one.blocks, three.n, three.blocks)
	}
}

// TestJudgeSharedAsSolo: a candidate judged on two workers' coders at once
// (judgeShared: its statistics and its size summed over shares of the
// samples) gets the content, dictionary size and measured size it gets on
// one worker's coder.
func TestJudgeSharedAsSolo(t *testing.T) {
	samples := jsonEvents(5, 256<<10)
	r, err := Params{}.resolve()
	if err != nil {
		t.Fatal(err)
	}
	judged := func(workers int, shared bool) candidate {
		w := newCrew(r.Level, workers, 1<<20)
		defer w.close()
		a := newArena(w, samples[:len(samples)*3/4], defaultConfig)
		defer a.release()
		cd := &candidate{k: 1024, d: 8, dictSize: 16 << 10}
		a.prepare([]*candidate{cd})
		if shared {
			judgeShared(a, cd, samples[len(samples)*3/4:], 2, r)
		} else {
			judgeSolo(a, []*candidate{cd}, samples[len(samples)*3/4:], 2, r)
		}
		if cd.err != nil {
			t.Fatal(cd.err)
		}
		return *cd
	}
	one, two := judged(1, false), judged(2, true)
	if one.size <= 0 || one.size != two.size || !bytes.Equal(one.content, two.content) {
		t.Errorf("on one coder: %d bytes, %d of content; shared by two: %d, %d", one.size, len(one.content), two.size, len(two.content))
	}
}
