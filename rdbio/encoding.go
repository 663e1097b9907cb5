package rdbio

import (
	"encoding/binary"
	"fmt"
	"strconv"
)

// Enc says how a string is stored in the file.
type Enc uint8

// String encodings (rdb-format.md §2.2, rdbz format §1).
const (
	EncRaw  Enc = iota // length-prefixed bytes
	EncInt             // 0xC0..0xC2: an integer stored as 1, 2 or 4 bytes
	EncLZF             // 0xC3: LZF-compressed
	EncZstd            // 0xC4: rdbz's zstd frame (list nodes of rdbz-compressed files only)
)

func (e Enc) String() string {
	switch e {
	case EncRaw:
		return "raw"
	case EncInt:
		return "int"
	case EncLZF:
		return "lzf"
	case EncZstd:
		return "zstd"
	}
	return "enc(" + strconv.Itoa(int(e)) + ")"
}

// Special string encoding numbers (the low 6 bits of an 11xxxxxx byte).
const (
	encInt8  = 0
	encInt16 = 1
	encInt32 = 2
	encLZF   = 3
)

// strHead is a parsed string prefix: how it is stored and how many payload
// bytes follow.
type strHead struct {
	enc   Enc
	size  uint64 // stored payload bytes that follow the prefix
	ulen  uint64 // decoded length (LZF, zstd); for raw = size
	flags byte   // 0xC4 flags
}

// lenOrSpecial reads an RDB length. If the first byte is 11xxxxxx it is not
// a length but a special encoding, returned in n with special set.
func (r *Reader) lenOrSpecial() (n uint64, special bool, err error) {
	b, err := r.in.byte()
	if err != nil {
		return 0, false, err
	}
	switch b >> 6 {
	case 0:
		return uint64(b & 0x3F), false, nil
	case 1:
		b2, err := r.in.byte()
		if err != nil {
			return 0, false, err
		}
		return uint64(b&0x3F)<<8 | uint64(b2), false, nil
	case 3:
		return uint64(b & 0x3F), true, nil
	}
	switch b {
	case 0x80:
		p, err := r.in.take(4)
		if err != nil {
			return 0, false, err
		}
		return uint64(binary.BigEndian.Uint32(p)), false, nil
	case 0x81:
		p, err := r.in.take(8)
		if err != nil {
			return 0, false, err
		}
		return binary.BigEndian.Uint64(p), false, nil
	}
	return 0, false, fmt.Errorf("%w: length byte 0x%02x", ErrCorrupt, b)
}

// readLen reads a plain length (no special encoding allowed).
func (r *Reader) readLen() (uint64, error) {
	n, special, err := r.lenOrSpecial()
	if err != nil {
		return 0, err
	}
	if special {
		return 0, fmt.Errorf("%w: special string encoding 0x%02x where a length is expected", ErrCorrupt, 0xC0|n)
	}
	return n, nil
}

// strHeader reads a string prefix.
func (r *Reader) strHeader() (strHead, error) {
	n, special, err := r.lenOrSpecial()
	if err != nil {
		return strHead{}, err
	}
	if !special {
		r.noteLen(n)
		return strHead{enc: EncRaw, size: n, ulen: n}, nil
	}
	switch n {
	case encInt8, encInt16, encInt32:
		size := uint64(1) << n
		return strHead{enc: EncInt, size: size}, nil
	case encLZF:
		clen, err := r.readLen()
		if err != nil {
			return strHead{}, err
		}
		ulen, err := r.readLen()
		if err != nil {
			return strHead{}, err
		}
		if clen == 0 {
			return strHead{}, fmt.Errorf("%w: LZF string with 0 compressed bytes", ErrCorrupt)
		}
		if !lzfCanDecode(clen, ulen) {
			return strHead{}, fmt.Errorf("%w: LZF string of %d bytes cannot decode to the %d it claims", ErrCorrupt, clen, ulen)
		}
		r.noteLen(ulen)
		return strHead{enc: EncLZF, size: clen, ulen: ulen}, nil
	case EncodingZstd:
		flags, err := r.in.byte()
		if err != nil {
			return strHead{}, err
		}
		clen, err := r.readLen()
		if err != nil {
			return strHead{}, err
		}
		ulen, err := r.readLen()
		if err != nil {
			return strHead{}, err
		}
		r.noteLen(ulen)
		return strHead{enc: EncZstd, size: clen, ulen: ulen, flags: flags}, nil
	}
	return strHead{}, fmt.Errorf("%w: unknown string encoding 0x%02x", ErrCorrupt, 0xC0|n)
}

// noteLen keeps the largest decoded length of a string in the value being
// walked (ValueInfo.MaxStringLen).
func (r *Reader) noteLen(n uint64) {
	r.maxLen = max(r.maxLen, n)
}

// valueStrHeader reads the prefix of a string inside a value that is not a
// list node: rdbz's 0xC4 encoding is not allowed there.
func (r *Reader) valueStrHeader() (strHead, error) {
	h, err := r.strHeader()
	if err == nil && h.enc == EncZstd {
		err = fmt.Errorf("%w: zstd string (0xC4) outside a list node", ErrCorrupt)
	}
	return h, err
}

// skipString consumes a string of a value that is not a list node.
func (r *Reader) skipString() error {
	h, err := r.valueStrHeader()
	if err != nil {
		return err
	}
	return r.in.skip(h.size)
}

// skipNodeString consumes a list node string (rdbz's 0xC4 allowed).
func (r *Reader) skipNodeString() error {
	h, err := r.strHeader()
	if err != nil {
		return err
	}
	return r.in.skip(h.size)
}

// readString reads and decodes a string that rdbio must hold (a key, an
// AUX field, a function): raw, integer or LZF, up to the cap.
func (r *Reader) readString(dst []byte) ([]byte, error) {
	h, err := r.strHeader()
	if err != nil {
		return nil, err
	}
	switch h.enc {
	case EncInt:
		p, err := r.in.take(int(h.size))
		if err != nil {
			return nil, err
		}
		return strconv.AppendInt(dst[:0], IntValue(p), 10), nil
	case EncLZF:
		if h.ulen > uint64(r.opt.Cap) || h.size > uint64(r.opt.Cap) {
			return nil, fmt.Errorf("%w: LZF string of %d bytes (cap %d)", ErrTooLarge, h.ulen, r.opt.Cap)
		}
		c, err := r.in.appendN(r.scratch[:0], h.size)
		r.scratch = c
		if err != nil {
			return nil, err
		}
		out, err := LZFDecode(dst[:0], c, int(h.ulen))
		if err != nil {
			return nil, fmt.Errorf("%w: LZF data does not decode to %d bytes", ErrCorrupt, h.ulen)
		}
		return out, nil
	case EncZstd:
		return nil, fmt.Errorf("%w: zstd string (0xC4) outside a list node", ErrCorrupt)
	}
	if h.size > uint64(r.opt.Cap) {
		return nil, fmt.Errorf("%w: %d bytes (cap %d)", ErrTooLarge, h.size, r.opt.Cap)
	}
	return r.in.appendN(dst[:0], h.size)
}

// IntValue decodes the payload of an integer-encoded string (EncInt): a
// 1, 2 or 4 byte little-endian signed integer.
func IntValue(p []byte) int64 {
	switch len(p) {
	case 1:
		return int64(int8(p[0]))
	case 2:
		return int64(int16(binary.LittleEndian.Uint16(p)))
	}
	return int64(int32(binary.LittleEndian.Uint32(p)))
}
