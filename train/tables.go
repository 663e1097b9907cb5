package train

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"sync"

	"github.com/klauspost/compress/huff0"
	"github.com/klauspost/compress/zstd"
)

// This file writes a dictionary's entropy tables (RFC 8878 section 5): the
// Huffman table of literals and the FSE tables of offset codes, match lengths
// and literal lengths. They are fitted to the sequences the encoder at the
// target level really produces: each sample is compressed with the content
// as a raw dictionary (klauspost's encoders parse the same with or without
// the dictionary's tables; TestRawDictSameParse) and the frames are read
// back (seqstats.go).
//
// klauspost's zstd.BuildDict collects the same statistics but scales them to
// roughly 512 sequences and at most 8-bit tables; measured on list nodes its
// tables cost 0.2-0.6% more output than full-precision ones, and zstd's own
// tables (fitted to zstd's parse) also lose to these.

// Largest table logs a dictionary may use (RFC 8878 section 5), which zstd's
// own trainer always writes.
const (
	dictOFLog  = 8
	dictMLLog  = 9
	dictLLLog  = 9
	huffMaxLog = 11
)

// collectStats compresses samples with content as a raw dictionary and
// counts what the frames hold: on each coder a run of the samples, at
// once (the counts are sums, and each frame depends on its sample alone).
func collectStats(cds []*coder, content []byte, samples [][]byte) (*codeStats, error) {
	if len(cds) == 1 {
		return cds[0].stats(content, samples) // a search's worker: already one of several
	}
	parts := make([]*codeStats, len(cds))
	errs := make([]error, len(cds))
	var wg sync.WaitGroup
	for i, cd := range cds {
		first, last := len(samples)*i/len(cds), len(samples)*(i+1)/len(cds)
		wg.Go(func() { parts[i], errs[i] = cd.stats(content, samples[first:last]) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	st := parts[0]
	for _, p := range parts[1:] {
		st.add(p)
	}
	return st, nil
}

// stats compresses samples with content as a raw dictionary and counts
// what the frames hold.
func (cd *coder) stats(content []byte, samples [][]byte) (*codeStats, error) {
	if err := cd.useRaw(content); err != nil {
		return nil, err
	}
	st := new(codeStats)
	var buf []byte
	for _, s := range samples {
		buf = cd.enc.EncodeAll(s, buf[:0])
		if err := st.addFrame(buf, s, seqTables{}); err != nil {
			return nil, fmt.Errorf("reading back a frame: %w", err)
		}
	}
	return st, nil
}

// entropyTables returns the table descriptions for a dictionary with
// contentLen bytes of content.
func entropyTables(st *codeStats, contentLen int) (huf, of, ml, ll []byte, err error) {
	if huf, err = huffTable(&st.lit); err != nil {
		return nil, nil, nil, nil, fmt.Errorf("literals table: %w", err)
	}
	// Offsets can reach back over the whole content plus a block (as zstd).
	ofMax := min(bits.Len(uint(contentLen+128<<10))-1, maxOFCode)
	for _, x := range []struct {
		name   string
		dst    *[]byte
		count  []uint64
		maxSym int
		maxLog uint
	}{
		{"offsets", &of, st.of[:], ofMax, dictOFLog},
		{"match lengths", &ml, st.ml[:], maxMLCode, dictMLLog},
		{"literal lengths", &ll, st.ll[:], maxLLCode, dictLLLog},
	} {
		norm, log, err := fitTable(x.count, x.maxSym, x.maxLog, st.blocks)
		if err != nil {
			return nil, nil, nil, nil, fmt.Errorf("%s table: %w", x.name, err)
		}
		*x.dst = writeNCount(nil, norm, log)
	}
	return huf, of, ml, ll, nil
}

// fitTable chooses the normalized distribution and table log for observed
// symbol counts that minimize the estimated coded size: each block pays
// tableLog bits for its initial state, each symbol about log2(2^tableLog /
// states) bits. Unseen symbols get one state when that is affordable, so the
// table stays usable for blocks that contain them; larger tables fit the
// counts better but cost more per block, which matters for tiny samples.
func fitTable(count []uint64, maxSym int, maxLog uint, blocks uint64) ([]int16, uint, error) {
	observedMax := -1
	for s, c := range count {
		if c != 0 {
			observedMax = s
		}
	}
	if observedMax < 0 {
		observedMax = 0 // no sequences at all: any valid table will do
	}
	maxSym = max(maxSym, observedMax)
	var (
		best     []int16
		bestLog  uint
		bestCost = math.Inf(1)
	)
	for _, smoothTo := range []int{maxSym, observedMax, -1} {
		// Decoders want at least two symbols described.
		c := make([]uint32, max(smoothTo, observedMax, 1)+1)
		nonZero := 0
		for s := range c {
			c[s] = uint32(min(count[s], 1<<30))
			if s <= smoothTo {
				c[s]++
			}
			if c[s] != 0 {
				nonZero++
			}
		}
		if c[len(c)-1] == 0 {
			c[len(c)-1] = 1
			nonZero++
		}
		for log := uint(fseMinTableLog); log <= maxLog; log++ {
			if nonZero > 1<<log {
				continue
			}
			norm, err := normalizeCounts(c, log)
			if err != nil {
				continue
			}
			cost := float64(blocks) * float64(log)
			for s, n := range norm {
				if s < len(count) && count[s] != 0 {
					cost += float64(count[s]) * (float64(log) - math.Log2(float64(max(n, 1))))
				}
			}
			if cost < bestCost {
				best, bestLog, bestCost = norm, log, cost
			}
		}
	}
	if best == nil {
		return nil, 0, errors.New("no table fits the symbol counts")
	}
	return best, bestLog, nil
}

// huffTable returns the Huffman table description for literal counts. Every
// byte value keeps a code (as zstd's trainer does), so that the table can
// serve any block; describing symbol 255 is also what zstd up to 1.5.5
// needs from a dictionary (klauspost's CompatV155).
func huffTable(lit *[256]uint64) ([]byte, error) {
	var count [256]uint64
	for i, c := range lit {
		count[i] = c + 1
	}
	for range 16 {
		table, err := huffTableOf(&count)
		if !errors.Is(err, huff0.ErrIncompressible) {
			return table, err
		}
		// Too flat (few or random literals) for huff0 to accept the table:
		// favour the most frequent byte until it does. Blocks whose literals
		// do not fit such a table get their own.
		top, total := 0, uint64(0)
		for i, c := range count {
			total += c
			if c > count[top] {
				top = i
			}
		}
		count[top] += total
	}
	return nil, errors.New("no Huffman table fits the literals")
}

// huffTableOf returns the Huffman table huff0 builds for symbol counts.
func huffTableOf(count *[256]uint64) ([]byte, error) {
	// huff0 builds its table from a buffer's histogram: write a buffer with
	// the same proportions, at most about 64 KiB long.
	const target = 1 << 16
	var total uint64
	for _, c := range count {
		total += c
	}
	buf := make([]byte, 0, target+256)
	for sym, c := range count {
		n := c
		if total > target && n > 0 {
			n = max(1, (n*target+total/2)/total)
		}
		for range n {
			buf = append(buf, byte(sym))
		}
	}
	s := &huff0.Scratch{TableLog: huffMaxLog}
	if _, _, err := huff0.Compress1X(buf, s); err != nil {
		return nil, err
	}
	return append([]byte(nil), s.OutTable...), nil
}

// makeDict builds a dictionary of at most r.DictSize bytes from content
// (most valuable bytes last), with tables fitted on samples compressed by
// the coders, at once (at level r.Level).
func makeDict(cds []*coder, content []byte, samples [][]byte, r resolved) ([]byte, error) {
	if len(content) < minSampleLen {
		return nil, fmt.Errorf("only %d bytes of content selected: %w", len(content), ErrTooFewSamples)
	}
	// The header (magic, ID, tables, offsets) takes 50-300 bytes: measure
	// with a generous guess, then fill the size exactly.
	overheadGuess := min(320, r.DictSize/2)
	n := min(len(content), r.DictSize-overheadGuess)
	if n < minSampleLen {
		return nil, fmt.Errorf("dictionary size %d leaves no room for content", r.DictSize)
	}
	st, err := collectStats(cds, content[len(content)-n:], samples)
	if err != nil {
		return nil, err
	}
	p := dictParts{id: r.ID, offsets: [3]uint32{1, 4, 8}}
	if p.huf, p.of, p.ml, p.ll, err = entropyTables(st, n); err != nil {
		return nil, err
	}
	hdr := len(p.assemble())
	n = min(len(content), r.DictSize-hdr)
	if n < 8 {
		return nil, fmt.Errorf("dictionary size %d leaves no room for content", r.DictSize)
	}
	p.content = content[len(content)-n:]
	dict := p.assemble()
	if _, err := zstd.InspectDictionary(dict); err != nil {
		return nil, fmt.Errorf("dictionary does not load: %w", err)
	}
	return dict, nil
}
