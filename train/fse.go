package train

import (
	"errors"
	"fmt"
	"math/bits"
	"slices"
)

// This file implements the parts of zstd's FSE entropy coding (RFC 8878,
// section 4.1) that dictionary building needs: normalizing a histogram to a
// table of 2^tableLog states, writing and reading the normalized counts
// ("FSE table description"), and building the decoding table used to read
// sequences back.

const (
	fseMinTableLog = 5
	fseMaxTableLog = 9 // largest accuracy zstd allows for sequence tables
)

// normalizeCounts scales count (symbols 0..len(count)-1) so that the result
// sums to 1<<tableLog, where every symbol with a non-zero count gets a
// probability of at least -1 ("less than one": one state, full reset). It
// follows the method of zstd's FSE_normalizeCount: small counts become -1,
// the others are rounded with a bias against rounding tiny probabilities up,
// and the rounding error is absorbed by the most probable symbol unless that
// would distort it too much, in which case a slower even distribution of the
// remainder is used.
func normalizeCounts(count []uint32, tableLog uint) ([]int16, error) {
	var total uint64
	maxSym := -1
	for s, c := range count {
		total += uint64(c)
		if c != 0 {
			maxSym = s
		}
	}
	if maxSym < 0 {
		return nil, errors.New("fse: empty histogram")
	}
	if nonZero := len(count) - countZeros(count); nonZero > 1<<tableLog {
		return nil, fmt.Errorf("fse: %d symbols do not fit %d states", nonZero, 1<<tableLog)
	}
	if tableLog < fseMinTableLog || tableLog > fseMaxTableLog {
		return nil, fmt.Errorf("fse: table log %d outside %d..%d", tableLog, fseMinTableLog, fseMaxTableLog)
	}
	count = count[:maxSym+1]
	norm := make([]int16, len(count))
	// rtbTable: thresholds (in 1/2^20 units of one state) above which a
	// probability below 8 is rounded up.
	rtb := [8]uint64{0, 473195, 504333, 520860, 550000, 700000, 750000, 830000}
	scale := uint64(62 - tableLog)
	step := (uint64(1) << 62) / total
	vStep := uint64(1) << (scale - 20)
	stillToDistribute := int64(1) << tableLog
	lowThreshold := total >> tableLog
	largest, largestP := 0, int16(0)
	for s, c := range count {
		if c == 0 {
			continue
		}
		if uint64(c) <= lowThreshold {
			norm[s] = -1
			stillToDistribute--
			continue
		}
		proba := int16((uint64(c) * step) >> scale)
		if proba < 8 {
			restToBeat := vStep * rtb[proba]
			if uint64(c)*step-(uint64(proba)<<scale) > restToBeat {
				proba++
			}
		}
		if proba > largestP {
			largestP, largest = proba, s
		}
		norm[s] = proba
		stillToDistribute -= int64(proba)
	}
	if -stillToDistribute >= int64(norm[largest])>>1 {
		// Correcting the largest symbol would distort it: spread instead.
		if err := normalizeSlow(norm, count, total, tableLog); err != nil {
			return nil, err
		}
	} else {
		norm[largest] += int16(stillToDistribute)
	}
	return norm, nil
}

func countZeros(count []uint32) int {
	n := 0
	for _, c := range count {
		if c == 0 {
			n++
		}
	}
	return n
}

// normalizeSlow is zstd's FSE_normalizeM2: it gives one state (or -1) to the
// rare symbols and distributes the rest proportionally with cumulative
// rounding, so that no symbol is pushed far from its share.
func normalizeSlow(norm []int16, count []uint32, total uint64, tableLog uint) error {
	const notYetAssigned = -2
	var distributed uint64
	lowThreshold := total >> tableLog
	lowOne := (total * 3) >> (tableLog + 1)
	for s, c := range count {
		switch {
		case c == 0:
			norm[s] = 0
		case uint64(c) <= lowThreshold:
			norm[s] = -1
			distributed++
			total -= uint64(c)
		case uint64(c) <= lowOne:
			norm[s] = 1
			distributed++
			total -= uint64(c)
		default:
			norm[s] = notYetAssigned
		}
	}
	toDistribute := (uint64(1) << tableLog) - distributed
	if toDistribute == 0 {
		// The rare symbols took every state.
		if slices.Contains(norm, notYetAssigned) {
			return errors.New("fse: normalization failed")
		}
		return nil
	}
	if total/toDistribute > lowOne {
		// Risk of rounding to zero.
		lowOne = (total * 3) / (toDistribute * 2)
		for s, c := range count {
			if norm[s] == notYetAssigned && uint64(c) <= lowOne {
				norm[s] = 1
				distributed++
				total -= uint64(c)
			}
		}
		toDistribute = (uint64(1) << tableLog) - distributed
	}
	if distributed == uint64(len(count)) {
		// All symbols are low: give the remainder to the most frequent.
		maxV, maxC := 0, uint32(0)
		for s, c := range count {
			if c > maxC {
				maxV, maxC = s, c
			}
		}
		norm[maxV] += int16(toDistribute)
		return nil
	}
	if total == 0 {
		// Every symbol with a count is rare (zero counts remain): give the
		// remaining states one by one. This comes after the two steps
		// above, which can use the total up.
		if !slices.ContainsFunc(norm, func(n int16) bool { return n > 0 }) {
			return errors.New("fse: normalization failed")
		}
		for i := 0; toDistribute > 0; i = (i + 1) % len(norm) {
			if norm[i] > 0 {
				norm[i]++
				toDistribute--
			}
		}
		return nil
	}
	vStepLog := 62 - uint64(tableLog)
	mid := uint64(1)<<(vStepLog-1) - 1
	rStep := ((uint64(1)<<vStepLog)*toDistribute + mid) / total
	tmpTotal := mid
	for s, c := range count {
		if norm[s] != notYetAssigned {
			continue
		}
		end := tmpTotal + uint64(c)*rStep
		sStart := tmpTotal >> vStepLog
		sEnd := end >> vStepLog
		weight := sEnd - sStart
		if weight < 1 {
			return errors.New("fse: normalization failed")
		}
		norm[s] = int16(weight)
		tmpTotal = end
	}
	return nil
}

// writeNCount appends the FSE table description of norm (RFC 8878 4.1.1).
// norm must be a valid normalization for tableLog with a non-zero last symbol.
func writeNCount(dst []byte, norm []int16, tableLog uint) []byte {
	var bitStream uint64
	bitCount := uint(0)
	flush := func() {
		for bitCount >= 8 {
			dst = append(dst, byte(bitStream))
			bitStream >>= 8
			bitCount -= 8
		}
	}
	put := func(v uint64, n uint) {
		bitStream |= v << bitCount
		bitCount += n
		flush()
	}
	put(uint64(tableLog-fseMinTableLog), 4)
	remaining := (1 << tableLog) + 1
	threshold := 1 << tableLog
	nbBits := tableLog + 1
	previousIs0 := false
	for symbol := 0; symbol < len(norm) && remaining > 1; {
		if previousIs0 {
			// A run of zero probabilities: 2-bit repeat counts, 3 = "3 more".
			start := symbol
			for symbol < len(norm) && norm[symbol] == 0 {
				symbol++
			}
			for symbol >= start+3 {
				start += 3
				put(3, 2)
			}
			put(uint64(symbol-start), 2)
		}
		count := int(norm[symbol])
		symbol++
		maxV := 2*threshold - 1 - remaining
		if count < 0 {
			remaining += count
		} else {
			remaining -= count
		}
		count++ // values are stored +1: -1 becomes 0
		if count >= threshold {
			count += maxV
		}
		if count < maxV {
			put(uint64(count), nbBits-1)
		} else {
			put(uint64(count), nbBits)
		}
		previousIs0 = count == 1
		for remaining < threshold {
			nbBits--
			threshold >>= 1
		}
	}
	if bitCount > 0 {
		dst = append(dst, byte(bitStream))
	}
	return dst
}

// readNCount parses an FSE table description. It returns the normalized
// counts, the accuracy log, and the number of bytes read.
func readNCount(src []byte, maxSymbol int) (norm []int16, tableLog uint, n int, err error) {
	if len(src) < 1 {
		return nil, 0, 0, errors.New("fse: empty table description")
	}
	pos := uint(0) // bit position
	read := func(nb uint) uint32 {
		var v uint32
		for i := uint(0); i < nb; i++ {
			byteIdx := (pos + i) >> 3
			if int(byteIdx) < len(src) {
				v |= uint32(src[byteIdx]>>((pos+i)&7)&1) << i
			}
		}
		return v
	}
	tableLog = uint(read(4)) + fseMinTableLog
	pos += 4
	if tableLog > fseMaxTableLog {
		return nil, 0, 0, fmt.Errorf("fse: accuracy log %d too large", tableLog)
	}
	remaining := (1 << tableLog) + 1
	threshold := 1 << tableLog
	nbBits := tableLog + 1
	norm = make([]int16, 0, maxSymbol+1)
	previous0 := false
	for remaining > 1 {
		if previous0 {
			for {
				r := read(2)
				pos += 2
				for range r {
					norm = append(norm, 0)
				}
				if r != 3 {
					break
				}
			}
		}
		if len(norm) > maxSymbol {
			return nil, 0, 0, errors.New("fse: too many symbols")
		}
		maxV := uint32(2*threshold - 1 - remaining)
		v := read(nbBits)
		var count int
		if v&uint32(threshold-1) < maxV {
			count = int(v & uint32(threshold-1))
			pos += nbBits - 1
		} else {
			count = int(v & uint32(2*threshold-1))
			if count >= threshold {
				count -= int(maxV)
			}
			pos += nbBits
		}
		count--
		if count < 0 {
			remaining--
		} else {
			remaining -= count
		}
		norm = append(norm, int16(count))
		previous0 = count == 0
		for remaining < threshold {
			nbBits--
			threshold >>= 1
		}
		if int(pos+7)/8 > len(src)+1 {
			return nil, 0, 0, errors.New("fse: table description truncated")
		}
	}
	if remaining != 1 {
		return nil, 0, 0, errors.New("fse: table description does not add up")
	}
	n = int(pos+7) / 8
	if n > len(src) {
		return nil, 0, 0, errors.New("fse: table description truncated")
	}
	return norm, tableLog, n, nil
}

// fseDecTable is an FSE decoding table.
type fseDecTable struct {
	tableLog uint
	symbol   []uint8
	nbBits   []uint8
	newState []uint16
}

// buildDecTable builds the decoding table for normalized counts.
func buildDecTable(norm []int16, tableLog uint) fseDecTable {
	size := 1 << tableLog
	t := fseDecTable{tableLog: tableLog, symbol: make([]uint8, size), nbBits: make([]uint8, size), newState: make([]uint16, size)}
	high := size - 1
	next := make([]int, len(norm))
	for s, c := range norm {
		if c == -1 {
			t.symbol[high] = uint8(s)
			high--
			next[s] = 1
		} else {
			next[s] = int(c)
		}
	}
	step := (size >> 1) + (size >> 3) + 3
	mask := size - 1
	pos := 0
	for s, c := range norm {
		for range max(int(c), 0) {
			t.symbol[pos] = uint8(s)
			pos = (pos + step) & mask
			for pos > high {
				pos = (pos + step) & mask
			}
		}
	}
	for i := range size {
		s := t.symbol[i]
		x := next[s]
		next[s]++
		nb := tableLog - uint(bits.Len(uint(x))-1)
		t.nbBits[i] = uint8(nb)
		t.newState[i] = uint16((x << nb) - size)
	}
	return t
}
