package rdbio

import (
	"encoding/binary"
	"fmt"
	"strconv"

	"github.com/rdbz/rdbz/rdbio/lzf"
)

// Enc says how a string is stored in the file.
type Enc uint8

// String encodings (FORMAT.md §5; §A.1 for rdbz's 0xC4).
const (
	EncRaw  Enc = iota // length-prefixed bytes
	EncInt             // 0xC0..0xC2: an integer stored as 1, 2 or 4 bytes
	EncLZF             // 0xC3: LZF-compressed
	EncZstd            // 0xC4: rdbz's zstd frame (list nodes of rdbz-compressed files only)
	EncT               // 0xC5: a decoded LZF string in format 2's T stream (where a StringHook wants it)
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
	case EncT:
		return "t"
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
	// done: a StringHook consumed the whole string (size is 0) and sent
	// its replacement on; data holds its decoded bytes (unless the string
	// was skipped), valid until the next string is read.
	done bool
	data []byte
}

// The one decoder of RDB lengths and strings (FORMAT.md §5):
// methods of input, so that the Reader (over a file) and StringScanner
// (over a value held whole) read them alike. Every byte is taken from the
// input before it is looked at, so a string cut short is an error, never
// an index out of range.

// lenOrSpecial reads an RDB length. If the first byte is 11xxxxxx it is not
// a length but a special encoding, returned in n with special set.
func (in *input) lenOrSpecial() (n uint64, special bool, err error) {
	b, err := in.byte()
	if err != nil {
		return 0, false, err
	}
	switch b >> 6 {
	case 0:
		return uint64(b & 0x3F), false, nil
	case 1:
		b2, err := in.byte()
		if err != nil {
			return 0, false, err
		}
		return uint64(b&0x3F)<<8 | uint64(b2), false, nil
	case 3:
		return uint64(b & 0x3F), true, nil
	}
	switch b {
	case 0x80:
		p, err := in.take(4)
		if err != nil {
			return 0, false, err
		}
		return uint64(binary.BigEndian.Uint32(p)), false, nil
	case 0x81:
		p, err := in.take(8)
		if err != nil {
			return 0, false, err
		}
		return binary.BigEndian.Uint64(p), false, nil
	}
	return 0, false, fmt.Errorf("%w: length byte 0x%02x", ErrCorrupt, b)
}

// readLen reads a plain length (no special encoding allowed).
func (in *input) readLen() (uint64, error) {
	n, special, err := in.lenOrSpecial()
	if err != nil {
		return 0, err
	}
	if special {
		return 0, fmt.Errorf("%w: special string encoding 0x%02x where a length is expected", ErrCorrupt, 0xC0|n)
	}
	return n, nil
}

// plainHeader reads a string prefix; t allows format 2's T encoding 0xC5.
func (in *input) plainHeader(t bool) (strHead, error) {
	n, special, err := in.lenOrSpecial()
	if err != nil {
		return strHead{}, err
	}
	if !special {
		return strHead{enc: EncRaw, size: n, ulen: n}, nil
	}
	switch n {
	case encInt8, encInt16, encInt32:
		size := uint64(1) << n
		return strHead{enc: EncInt, size: size}, nil
	case encLZF:
		clen, err := in.readLen()
		if err != nil {
			return strHead{}, err
		}
		ulen, err := in.readLen()
		if err != nil {
			return strHead{}, err
		}
		if clen == 0 {
			return strHead{}, fmt.Errorf("%w: LZF string with 0 compressed bytes", ErrCorrupt)
		}
		if !lzf.CanDecode(clen, ulen) {
			return strHead{}, fmt.Errorf("%w: LZF string of %d bytes cannot decode to the %d it claims", ErrCorrupt, clen, ulen)
		}
		return strHead{enc: EncLZF, size: clen, ulen: ulen}, nil
	case EncodingZstd:
		flags, err := in.byte()
		if err != nil {
			return strHead{}, err
		}
		clen, err := in.readLen()
		if err != nil {
			return strHead{}, err
		}
		ulen, err := in.readLen()
		if err != nil {
			return strHead{}, err
		}
		return strHead{enc: EncZstd, size: clen, ulen: ulen, flags: flags}, nil
	case EncodingT:
		if t {
			return in.tHeader()
		}
	}
	return strHead{}, fmt.Errorf("%w: unknown string encoding 0x%02x", ErrCorrupt, 0xC0|n)
}

// tHeader reads the rest of a 0xC5 prefix: flags (0) and the decoded
// length (≥ 1); the caller checks it against the cap before reading.
func (in *input) tHeader() (strHead, error) {
	at := in.offset() - 1
	flags, err := in.byte()
	if err != nil {
		return strHead{}, err
	}
	if flags != 0 {
		return strHead{}, fmt.Errorf("%w: 0xC5 string at offset %d with flags 0x%02x (none is defined)", ErrCorrupt, at, flags)
	}
	n, err := in.readLen()
	if err != nil {
		return strHead{}, err
	}
	if n == 0 {
		return strHead{}, fmt.Errorf("%w: 0xC5 string at offset %d of 0 bytes", ErrCorrupt, at)
	}
	return strHead{enc: EncT, size: n, ulen: n}, nil
}

// intDigits takes the payload of the integer-encoded string whose prefix
// h was read and appends its decimal digits to dst[:0].
func (in *input) intDigits(dst []byte, h strHead) ([]byte, error) {
	p, err := in.take(int(h.size))
	if err != nil {
		return nil, err
	}
	return strconv.AppendInt(dst[:0], IntValue(p), 10), nil
}

// readString reads and decodes a whole string: raw, integer (its digits,
// isInt set) or LZF, of at most limit bytes stored and decoded
// (ErrTooLarge). LZF data is gathered in *scratch. rdbz's 0xC4 is
// ErrCorrupt: it is not a string a server reads.
func (in *input) readString(dst []byte, limit int, scratch *[]byte) (str []byte, isInt bool, err error) {
	h, err := in.plainHeader(false)
	if err != nil {
		return nil, false, err
	}
	return in.readPayload(h, dst, limit, scratch)
}

// readPayload is readString once the prefix h was read.
func (in *input) readPayload(h strHead, dst []byte, limit int, scratch *[]byte) (str []byte, isInt bool, err error) {
	if h.done {
		if len(h.data) > limit {
			return nil, false, fmt.Errorf("%w: %d bytes (cap %d)", ErrTooLarge, len(h.data), limit)
		}
		return append(dst[:0], h.data...), false, nil
	}
	switch h.enc {
	case EncInt:
		str, err := in.intDigits(dst, h)
		return str, true, err
	case EncLZF:
		if h.ulen > uint64(limit) || h.size > uint64(limit) {
			return nil, false, fmt.Errorf("%w: LZF string of %d bytes (cap %d)", ErrTooLarge, h.ulen, limit)
		}
		c, err := in.appendN((*scratch)[:0], h.size)
		*scratch = c
		if err != nil {
			return nil, false, err
		}
		out, err := lzf.Decode(dst[:0], c, int(h.ulen))
		if err != nil {
			return nil, false, fmt.Errorf("%w: LZF data does not decode to %d bytes", ErrCorrupt, h.ulen)
		}
		return out, false, nil
	case EncZstd:
		return nil, false, fmt.Errorf("%w: zstd string (0xC4) outside a list node", ErrCorrupt)
	}
	if h.size > uint64(limit) {
		return nil, false, fmt.Errorf("%w: %d bytes (cap %d)", ErrTooLarge, h.size, limit)
	}
	str, err = in.appendN(dst[:0], h.size)
	return str, false, err
}

// readLen reads a plain length.
func (r *Reader) readLen() (uint64, error) { return r.in.readLen() }

// strHeader reads a string prefix (of a string the grammar does not walk
// past: it reads the payload, or holds the string) and notes its decoded
// length.
func (r *Reader) strHeader() (strHead, error) { return r.notedHeader(false) }

// notedHeader reads a string prefix, showing the string to the
// StringHook (skip: the grammar walks past it), and notes its decoded
// length.
func (r *Reader) notedHeader(skip bool) (strHead, error) {
	h, err := r.hooked(skip)
	if err == nil && h.enc != EncInt {
		r.noteLen(h.ulen)
	}
	return h, err
}

// noteLen keeps the largest decoded length of a string in the value being
// walked (ValueInfo.MaxStringLen).
func (r *Reader) noteLen(n uint64) {
	r.val.maxLen = max(r.val.maxLen, n)
}

// valueStrHeader reads the prefix of a string inside a value that is not a
// list node: rdbz's 0xC4 encoding is not allowed there.
func (r *Reader) valueStrHeader() (strHead, error) { return valueOnly(r.strHeader()) }

// valueOnly refuses rdbz's 0xC4 encoding outside a list node.
func valueOnly(h strHead, err error) (strHead, error) {
	if err == nil && h.enc == EncZstd {
		err = fmt.Errorf("%w: zstd string (0xC4) outside a list node", ErrCorrupt)
	}
	return h, err
}

// skipString consumes a string of a value that is not a list node.
func (r *Reader) skipString() error {
	if r.skipInWindow() {
		return nil
	}
	h, err := valueOnly(r.notedHeader(true))
	if err != nil {
		return err
	}
	return r.in.skip(h.size)
}

// skipNodeString consumes a list node string (rdbz's 0xC4 allowed).
func (r *Reader) skipNodeString() error {
	h, err := r.notedHeader(true)
	if err != nil {
		return err
	}
	return r.in.skip(h.size)
}

// shortRaw reports a raw string of under 16 KiB (a length prefix of one
// or two bytes) that lies whole in the window and that no hook wants
// (skip: as StringHook.Wants): the prefix's and the string's lengths.
// Most strings of a dump are such; reading them without the general
// path's calls (a byte at a time, each checked) took info of a 166 MB dump
// (app-cache at scale 4) from 249 to 176 ms, and skipInWindow's LZF
// strings and integers from 176 to 129.
func (r *Reader) shortRaw(skip bool) (hl, n int, ok bool) {
	in := r.in
	p := in.buf[in.pos:in.end]
	n, hl, ok = shortLen(p)
	if !ok || hl+n > len(p) || (r.hook != nil && r.hook.Wants(p[0], skip)) {
		return 0, 0, false
	}
	return hl, n, true
}

// skipInWindow consumes a string of a value that lies whole in the window
// with a prefix of at most five bytes — raw or LZF with lengths under
// 16 KiB, or an integer — and that no hook wants, and reports true; else
// it consumes nothing. It checks what the general path checks.
func (r *Reader) skipInWindow() bool {
	if hl, n, ok := r.shortRaw(true); ok {
		r.in.pos += hl + n
		r.noteLen(uint64(n))
		return true
	}
	in := r.in
	p := in.buf[in.pos:in.end]
	if len(p) < 5 || p[0]>>6 != 3 || (r.hook != nil && r.hook.Wants(p[0], true)) {
		return false
	}
	switch p[0] & 0x3F {
	case encInt8, encInt16, encInt32:
		n := 1 + 1<<(p[0]&0x3F)
		if n > len(p) {
			return false
		}
		in.pos += n
		return true
	case encLZF:
		clen, a, ok := shortLen(p[1:])
		if !ok {
			return false
		}
		ulen, b, ok := shortLen(p[1+a:])
		hl := 1 + a + b
		if !ok || clen == 0 || hl+clen > len(p) || !lzf.CanDecode(uint64(clen), uint64(ulen)) {
			return false
		}
		in.pos += hl + clen
		r.noteLen(uint64(ulen))
		return true
	}
	return false
}

// shortLen decodes a length of one or two bytes at the start of p.
func shortLen(p []byte) (n, size int, ok bool) {
	switch {
	case len(p) >= 1 && p[0]>>6 == 0:
		return int(p[0] & 0x3F), 1, true
	case len(p) >= 2 && p[0]>>6 == 1:
		return int(p[0]&0x3F)<<8 | int(p[1]), 2, true
	}
	return 0, 0, false
}

// readString reads and decodes a string that rdbio must hold (a key, an
// AUX field, a function): raw, integer or LZF, up to the cap.
func (r *Reader) readString(dst []byte) ([]byte, error) {
	if hl, n, ok := r.shortRaw(false); ok && n <= r.opt.Cap {
		in := r.in
		dst = append(dst[:0], in.buf[in.pos+hl:in.pos+hl+n]...)
		in.pos += hl + n
		return dst, nil
	}
	h, err := r.hooked(false)
	if err != nil {
		return nil, err
	}
	s, _, err := r.in.readPayload(h, dst, r.opt.Cap, &r.bufs.scratch)
	return s, err
}

// IntValue decodes the payload of an integer-encoded string (EncInt): a
// 1, 2 or 4 byte little-endian signed integer. A payload of another length
// (one cut short) is 0: the caller must have taken the whole payload.
func IntValue(p []byte) int64 {
	switch len(p) {
	case 1:
		return int64(int8(p[0]))
	case 2:
		return int64(int16(binary.LittleEndian.Uint16(p)))
	case 4:
		return int64(int32(binary.LittleEndian.Uint32(p)))
	}
	return 0
}
