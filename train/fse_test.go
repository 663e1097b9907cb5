package train

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestNCountRewriteZstdTables(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(os.TempDir(), "rdbz-train-exp", "*.zstd"))
	if len(files) == 0 {
		t.Skip("no cached zstd dictionaries")
	}
	for _, f := range files {
		d, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		p, err := parseDict(d)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, x := range []struct {
			name string
			raw  []byte
			norm []int16
			log  uint
		}{{"of", p.of, p.ofNorm, p.ofLog}, {"ml", p.ml, p.mlNorm, p.mlLog}, {"ll", p.ll, p.llNorm, p.llLog}} {
			got := writeNCount(nil, x.norm, x.log)
			if !bytes.Equal(got, x.raw) {
				t.Errorf("%s %s: rewrite %x, want %x (norm %v)", filepath.Base(f), x.name, got, x.raw, x.norm)
			}
		}
		if !bytes.Equal(p.assemble(), d) {
			t.Errorf("%s: reassembly differs", f)
		}
		t.Logf("%s: huf %d of %d ml %d ll %d offsets %v content %d logs %d/%d/%d", filepath.Base(f), len(p.huf), len(p.of), len(p.ml), len(p.ll), p.offsets, len(p.content), p.ofLog, p.mlLog, p.llLog)
	}
}

func TestSeqStatsDecodesFrames(t *testing.T) {
	samples := jsonEvents(5, 1<<20)
	dict, err := Build(samples, Params{DictSize: 16 << 10, K: 1024, D: 8})
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
			if err := st.addFrame(buf, dictSeqTables(p)); err != nil {
				t.Fatalf("sample %d (dict %v): %v", i, d != nil, err)
			}
		}
		t.Logf("dict=%v: %d sequences, ll %v, ml %v, of %v", d != nil, st.n, st.ll, st.ml, st.of)
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
