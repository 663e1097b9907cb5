package train

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
)

// This file reads back the sequence codes of zstd frames (RFC 8878 section
// 3.1.1.3.2): compressing samples with the encoder the dictionary will serve
// and counting the literal-length, match-length and offset codes it emitted
// gives exact statistics for the dictionary's FSE tables. Only the codes are
// decoded; extra bits are skipped, literals are not decoded.

// codeStats counts sequence codes.
type codeStats struct {
	ll     [maxLLCode + 1]uint64
	ml     [maxMLCode + 1]uint64
	of     [maxOFCode + 1]uint64
	n      uint64 // sequences
	blocks uint64 // blocks with sequences
	// modes counts the table modes of blocks: [ll/of/ml][predefined, RLE, new, repeat].
	modes [3][4]uint64
}

var (
	llExtraBits = [maxLLCode + 1]uint8{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		1, 1, 1, 1, 2, 2, 3, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	mlExtraBits = [maxMLCode + 1]uint8{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		1, 1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}

	// Predefined distributions (RFC 8878 3.1.1.3.2.2).
	llDefaultNorm = []int16{4, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1,
		2, 2, 2, 2, 2, 2, 2, 2, 2, 3, 2, 1, 1, 1, 1, 1, -1, -1, -1, -1}
	mlDefaultNorm = []int16{1, 4, 3, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1,
		1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
		1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1, -1, -1}
	ofDefaultNorm = []int16{1, 1, 1, 1, 1, 1, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1,
		1, 1, 1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1}

	llDefaultTable = buildDecTable(llDefaultNorm, 6)
	mlDefaultTable = buildDecTable(mlDefaultNorm, 6)
	ofDefaultTable = buildDecTable(ofDefaultNorm, 5)
)

// rleTable is a decoding table of one symbol and no state bits.
func rleTable(sym uint8) fseDecTable {
	return fseDecTable{symbol: []uint8{sym}, nbBits: []uint8{0}, newState: []uint16{0}}
}

// seqTables are the current decoding tables of a frame, for repeat mode.
type seqTables struct {
	ll, of, ml *fseDecTable
}

// dictSeqTables returns the decoding tables stored in a dictionary.
func dictSeqTables(p dictParts) seqTables {
	ll := buildDecTable(p.llNorm, p.llLog)
	of := buildDecTable(p.ofNorm, p.ofLog)
	ml := buildDecTable(p.mlNorm, p.mlLog)
	return seqTables{ll: &ll, of: &of, ml: &ml}
}

// addFrame counts the sequence codes of one zstd frame. dict holds the
// tables a first block may repeat (those of the dictionary the frame uses).
func (st *codeStats) addFrame(frame []byte, dict seqTables) error {
	if len(frame) < 6 || binary.LittleEndian.Uint32(frame) != 0xFD2FB528 {
		return errors.New("not a zstd frame")
	}
	fhd := frame[4]
	pos := 5
	single := fhd&0x20 != 0
	if !single {
		pos++ // window descriptor
	}
	pos += [4]int{0, 1, 2, 4}[fhd&3]
	switch fhd >> 6 {
	case 0:
		if single {
			pos++
		}
	case 1:
		pos += 2
	case 2:
		pos += 4
	case 3:
		pos += 8
	}
	tables := dict
	for {
		if pos+3 > len(frame) {
			return errors.New("frame truncated")
		}
		bh := uint32(frame[pos]) | uint32(frame[pos+1])<<8 | uint32(frame[pos+2])<<16
		pos += 3
		last, typ, size := bh&1 != 0, (bh>>1)&3, int(bh>>3)
		switch typ {
		case 0: // raw
			pos += size
		case 1: // RLE
			pos++
		case 2:
			if pos+size > len(frame) {
				return errors.New("block truncated")
			}
			if err := st.addBlock(frame[pos:pos+size], &tables); err != nil {
				return err
			}
			pos += size
		default:
			return errors.New("reserved block type")
		}
		if last {
			return nil
		}
	}
}

// addBlock counts the sequence codes of one compressed block.
func (st *codeStats) addBlock(b []byte, t *seqTables) error {
	// Literals section: only its size matters here.
	if len(b) < 1 {
		return errors.New("empty block")
	}
	h := b[0]
	var n int
	switch typ, sf := h&3, (h>>2)&3; typ {
	case 0, 1: // raw, RLE
		var hdr, regen int
		switch sf {
		case 0, 2:
			hdr, regen = 1, int(h>>3)
		case 1:
			if len(b) < 2 {
				return errors.New("literals header truncated")
			}
			hdr, regen = 2, int(h>>4)+int(b[1])<<4
		case 3:
			if len(b) < 3 {
				return errors.New("literals header truncated")
			}
			hdr, regen = 3, int(h>>4)+int(b[1])<<4+int(b[2])<<12
		}
		if typ == 0 {
			n = hdr + regen
		} else {
			n = hdr + 1
		}
	default: // compressed, treeless
		var v uint64
		for i := range min(len(b), 5) {
			v |= uint64(b[i]) << (8 * i)
		}
		switch sf {
		case 0, 1:
			n = 3 + int((v>>14)&0x3FF)
		case 2:
			n = 4 + int((v>>18)&0x3FFF)
		case 3:
			n = 5 + int((v>>22)&0x3FFFF)
		}
	}
	if n > len(b) {
		return errors.New("literals section truncated")
	}
	s := b[n:]
	if len(s) < 1 {
		return errors.New("sequences section missing")
	}
	var nbSeq int
	switch {
	case s[0] == 0:
		return nil
	case s[0] < 128:
		nbSeq, s = int(s[0]), s[1:]
	case s[0] < 255:
		if len(s) < 2 {
			return errors.New("sequences header truncated")
		}
		nbSeq, s = int(s[0]-128)<<8+int(s[1]), s[2:]
	default:
		if len(s) < 3 {
			return errors.New("sequences header truncated")
		}
		nbSeq, s = int(s[1])+int(s[2])<<8+0x7F00, s[3:]
	}
	if len(s) < 1 {
		return errors.New("sequences header truncated")
	}
	modes := s[0]
	s = s[1:]
	st.blocks++
	st.modes[0][modes>>6]++
	st.modes[1][(modes>>4)&3]++
	st.modes[2][(modes>>2)&3]++
	table := func(mode byte, def *fseDecTable, prev **fseDecTable, maxSym int) error {
		switch mode {
		case 0:
			*prev = def
		case 1:
			if len(s) < 1 {
				return errors.New("RLE symbol missing")
			}
			t := rleTable(s[0])
			*prev, s = &t, s[1:]
		case 2:
			norm, log, n, err := readNCount(s, maxSym)
			if err != nil {
				return err
			}
			t := buildDecTable(norm, log)
			*prev, s = &t, s[n:]
		case 3:
			if *prev == nil {
				return errors.New("repeat mode without a previous table")
			}
		}
		return nil
	}
	if err := table(modes>>6, &llDefaultTable, &t.ll, maxLLCode); err != nil {
		return fmt.Errorf("literal lengths table: %w", err)
	}
	if err := table((modes>>4)&3, &ofDefaultTable, &t.of, maxOFCode); err != nil {
		return fmt.Errorf("offsets table: %w", err)
	}
	if err := table((modes>>2)&3, &mlDefaultTable, &t.ml, maxMLCode); err != nil {
		return fmt.Errorf("match lengths table: %w", err)
	}
	br, err := newBackReader(s)
	if err != nil {
		return err
	}
	ll, of, ml := t.ll, t.of, t.ml
	llState := br.read(ll.tableLog)
	ofState := br.read(of.tableLog)
	mlState := br.read(ml.tableLog)
	for i := range nbSeq {
		if int(llState) >= len(ll.symbol) || int(ofState) >= len(of.symbol) || int(mlState) >= len(ml.symbol) {
			return errors.New("bad FSE state")
		}
		llc, ofc, mlc := ll.symbol[llState], of.symbol[ofState], ml.symbol[mlState]
		if int(llc) > maxLLCode || int(mlc) > maxMLCode || int(ofc) > maxOFCode {
			return errors.New("sequence code out of range")
		}
		st.ll[llc]++
		st.ml[mlc]++
		st.of[ofc]++
		st.n++
		br.skip(uint(ofc))
		br.skip(uint(mlExtraBits[mlc]))
		br.skip(uint(llExtraBits[llc]))
		if i == nbSeq-1 {
			break
		}
		llState = uint32(ll.newState[llState]) + br.read(uint(ll.nbBits[llState]))
		mlState = uint32(ml.newState[mlState]) + br.read(uint(ml.nbBits[mlState]))
		ofState = uint32(of.newState[ofState]) + br.read(uint(of.nbBits[ofState]))
	}
	if br.pos != 0 {
		return fmt.Errorf("sequence bitstream has %d bits left", br.pos)
	}
	return nil
}

// backReader reads a zstd backward bitstream: from the end of the buffer,
// past the final padding marker, towards its start.
type backReader struct {
	b   []byte
	pos int // bits not yet read; the next read ends at bit pos
}

func newBackReader(b []byte) (*backReader, error) {
	if len(b) == 0 || b[len(b)-1] == 0 {
		return nil, errors.New("bitstream without end marker")
	}
	return &backReader{b: b, pos: 8*len(b) - 8 + bits.Len8(b[len(b)-1]) - 1}, nil
}

// read returns the next n bits (n <= 24), most significant first.
func (r *backReader) read(n uint) uint32 {
	r.pos -= int(n)
	if n == 0 || r.pos < 0 {
		return 0
	}
	var v uint64
	start := r.pos >> 3
	for i := 0; i < 8 && start+i < len(r.b); i++ {
		v |= uint64(r.b[start+i]) << (8 * i)
	}
	return uint32((v >> (r.pos & 7)) & (1<<n - 1))
}

func (r *backReader) skip(n uint) { r.pos -= int(n) }
