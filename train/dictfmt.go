package train

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Dictionary layout (RFC 8878 section 5): magic, ID, entropy tables (Huffman
// literal table, then the FSE tables of offset codes, match lengths and
// literal lengths), three repeat offsets, content.

const dictMagic = 0xEC30A437

// Symbol ranges of the sequence codes.
const (
	maxLLCode = 35
	maxMLCode = 52
	maxOFCode = 31
)

// dictParts locates the sections of a zstd dictionary.
type dictParts struct {
	id                     uint32
	huf, of, ml, ll        []byte  // table descriptions, as stored
	ofNorm, mlNorm, llNorm []int16 // the FSE tables read back (by parseDict only)
	ofLog, mlLog, llLog    uint
	offsets                [3]uint32
	content                []byte
}

// parseDict splits a zstd dictionary into its parts.
func parseDict(d []byte) (dictParts, error) {
	var p dictParts
	if len(d) < 8 || binary.LittleEndian.Uint32(d) != dictMagic {
		return p, errors.New("not a zstd dictionary")
	}
	p.id = binary.LittleEndian.Uint32(d[4:])
	rest := d[8:]
	if len(rest) < 1 {
		return p, errors.New("dictionary truncated")
	}
	n := 1
	if h := int(rest[0]); h < 128 {
		n += h
	} else {
		n += (h - 127 + 1) / 2
	}
	if n > len(rest) {
		return p, errors.New("dictionary Huffman table truncated")
	}
	p.huf, rest = rest[:n], rest[n:]
	var err error
	read := func(maxSym int) ([]byte, []int16, uint, error) {
		norm, log, n, err := readNCount(rest, maxSym)
		if err != nil {
			return nil, nil, 0, err
		}
		t := rest[:n]
		rest = rest[n:]
		return t, norm, log, nil
	}
	if p.of, p.ofNorm, p.ofLog, err = read(maxOFCode); err != nil {
		return p, fmt.Errorf("offset table: %w", err)
	}
	if p.ml, p.mlNorm, p.mlLog, err = read(maxMLCode); err != nil {
		return p, fmt.Errorf("match length table: %w", err)
	}
	if p.ll, p.llNorm, p.llLog, err = read(maxLLCode); err != nil {
		return p, fmt.Errorf("literal length table: %w", err)
	}
	if len(rest) < 12 {
		return p, errors.New("dictionary offsets truncated")
	}
	for i := range p.offsets {
		p.offsets[i] = binary.LittleEndian.Uint32(rest[4*i:])
	}
	p.content = rest[12:]
	return p, nil
}

// assemble writes a dictionary from its parts (the table descriptions as
// stored, not the norms).
func (p dictParts) assemble() []byte {
	out := binary.LittleEndian.AppendUint32(nil, dictMagic)
	out = binary.LittleEndian.AppendUint32(out, p.id)
	out = append(out, p.huf...)
	out = append(out, p.of...)
	out = append(out, p.ml...)
	out = append(out, p.ll...)
	for _, o := range p.offsets {
		out = binary.LittleEndian.AppendUint32(out, o)
	}
	return append(out, p.content...)
}
