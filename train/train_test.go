package train

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// smallJSON returns a cached small set of JSON listpack samples.
var smallJSON = sync.OnceValue(func() [][]byte { return jsonEvents(1, 512<<10) })

func TestBuildDeterministic(t *testing.T) {
	t.Parallel()
	samples := smallJSON()
	tests := []struct {
		name string
		p    Params
	}{
		{"search", Params{DictSize: 16 << 10, Seed: 3}},
		{"fixed", Params{DictSize: 16 << 10, K: 512, D: 7, Seed: 3}},
		{"better", Params{DictSize: 8 << 10, K: 256, D: 6, Seed: 3, Level: zstd.SpeedBetterCompression}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := dictOf(samples, tt.p)
			if err != nil {
				t.Fatal(err)
			}
			// Other worker counts, and the hashes of one d at a time.
			for _, v := range []struct{ workers, maxHash int }{{1, 0}, {3, 0}, {2, 1}} {
				cfg := defaultConfig
				cfg.workers = v.workers
				if v.maxHash > 0 {
					cfg.maxHashBytes = v.maxHash
				}
				b, err := build(samples, tt.p, cfg)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(a, b.Dict) {
					t.Fatalf("workers=%d maxHashBytes=%d: dictionary differs from the first build", v.workers, cfg.maxHashBytes)
				}
			}
			p := tt.p
			p.Seed++
			c, err := dictOf(samples, p)
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Equal(a, c) {
				t.Errorf("seed %d and %d gave the same bytes (the ID should differ)", tt.p.Seed, p.Seed)
			}
		})
	}
}

func TestBuildID(t *testing.T) {
	samples := smallJSON()
	tests := []struct {
		name    string
		id      uint32
		seed    int64
		want    uint32
		wantErr bool
	}{
		{"derived", 0, 5, 0, false}, // contentID, checked below
		{"explicit", 40000, 5, 40000, false},
		{"lowest", MinID, 0, MinID, false},
		{"highest", MaxID, 0, MaxID, false},
		{"below", MinID - 1, 0, 0, true},
		{"above", MaxID + 1, 0, 0, true},
		{"tiny", 1, 0, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := dictOf(samples, Params{DictSize: 4 << 10, K: 256, D: 8, ID: tt.id, Seed: tt.seed})
			if tt.wantErr {
				if err == nil {
					t.Fatalf("ID %d accepted", tt.id)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.want == 0 {
				tt.want = contentID(d)
			}
			if got := binary.LittleEndian.Uint32(d[4:]); got != tt.want {
				t.Errorf("header ID %d, want %d", got, tt.want)
			}
			info, err := zstd.InspectDictionary(d)
			if err != nil {
				t.Fatal(err)
			}
			if info.ID() != tt.want {
				t.Errorf("InspectDictionary ID %d, want %d", info.ID(), tt.want)
			}
			// The frame header names the dictionary with 2 bytes.
			enc, err := newEncoder(d, zstd.SpeedDefault)
			if err != nil {
				t.Fatal(err)
			}
			defer enc.Close()
			var h zstd.Header
			if err := h.Decode(enc.EncodeAll(samples[0], nil)); err != nil {
				t.Fatal(err)
			}
			if h.DictionaryID != tt.want {
				t.Errorf("frame names dictionary %d, want %d", h.DictionaryID, tt.want)
			}
		})
	}
}

func TestBuildErrors(t *testing.T) {
	json := smallJSON()
	tiny := [][]byte{[]byte("a"), []byte("bc"), []byte("1234567"), nil, []byte("x"), []byte("yy")}
	tests := []struct {
		name     string
		samples  [][]byte
		p        Params
		tooFew   bool
		contains string
	}{
		{"nil samples", nil, Params{}, true, "0 usable samples"},
		{"four samples", json[:4], Params{}, true, "4 usable samples"},
		{"all shorter than 8 bytes", tiny, Params{}, true, "0 usable samples (of 6)"},
		{"dictionary too small", json, Params{DictSize: 100}, false, "dictionary size 100"},
		{"dictionary too large", json, Params{DictSize: 2 << 30}, false, "dictionary size"},
		{"d too small", json, Params{D: 3}, false, "d=3"},
		{"d too large", json, Params{D: 9, K: 100}, false, "d=9"},
		{"k smaller than d", json, Params{K: 6, D: 8}, false, "k=6"},
		{"k larger than dictionary", json, Params{K: 5000, D: 8, DictSize: 4096}, false, "k=5000"},
		{"negative k", json, Params{K: -1, D: 8}, false, "negative"},
		{"bad level", json, Params{Level: 9}, false, "level"},
		{"bad split", json, Params{Split: 1.5}, false, "split"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := dictOf(tt.samples, tt.p)
			if err == nil {
				t.Fatalf("built a %d-byte dictionary", len(d))
			}
			if errors.Is(err, ErrTooFewSamples) != tt.tooFew {
				t.Errorf("errors.Is(ErrTooFewSamples) = %v: %v", !tt.tooFew, err)
			}
			if !strings.Contains(err.Error(), tt.contains) || !strings.HasPrefix(err.Error(), "train: ") {
				t.Errorf("error %q: want prefix %q and %q", err, "train: ", tt.contains)
			}
		})
	}
}

// TestBuildEdgeCases builds from inputs at the limits and checks the
// dictionaries load and round-trip.
func TestBuildEdgeCases(t *testing.T) {
	t.Parallel()
	same := bytes.Repeat([]byte("Dragonfly seed value 0123456789 "), 3)
	tests := []struct {
		name    string
		samples [][]byte
		p       Params
	}{
		{"minimum dictionary", smallJSON(), Params{DictSize: MinDictSize}},
		{"1 KiB dictionary", smallJSON(), Params{DictSize: 1 << 10}},
		{"five samples", smallJSON()[:5], Params{}},
		{"identical samples", [][]byte{same, same, same, same, same, same, same}, Params{}},
		{"tiny samples", smallInts(9, 64<<10), Params{DictSize: 8 << 10}},
		{"one big sample among small", append([][]byte{bytes.Repeat([]byte("0123456789abcdef"), 40000)}, smallJSON()[:20]...), Params{}},
		{"fastest", smallJSON(), Params{DictSize: 8 << 10, Level: zstd.SpeedFastest}},
		{"best", smallJSON()[:20], Params{DictSize: 8 << 10, K: 512, D: 8, Level: zstd.SpeedBestCompression}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := dictOf(tt.samples, tt.p)
			if err != nil {
				t.Fatal(err)
			}
			size := tt.p.DictSize
			if size == 0 {
				size = DefaultDictSize
			}
			if len(d) > size {
				t.Errorf("dictionary is %d bytes, more than %d", len(d), size)
			}
			roundTrip(t, d, tt.samples, tt.p.Level)
		})
	}
}

// roundTrip compresses samples with dict and decompresses them again.
func roundTrip(t *testing.T, dict []byte, samples [][]byte, level zstd.EncoderLevel) {
	t.Helper()
	if binary.LittleEndian.Uint32(dict) != dictMagic {
		t.Fatalf("magic %#x", binary.LittleEndian.Uint32(dict))
	}
	if level == 0 {
		level = zstd.SpeedDefault
	}
	enc, err := newEncoder(dict, level)
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	dec, err := zstd.NewReader(nil, zstd.WithDecoderDicts(dict), zstd.WithDecoderConcurrency(1))
	if err != nil {
		t.Fatal(err)
	}
	defer dec.Close()
	for i, s := range samples {
		got, err := dec.DecodeAll(enc.EncodeAll(s, nil), nil)
		if err != nil || !bytes.Equal(got, s) {
			t.Fatalf("sample %d does not round-trip: %v", i, err)
		}
	}
}

// TestDictWorksWithZstdCLI checks the reference decoder accepts our
// dictionaries and the frames made with them.
func TestDictWorksWithZstdCLI(t *testing.T) {
	if _, err := os.Stat(zstdCLI); err != nil {
		t.Skipf("%s not found", zstdCLI)
	}
	samples := smallJSON()
	dict, err := dictOf(samples, Params{DictSize: 16 << 10, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	dictPath := filepath.Join(dir, "dict")
	if err := os.WriteFile(dictPath, dict, 0o644); err != nil {
		t.Fatal(err)
	}
	enc, err := newEncoder(dict, zstd.SpeedDefault)
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	var frames, want []byte
	for _, s := range samples[:50] {
		frames = enc.EncodeAll(s, frames) // concatenated frames decode to the concatenation
		want = append(want, s...)
	}
	cmd := exec.Command(zstdCLI, "-q", "-d", "-c", "-D", dictPath)
	cmd.Stdin = bytes.NewReader(frames)
	got, err := cmd.Output()
	if err != nil {
		t.Fatalf("zstd -d -D: %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("zstd CLI decoded %d bytes, want %d", len(got), len(want))
	}
	// And the other way: zstd compresses with our dictionary, we decode.
	cmd = exec.Command(zstdCLI, "-q", "-c", "-D", dictPath)
	cmd.Stdin = bytes.NewReader(samples[0])
	frame, err := cmd.Output()
	if err != nil {
		t.Fatalf("zstd -D: %v", err)
	}
	dec, err := zstd.NewReader(nil, zstd.WithDecoderDicts(dict))
	if err != nil {
		t.Fatal(err)
	}
	defer dec.Close()
	if out, err := dec.DecodeAll(frame, nil); err != nil || !bytes.Equal(out, samples[0]) {
		t.Fatalf("decoding zstd's frame: %v", err)
	}
}

func TestTrainResult(t *testing.T) {
	samples := smallJSON()
	const size = 16 << 10
	r, err := Train(samples, Params{DictSize: size, K: 300, D: 6})
	if err != nil {
		t.Fatal(err)
	}
	if r.K != 300 || r.D != 6 || len(r.Candidates) != 0 || len(r.Dict) != size {
		t.Errorf("fixed k/d: got k=%d d=%d, %d candidates, %d bytes", r.K, r.D, len(r.Candidates), len(r.Dict))
	}
	tests := []struct {
		name string
		p    Params
		grid int // candidates of the k/d grid
	}{
		{"d fixed", Params{DictSize: size, D: 7}, len(defaultConfig.ks)},
		{"k fixed", Params{DictSize: size, K: 200}, len(defaultConfig.ds)},
		{"both searched", Params{DictSize: size}, len(defaultConfig.ks) * len(defaultConfig.ds)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Train(samples, tt.p)
			if err != nil {
				t.Fatal(err)
			}
			var grid, smaller int
			var best *Candidate
			for i, c := range r.Candidates {
				switch {
				case c.HeldOut <= 0:
					t.Errorf("candidate %+v failed", c)
				case c.Round == 3:
					smaller++
					if c.DictSize >= size {
						t.Errorf("round 3 candidate %+v not smaller", c)
					}
				default:
					grid++
					if c.DictSize != size || (tt.p.D != 0 && c.D != tt.p.D) || (tt.p.K != 0 && c.K != tt.p.K) {
						t.Errorf("grid candidate %+v does not match %+v", c, tt.p)
					}
				}
				if c.Round >= 2 && (best == nil || c.HeldOut < best.HeldOut) {
					best = &r.Candidates[i]
				}
			}
			if grid != tt.grid || smaller == 0 || smaller > defaultConfig.shrink {
				t.Errorf("%d grid and %d smaller candidates, want %d and 1..%d", grid, smaller, tt.grid, defaultConfig.shrink)
			}
			if best == nil || r.K != best.K || r.D != best.D || len(r.Dict) > best.DictSize {
				t.Errorf("chose k=%d d=%d (%d bytes), but the best was %+v", r.K, r.D, len(r.Dict), best)
			}
		})
	}
}

func TestEvaluate(t *testing.T) {
	trainSet, evalSet := HeldOut(smallJSON(), 0.8, 1)
	dict, err := dictOf(trainSet, Params{DictSize: 16 << 10})
	if err != nil {
		t.Fatal(err)
	}
	st, err := Evaluate(dict, evalSet, 0)
	if err != nil {
		t.Fatal(err)
	}
	var raw int64
	for _, s := range evalSet {
		raw += int64(len(s))
	}
	if st.Samples != len(evalSet) || st.Raw != raw {
		t.Errorf("Samples=%d Raw=%d, want %d and %d", st.Samples, st.Raw, len(evalSet), raw)
	}
	if !(st.WithDict < st.NoDict && st.NoDict < st.Raw) {
		t.Errorf("want WithDict < NoDict < Raw: %+v", st)
	}
	if st.Gain() < 0.1 {
		t.Errorf("dictionary saves only %.1f%% on repetitive JSON", 100*st.Gain())
	}
	t.Logf("%+v ratio %.2f, gain %.1f%%", st, st.Ratio(), 100*st.Gain())
	if _, err := Evaluate(nil, evalSet, 0); err == nil {
		t.Error("Evaluate accepted an empty dictionary")
	}
	if _, err := Evaluate([]byte("not a dictionary"), evalSet, 0); err == nil {
		t.Error("Evaluate accepted a bad dictionary")
	}
	if st, err := Evaluate(dict, nil, 0); err != nil || st != (Stats{}) {
		t.Errorf("no samples: %+v, %v", st, err)
	}
}

// dictOf is Train's dictionary alone.
func dictOf(samples [][]byte, p Params) ([]byte, error) {
	r, err := Train(samples, p)
	return r.Dict, err
}

// TestContentIDDiffers: dictionaries trained from different inputs get
// different IDs; the same input gets the same one.
func TestContentIDDiffers(t *testing.T) {
	a, err := dictOf(smallJSON(), Params{DictSize: 4 << 10, K: 256, D: 8})
	if err != nil {
		t.Fatal(err)
	}
	var other [][]byte
	for _, s := range smallJSON() {
		other = append(other, bytes.ToUpper(s))
	}
	b, err := dictOf(other, Params{DictSize: 4 << 10, K: 256, D: 8})
	if err != nil {
		t.Fatal(err)
	}
	again, _ := dictOf(smallJSON(), Params{DictSize: 4 << 10, K: 256, D: 8})
	ida, idb := binary.LittleEndian.Uint32(a[4:]), binary.LittleEndian.Uint32(b[4:])
	if ida == idb {
		t.Fatalf("two different dictionaries share ID %d", ida)
	}
	if !bytes.Equal(a, again) {
		t.Fatal("the same input gave a different dictionary")
	}
	if ida < MinID || ida > MaxID || ida != contentID(a) {
		t.Fatalf("ID %d is not contentID in range", ida)
	}
}
