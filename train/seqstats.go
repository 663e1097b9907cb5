package train

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
)

// This file reads back the sequences of zstd frames (RFC 8878 section
// 3.1.1.3.2): compressing samples with the encoder the dictionary will serve
// and counting the literal-length, match-length and offset codes it emitted,
// and the literal bytes, gives exact statistics for the dictionary's entropy
// tables. Literals are not decoded: knowing the sample and the literal and
// match lengths, they are read from the sample itself.

// codeStats counts sequence codes and literals.
type codeStats struct {
	lit    [256]uint64
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

	llBase = [maxLLCode + 1]uint32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
		16, 18, 20, 22, 24, 28, 32, 40, 48, 64, 128, 256, 512, 1024, 2048, 4096,
		8192, 16384, 32768, 65536}
	mlBase = [maxMLCode + 1]uint32{3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18,
		19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34,
		35, 37, 39, 41, 43, 47, 51, 59, 67, 83, 99, 131, 259, 515, 1027, 2051,
		4099, 8195, 16387, 32771, 65539}

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

// add adds o's counts to st's.
func (st *codeStats) add(o *codeStats) {
	addCounts(st.lit[:], o.lit[:])
	addCounts(st.ll[:], o.ll[:])
	addCounts(st.ml[:], o.ml[:])
	addCounts(st.of[:], o.of[:])
	st.n += o.n
	st.blocks += o.blocks
	for i := range st.modes {
		addCounts(st.modes[i][:], o.modes[i][:])
	}
}

func addCounts(dst, src []uint64) {
	for i, c := range src {
		dst[i] += c
	}
}

// addFrame counts the sequence codes and literals of one zstd frame made
// from src. dict holds the tables a first block may repeat (those of the
// dictionary the frame uses, if any).
func (st *codeStats) addFrame(frame, src []byte, dict seqTables) error {
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
	at := 0 // position in src of the current block
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
			at += size
		case 1: // RLE
			pos++
			at += size
		case 2:
			if pos+size > len(frame) {
				return errors.New("block truncated")
			}
			n, err := st.addBlock(frame[pos:pos+size], src[min(at, len(src)):], &tables)
			if err != nil {
				return err
			}
			pos += size
			at += n
		default:
			return errors.New("reserved block type")
		}
		if last {
			if at != len(src) {
				return fmt.Errorf("frame decodes to %d bytes, want %d", at, len(src))
			}
			return nil
		}
	}
}

// addBlock counts the sequence codes and literals of one compressed block
// whose content starts at src, and returns the block's decompressed size.
func (st *codeStats) addBlock(b, src []byte, t *seqTables) (int, error) {
	// Literals section: only its sizes matter here.
	if len(b) < 1 {
		return 0, errors.New("empty block")
	}
	h := b[0]
	var n, nLit int
	switch typ, sf := h&3, (h>>2)&3; typ {
	case 0, 1: // raw, RLE
		var hdr, regen int
		switch sf {
		case 0, 2:
			hdr, regen = 1, int(h>>3)
		case 1:
			if len(b) < 2 {
				return 0, errors.New("literals header truncated")
			}
			hdr, regen = 2, int(h>>4)+int(b[1])<<4
		case 3:
			if len(b) < 3 {
				return 0, errors.New("literals header truncated")
			}
			hdr, regen = 3, int(h>>4)+int(b[1])<<4+int(b[2])<<12
		}
		if typ == 0 {
			n = hdr + regen
		} else {
			n = hdr + 1
		}
		nLit = regen
	default: // compressed, treeless
		var v uint64
		for i := range min(len(b), 5) {
			v |= uint64(b[i]) << (8 * i)
		}
		switch sf {
		case 0, 1:
			n, nLit = 3+int((v>>14)&0x3FF), int((v>>4)&0x3FF)
		case 2:
			n, nLit = 4+int((v>>18)&0x3FFF), int((v>>4)&0x3FFF)
		case 3:
			n, nLit = 5+int((v>>22)&0x3FFFF), int((v>>4)&0x3FFFF)
		}
	}
	if n > len(b) {
		return 0, errors.New("literals section truncated")
	}
	s := b[n:]
	if len(s) < 1 {
		return 0, errors.New("sequences section missing")
	}
	var nbSeq int
	switch {
	case s[0] == 0:
		st.addLiterals(src, nLit)
		return nLit, nil
	case s[0] < 128:
		nbSeq, s = int(s[0]), s[1:]
	case s[0] < 255:
		if len(s) < 2 {
			return 0, errors.New("sequences header truncated")
		}
		nbSeq, s = int(s[0]-128)<<8+int(s[1]), s[2:]
	default:
		if len(s) < 3 {
			return 0, errors.New("sequences header truncated")
		}
		nbSeq, s = int(s[1])+int(s[2])<<8+0x7F00, s[3:]
	}
	if len(s) < 1 {
		return 0, errors.New("sequences header truncated")
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
		return 0, fmt.Errorf("literal lengths table: %w", err)
	}
	if err := table((modes>>4)&3, &ofDefaultTable, &t.of, maxOFCode); err != nil {
		return 0, fmt.Errorf("offsets table: %w", err)
	}
	if err := table((modes>>2)&3, &mlDefaultTable, &t.ml, maxMLCode); err != nil {
		return 0, fmt.Errorf("match lengths table: %w", err)
	}
	br, err := newBackReader(s)
	if err != nil {
		return 0, err
	}
	ll, of, ml := t.ll, t.of, t.ml
	pos, litSeen := 0, 0 // position in src, literals so far
	llState := br.read(ll.tableLog)
	ofState := br.read(of.tableLog)
	mlState := br.read(ml.tableLog)
	for i := range nbSeq {
		if int(llState) >= len(ll.symbol) || int(ofState) >= len(of.symbol) || int(mlState) >= len(ml.symbol) {
			return 0, errors.New("bad FSE state")
		}
		llc, ofc, mlc := ll.symbol[llState], of.symbol[ofState], ml.symbol[mlState]
		if int(llc) > maxLLCode || int(mlc) > maxMLCode || int(ofc) > maxOFCode {
			return 0, errors.New("sequence code out of range")
		}
		st.ll[llc]++
		st.ml[mlc]++
		st.of[ofc]++
		st.n++
		br.skip(uint(ofc))
		mlen := int(mlBase[mlc] + br.read(uint(mlExtraBits[mlc])))
		llen := int(llBase[llc] + br.read(uint(llExtraBits[llc])))
		if llen > nLit-litSeen || pos+llen+mlen > len(src) {
			return 0, errors.New("sequence beyond the block")
		}
		st.addLiterals(src[pos:], llen)
		litSeen += llen
		pos += llen + mlen
		if i == nbSeq-1 {
			break
		}
		llState = uint32(ll.newState[llState]) + br.read(uint(ll.nbBits[llState]))
		mlState = uint32(ml.newState[mlState]) + br.read(uint(ml.nbBits[mlState]))
		ofState = uint32(of.newState[ofState]) + br.read(uint(of.nbBits[ofState]))
	}
	if br.pos != 0 {
		return 0, fmt.Errorf("sequence bitstream has %d bits left", br.pos)
	}
	// The literals after the last sequence.
	rest := nLit - litSeen
	if pos+rest > len(src) {
		return 0, errors.New("literals beyond the block")
	}
	st.addLiterals(src[pos:], rest)
	return pos + rest, nil
}

// addLiterals counts the first n bytes of src as literals.
func (st *codeStats) addLiterals(src []byte, n int) {
	for _, c := range src[:n] {
		st.lit[c]++
	}
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
	if start+8 <= len(r.b) {
		v = binary.LittleEndian.Uint64(r.b[start:])
	} else {
		for i := 0; start+i < len(r.b); i++ {
			v |= uint64(r.b[start+i]) << (8 * i)
		}
	}
	return uint32((v >> (r.pos & 7)) & (1<<n - 1))
}

func (r *backReader) skip(n uint) { r.pos -= int(n) }
