package train

import (
	"errors"
	"fmt"
	"math"
	"math/bits"

	"github.com/klauspost/compress/zstd"
)

// Table logs of the dictionary's FSE tables: the largest RFC 8878 allows
// for dictionaries, as zstd's own trainer writes them.
const (
	dictOFLog = 8
	dictMLLog = 9
	dictLLLog = 9
)

// refineTables replaces the FSE tables of dict with full-precision tables
// fitted to the sequences the encoder at level actually produces on samples
// with this dictionary. Every code gets a small probability, so that the
// dictionary's tables stay usable for any block.
func refineTables(dict []byte, samples [][]byte, level zstd.EncoderLevel) (dictParts, error) {
	p, err := parseDict(dict)
	if err != nil {
		return p, err
	}
	enc, err := newEncoder(dict, level)
	if err != nil {
		return p, err
	}
	defer enc.Close()
	tables := dictSeqTables(p)
	var st codeStats
	var buf []byte
	for _, s := range samples {
		buf = enc.EncodeAll(s, buf[:0])
		if err := st.addFrame(buf, tables); err != nil {
			return p, fmt.Errorf("reading back a frame: %w", err)
		}
	}
	// Offsets can reach back over the whole content plus a block.
	ofMax := bits.Len(uint(len(p.content)+128<<10)) - 1
	for _, x := range []struct {
		dst    *[]byte
		count  []uint64
		maxSym int
		maxLog uint
	}{
		{&p.of, st.of[:], ofMax, dictOFLog},
		{&p.ml, st.ml[:], maxMLCode, dictMLLog},
		{&p.ll, st.ll[:], maxLLCode, dictLLLog},
	} {
		norm, log, err := fitTable(x.count, x.maxSym, x.maxLog, st.blocks)
		if err != nil {
			return p, err
		}
		*x.dst = writeNCount(nil, norm, log)
	}
	return p, nil
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
		c := make([]uint32, max(smoothTo, observedMax)+1)
		for s := range c {
			c[s] = uint32(min(count[s], 1<<30))
			if s <= smoothTo {
				c[s]++
			}
		}
		nonZero := 0
		for _, v := range c {
			if v != 0 {
				nonZero++
			}
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
