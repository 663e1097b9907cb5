// Package train builds zstd dictionaries for rdbz.
//
// Build picks the dictionary content from a set of samples (typically list
// node strings: listpacks of JSON documents or log lines, about 8 KiB each)
// with a FastCover-style selection, and wraps it with entropy tables made by
// klauspost's zstd.BuildDict for the level the dictionary will be used at. The
// result is a complete zstd dictionary (magic 0xEC30A437, compatible with zstd
// 1.5.4 and later), with an ID in 32768..65535 so that each frame spends 2
// bytes naming it. Output depends only on the samples and Params: the same
// input gives the same bytes.
//
// Sampler keeps a bounded, uniform, reproducible sample of a stream of
// strings for training; HeldOut splits samples into training and evaluation
// parts; Evaluate measures what a dictionary gives on samples.
package train

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// Defaults and limits.
const (
	DefaultDictSize = 64 << 10 // bytes
	MinDictSize     = 256      // bytes, as zstd's ZDICT_DICTSIZE_MIN
	MaxDictSize     = 1 << 30  // bytes; far more than useful
	DefaultSplit    = 0.8      // training share of the samples during a parameter search
	MinSamples      = 5        // usable samples needed, as zstd
	MinID           = 32768    // smallest dictionary ID (2-byte frame field, outside zstd's reserved ranges)
	MaxID           = 65535    // largest dictionary ID with a 2-byte frame field

	minSampleLen   = 8       // shorter samples hold no 8-byte d-mer and are ignored
	maxTableSample = 1 << 17 // bytes of a sample used for the entropy statistics
	hashLog        = 20      // f: log2 of the d-mer count table size
)

var debugTrain = os.Getenv("RDBZ_TRAIN_DEBUG") != ""

// ErrTooFewSamples is returned (wrapped) by Build when the samples cannot
// train a dictionary.
var ErrTooFewSamples = errors.New("too few samples to train a dictionary")

// Params selects how a dictionary is built. The zero value asks for a 64 KiB
// dictionary for zstd.SpeedDefault, with k and d searched.
type Params struct {
	// DictSize is the total dictionary size target in bytes, header and
	// tables included (default DefaultDictSize). The result is at most this
	// long, shorter only if the samples do not have enough useful content.
	DictSize int
	// K is the segment size and D the d-mer size of the content selection.
	// D must be in 4..8 and K >= D. If either is 0 it is searched: d in
	// {6, 8} and k in a small grid, choosing by the compressed size of
	// held-out samples.
	K, D int
	// Seed makes the choices that are random (held-out split, default ID)
	// reproducible: same samples and same seed, same bytes.
	Seed int64
	// ID is the dictionary ID, in MinID..MaxID; 0 derives one from Seed.
	ID uint32
	// Level is the level the dictionary will be used with; the entropy
	// tables are fitted to it (default zstd.SpeedDefault).
	Level zstd.EncoderLevel
	// Split is the fraction of the samples used for training while searching
	// k and d, the rest being held out to judge the candidates (default
	// DefaultSplit). The final dictionary is trained on all samples.
	Split float64
}

// config holds the internal knobs of the algorithm; tests vary them to
// measure alternatives.
type config struct {
	ds          []int // d values searched
	ks          []int // k values searched
	perSample   bool  // count d-mers once per sample (else every occurrence)
	sortByScore bool  // order content by segment score instead of pick order
	retrainAll  bool  // after the search, select again from all samples
	tableN      int   // samples used for entropy tables (0: all)
	searchTable int   // samples used for entropy tables during the search (0: all)
	refine      bool  // replace BuildDict's FSE tables by full-precision ones
	workers     int   // parallel candidates (0: GOMAXPROCS)
}

var defaultConfig = config{
	ds:          []int{6, 8},
	ks:          []int{50, 537, 1024, 1511, 1998},
	perSample:   false,
	sortByScore: false,
	retrainAll:  true,
	tableN:      0,
	searchTable: 0,
}

// resolved is Params with defaults applied and checked.
type resolved struct {
	Params
	searchK, searchD bool
}

func (p Params) resolve() (resolved, error) {
	r := resolved{Params: p}
	if r.DictSize == 0 {
		r.DictSize = DefaultDictSize
	}
	if r.DictSize < MinDictSize || r.DictSize > MaxDictSize {
		return r, fmt.Errorf("train: dictionary size %d outside %d..%d", r.DictSize, MinDictSize, MaxDictSize)
	}
	r.searchK, r.searchD = r.K == 0 || r.D == 0, r.D == 0
	if r.K < 0 || r.D < 0 {
		return r, fmt.Errorf("train: negative k=%d or d=%d", r.K, r.D)
	}
	if r.D != 0 && (r.D < 4 || r.D > 8) {
		return r, fmt.Errorf("train: d=%d outside 4..8", r.D)
	}
	if r.K != 0 && r.D != 0 && r.K < r.D {
		return r, fmt.Errorf("train: k=%d smaller than d=%d", r.K, r.D)
	}
	if r.K > r.DictSize {
		return r, fmt.Errorf("train: k=%d larger than the dictionary size %d", r.K, r.DictSize)
	}
	if r.ID == 0 {
		r.ID = defaultID(r.Seed)
	}
	if r.ID < MinID || r.ID > MaxID {
		return r, fmt.Errorf("train: dictionary ID %d outside %d..%d", r.ID, MinID, MaxID)
	}
	if r.Level == 0 {
		r.Level = zstd.SpeedDefault
	}
	if r.Level < zstd.SpeedFastest || r.Level > zstd.SpeedBestCompression {
		return r, fmt.Errorf("train: unknown encoder level %d", r.Level)
	}
	if r.Split == 0 {
		r.Split = DefaultSplit
	}
	if !(r.Split > 0 && r.Split <= 1) {
		return r, fmt.Errorf("train: split %v outside (0, 1]", r.Split)
	}
	return r, nil
}

// defaultID derives a dictionary ID in MinID..MaxID from a seed.
func defaultID(seed int64) uint32 {
	return MinID + uint32(splitmix64(uint64(seed)^0x7264627a)%(MaxID-MinID+1))
}

// Build chooses dictionary content from samples and returns a complete zstd
// dictionary (magic 0xEC30A437) of at most p.DictSize bytes.
//
// Content is chosen FastCover-style: the samples are scored by the frequency
// of their d-byte strings across samples, the best k-byte segments are taken
// epoch by epoch with the strings they cover zeroed out, and the best content
// is placed last, closest to the data. When k or d is 0 they are searched on
// a held-out part of the samples. The entropy tables are then built by
// zstd.BuildDict for p.Level.
//
// Samples shorter than 8 bytes are ignored; at least MinSamples others are
// needed. The result depends only on the samples (and their order) and p.
func Build(samples [][]byte, p Params) ([]byte, error) {
	return build(samples, p, defaultConfig)
}

func build(samples [][]byte, p Params, cfg config) ([]byte, error) {
	r, err := p.resolve()
	if err != nil {
		return nil, err
	}
	usable := make([][]byte, 0, len(samples))
	total := 0
	for _, s := range samples {
		if len(s) >= minSampleLen {
			usable = append(usable, s)
			total += len(s)
		}
	}
	if len(usable) < MinSamples {
		return nil, fmt.Errorf("train: %d usable samples (of %d), need %d of at least %d bytes: %w",
			len(usable), len(samples), MinSamples, minSampleLen, ErrTooFewSamples)
	}

	k, d := r.K, r.D
	selectFrom := usable
	if r.searchK || r.searchD {
		k, d, selectFrom, err = search(usable, r, cfg)
		if err != nil {
			return nil, err
		}
		if cfg.retrainAll {
			selectFrom = usable
		}
	}
	if debugTrain {
		fmt.Printf("train: k=%d d=%d\n", k, d)
	}
	c := newCorpus(selectFrom)
	content := newPicker(c, hashLog).pick(c.countFreqs(d, hashLog, cfg.perSample),
		pickOptions{k: k, d: d, capacity: r.DictSize, sortByScore: cfg.sortByScore})
	dict, err := finish(content, tableSamples(usable, cfg.tableN), r, cfg.refine)
	if err != nil {
		return nil, fmt.Errorf("train: k=%d d=%d: %w", k, d, err)
	}
	return dict, nil
}

// candidate is one (k, d) pair of a search and what it gave.
type candidate struct {
	k, d int
	size int64
	err  error
}

// search tries the configured k and d values on a training part of the
// samples and returns the pair whose dictionary compresses the held-out part
// smallest (the first in grid order on ties).
func search(samples [][]byte, r resolved, cfg config) (k, d int, trainSet [][]byte, err error) {
	ds, ks := cfg.ds, cfg.ks
	if !r.searchD {
		ds = []int{r.D}
	}
	if !r.searchK {
		ks = []int{r.K}
	}
	trainSet, evalSet := HeldOut(samples, r.Split, r.Seed)
	if len(trainSet) < MinSamples || len(evalSet) == 0 {
		// Too few samples to judge: fall back to the middle of the grid.
		return ks[len(ks)/2], ds[len(ds)-1], samples, nil
	}
	var cands []candidate
	for _, d := range ds {
		for _, k := range ks {
			if k >= d && k <= r.DictSize {
				cands = append(cands, candidate{k: k, d: d})
			}
		}
	}
	if len(cands) == 0 {
		return 0, 0, nil, fmt.Errorf("train: no k/d candidate fits dictionary size %d", r.DictSize)
	}
	c := newCorpus(trainSet)
	tables := tableSamples(trainSet, cfg.searchTable)
	freqs := make(map[int][]uint32, len(ds))
	for _, d := range ds {
		freqs[d] = c.countFreqs(d, hashLog, cfg.perSample)
	}

	workers := cfg.workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, len(cands))
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			pk := newPicker(c, hashLog)
			for i := range jobs {
				cd := &cands[i]
				content := pk.pick(freqs[cd.d], pickOptions{k: cd.k, d: cd.d, capacity: r.DictSize, sortByScore: cfg.sortByScore})
				dict, err := finish(content, tables, r, cfg.refine)
				if err != nil {
					cd.err = err
					continue
				}
				cd.size, cd.err = compressedSize(dict, evalSet, r.Level)
			}
		})
	}
	for i := range cands {
		jobs <- i
	}
	close(jobs)
	wg.Wait()

	best := -1
	var errs []error
	for i, cd := range cands {
		if cd.err != nil {
			errs = append(errs, fmt.Errorf("k=%d d=%d: %w", cd.k, cd.d, cd.err))
			continue
		}
		if best < 0 || cd.size < cands[best].size {
			best = i
		}
	}
	if best < 0 {
		return 0, 0, nil, fmt.Errorf("train: every candidate failed: %w", errors.Join(errs...))
	}
	if debugTrain {
		for _, cd := range cands {
			fmt.Printf("train: candidate k=%d d=%d size=%d\n", cd.k, cd.d, cd.size)
		}
	}
	return cands[best].k, cands[best].d, trainSet, nil
}

// tableSamples returns the samples used to fit the entropy tables: all of
// them, each cut to maxTableSample bytes, or an evenly spread subset of about
// limit samples when limit > 0.
func tableSamples(samples [][]byte, limit int) [][]byte {
	step := 1.0
	if limit > 0 && len(samples) > limit {
		step = float64(len(samples)) / float64(limit)
	}
	out := make([][]byte, 0, int(float64(len(samples))/step)+1)
	next := 0.0
	for i, s := range samples {
		if float64(i) < next {
			continue
		}
		next += step
		out = append(out, s[:min(len(s), maxTableSample)])
	}
	return out
}

// finish wraps content (most valuable bytes last) with entropy tables fitted
// on samples, keeping the whole dictionary within r.DictSize by dropping
// content from the front.
func finish(content []byte, samples [][]byte, r resolved, refine bool) ([]byte, error) {
	if len(content) < minSampleLen {
		return nil, fmt.Errorf("only %d bytes of content selected: %w", len(content), ErrTooFewSamples)
	}
	// Header: magic, ID, Huffman and FSE tables, three repeat offsets; a
	// few hundred bytes. Start from a generous guess, then fill exactly.
	const overheadGuess = 400
	n := min(len(content), r.DictSize-overheadGuess)
	if n < minSampleLen {
		return nil, fmt.Errorf("dictionary size %d leaves no room for content", r.DictSize)
	}
	dict, err := zstd.BuildDict(zstd.BuildDictOptions{
		ID:         r.ID,
		Contents:   samples,
		History:    content[len(content)-n:],
		Offsets:    [3]int{1, 4, 8},
		CompatV155: true,
		Level:      r.Level,
	})
	if err != nil {
		return nil, fmt.Errorf("building entropy tables: %w", err)
	}
	var p dictParts
	if refine {
		p, err = refineTables(dict, samples, r.Level)
	} else {
		p, err = parseDict(dict)
	}
	if err != nil {
		return nil, fmt.Errorf("fitting entropy tables: %w", err)
	}
	p.content = nil
	hdr := len(p.assemble())
	n = min(len(content), r.DictSize-hdr)
	// zstd's initial repeat offsets: BuildDict's picks are tied to the exact
	// content length and measured no better.
	p.offsets = [3]uint32{1, 4, 8}
	p.content = content[len(content)-n:]
	out := p.assemble()
	if _, err := zstd.InspectDictionary(out); err != nil {
		return nil, fmt.Errorf("dictionary does not load: %w", err)
	}
	return out, nil
}
