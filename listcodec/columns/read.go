package columns

import "encoding/binary"

// rd reads the RDB grammar over one record held whole. It never fails
// loudly: a read past the end, or a byte that is not what the grammar
// allows there, sets bad, after which every read gives zero values and
// the Splitter stores the record as it is.
type rd struct {
	b   []byte
	p   int
	bad bool
}

func (r *rd) left() int { return len(r.b) - r.p }

func (r *rd) byte() byte {
	if r.bad || r.p >= len(r.b) {
		r.bad = true
		return 0
	}
	c := r.b[r.p]
	r.p++
	return c
}

// take consumes n bytes.
func (r *rd) take(n uint64) []byte {
	if r.bad || n > uint64(r.left()) {
		r.bad = true
		return nil
	}
	b := r.b[r.p : r.p+int(n)]
	r.p += int(n)
	return b
}

// rdbLen reads a plain RDB length (FORMAT.md §5).
func (r *rd) rdbLen() uint64 {
	c := r.byte()
	switch c >> 6 {
	case 0:
		return uint64(c)
	case 1:
		return uint64(c&0x3F)<<8 | uint64(r.byte())
	case 2:
		switch c {
		case 0x80:
			if p := r.take(4); p != nil {
				return uint64(binary.BigEndian.Uint32(p))
			}
		case 0x81:
			if p := r.take(8); p != nil {
				return binary.BigEndian.Uint64(p)
			}
		}
	}
	r.bad = true
	return 0
}

// count reads a length that counts elements of at least min bytes each:
// more than the bytes left could hold is bad.
func (r *rd) count(min int) int {
	n := r.rdbLen()
	if r.bad || n > uint64(r.left()/min) {
		r.bad = true
		return 0
	}
	return int(n)
}

// String encodings a Splitter tells apart.
const (
	sRaw  = iota // a length and the bytes
	sT           // 0xC5: a decoded LZF string (FORMAT.md §3)
	sInt         // 0xC0..0xC2: an integer
	sKept        // 0xC3 (an LZF string T kept) or 0xC4: the payload as stored
)

// rstr is an RDB string of the record: head is its prefix (for sInt the
// whole string), data its payload; canon says the prefix is the one Join
// writes for it.
type rstr struct {
	enc   int
	canon bool
	head  []byte
	data  []byte
	v     int64
}

// str reads an RDB string.
func (r *rd) str() rstr {
	start := r.p
	c := r.byte()
	if r.bad {
		return rstr{}
	}
	if c>>6 != 3 {
		r.p--
		n := r.rdbLen()
		head := r.b[start:r.p]
		data := r.take(n)
		return rstr{enc: sRaw, canon: len(head) == rdbLenSize(n), head: head, data: data}
	}
	switch c & 0x3F {
	case 0, 1, 2:
		w := 1 << (c & 3)
		d := r.take(uint64(w))
		if r.bad {
			return rstr{}
		}
		v := leSigned(d)
		return rstr{enc: sInt, canon: rdbIntWidth(v) == w, head: r.b[start:r.p], v: v}
	case 3: // LZF kept in T: 0xC3 clen ulen data
		clen := r.rdbLen()
		r.rdbLen()
		head := r.b[start:r.p]
		return rstr{enc: sKept, head: head, data: r.take(clen)}
	case 4: // rdbz format 1's 0xC4: flags clen ulen frame
		r.byte()
		clen := r.rdbLen()
		r.rdbLen()
		head := r.b[start:r.p]
		return rstr{enc: sKept, head: head, data: r.take(clen)}
	case 5: // 0xC5 flags ulen bytes
		flags := r.byte()
		n := r.rdbLen()
		head := r.b[start:r.p]
		data := r.take(n)
		return rstr{enc: sT, canon: flags == 0 && len(head) == 2+rdbLenSize(n), head: head, data: data}
	}
	r.bad = true
	return rstr{}
}
