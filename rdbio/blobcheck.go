package rdbio

import (
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"slices"
	"strconv"
)

// Integrity checks of the blobs Redis stores values in, as a server makes
// them while loading (redis src/ziplist.c ziplistValidateIntegrity,
// listpack.c lpValidateIntegrity, intset.c intsetValidateIntegrity,
// zipmap.c zipmapValidateIntegrity, and the conversions of rdb.c that look
// for duplicate fields). A shallow check reads the header and the end
// byte; a deep one walks every entry. Which depth a server uses for which
// blob depends on its version and its sanitize-dump-payload setting: that
// is the caller's decision.

// CheckBlob checks the decoded blob b of the given kind. per is how many
// entries make one element: 2 for field/value pairs (hashes, sorted sets),
// 3 for hashes with field expiry; with deep set, such a blob must hold a
// multiple of per entries and no field twice. A zipmap is always checked
// for duplicate fields when deep. The error wraps ErrCorrupt and says
// what is wrong, with the offset in the blob.
func CheckBlob(kind Blob, b []byte, deep bool, per int) error {
	var err error
	switch kind {
	case BlobZiplist:
		err = checkZiplist(b, deep, per)
	case BlobListpack:
		err = checkListpack(b, deep, per)
	case BlobIntset:
		err = checkIntset(b, deep)
	case BlobZipmap:
		err = checkZipmap(b, deep)
	}
	if err != nil {
		return fmt.Errorf("%w: %s: %v", ErrCorrupt, kind, err)
	}
	return nil
}

func (k Blob) String() string {
	switch k {
	case BlobZiplist:
		return "ziplist"
	case BlobListpack:
		return "listpack"
	case BlobIntset:
		return "intset"
	case BlobZipmap:
		return "zipmap"
	}
	return "blob(" + strconv.Itoa(int(k)) + ")"
}

// blobError is a failed check at an offset of the blob.
type blobError struct {
	off  int
	what string
}

func (e *blobError) Error() string { return e.what + " (blob offset " + strconv.Itoa(e.off) + ")" }

func fault(off int, format string, args ...any) error {
	return &blobError{off: off, what: fmt.Sprintf(format, args...)}
}

// fieldSet finds a field name that comes twice among the elements of one
// blob. It keeps a 64-bit hash per field (8 bytes, for fields of at least
// 2 bytes of blob: at most 4 times the blob's size) and sorts them at the
// end; two different fields are taken for one with a probability of about
// n²/2^65 for n fields, on the side of "refuses".
type fieldSet struct {
	per, n int
	hashes []uint64
}

var fieldSeed = maphash.MakeSeed()

// add takes the next entry.
func (s *fieldSet) add(entry []byte) {
	if s.per >= 2 && s.n%s.per == 0 {
		s.hashes = append(s.hashes, maphash.Bytes(fieldSeed, entry))
	}
	s.n++
}

// twice reports whether a field came twice.
func (s *fieldSet) twice() bool {
	slices.Sort(s.hashes)
	for i := 1; i < len(s.hashes); i++ {
		if s.hashes[i] == s.hashes[i-1] {
			return true
		}
	}
	return false
}

// whole reports whether the entries make whole elements.
func (s *fieldSet) whole() bool { return s.per < 2 || s.n%s.per == 0 }

// checkIntset: encoding 2, 4 or 8; the size is the header and count
// members; not empty; deep: members strictly increasing.
func checkIntset(b []byte, deep bool) error {
	if len(b) < 8 {
		return fault(0, "%d bytes, shorter than the header", len(b))
	}
	enc := binary.LittleEndian.Uint32(b)
	if enc != 2 && enc != 4 && enc != 8 {
		return fault(0, "encoding %d", enc)
	}
	count := uint64(binary.LittleEndian.Uint32(b[4:]))
	if 8+count*uint64(enc) != uint64(len(b)) {
		return fault(4, "%d members of %d bytes in %d bytes", count, enc, len(b))
	}
	if count == 0 {
		return fault(4, "empty")
	}
	if !deep {
		return nil
	}
	prev := intsetAt(b, enc, 0)
	for i := uint64(1); i < count; i++ {
		cur := intsetAt(b, enc, i)
		if cur <= prev {
			return fault(8+int(i*uint64(enc)), "members out of order")
		}
		prev = cur
	}
	return nil
}

func intsetAt(b []byte, enc uint32, i uint64) int64 {
	p := b[8+i*uint64(enc):]
	switch enc {
	case 2:
		return int64(int16(binary.LittleEndian.Uint16(p)))
	case 4:
		return int64(int32(binary.LittleEndian.Uint32(p)))
	}
	return int64(binary.LittleEndian.Uint64(p))
}

// checkListpack: the size in the header is the blob's, the last byte
// 0xFF; deep: every entry within the blob, the count in the header right,
// whole elements without a field twice.
func checkListpack(b []byte, deep bool, per int) error {
	if len(b) < 7 {
		return fault(0, "%d bytes, shorter than the header", len(b))
	}
	if n := binary.LittleEndian.Uint32(b); uint64(n) != uint64(len(b)) {
		return fault(0, "header says %d bytes, blob has %d", n, len(b))
	}
	if b[len(b)-1] != 0xFF {
		return fault(len(b)-1, "no end byte")
	}
	if !deep {
		return nil
	}
	fs := fieldSet{per: per}
	var buf [24]byte
	ok := eachListpackEntry(b, func(e lpEntry) bool {
		s := e.str
		if e.isInt {
			s = strconv.AppendInt(buf[:0], e.v, 10)
		}
		fs.add(s)
		return true
	})
	switch {
	case !ok:
		return fault(0, "entries run past the blob")
	case !fs.whole():
		return fault(0, "%d entries, not a multiple of %d", fs.n, per)
	case fs.twice():
		return fault(0, "a field appears twice")
	}
	if h := binary.LittleEndian.Uint16(b[4:]); h != countUnknown16 && int(h) != fs.n {
		return fault(4, "header count %d, %d entries", h, fs.n)
	}
	return nil
}

// checkZiplist: header size, end byte and tail offset; deep: each entry
// within the blob with a valid encoding and a previous-length field equal
// to the previous entry's size, the tail offset at the last entry, the
// header count right, whole elements without a field twice.
func checkZiplist(b []byte, deep bool, per int) error {
	size := len(b)
	if size < 11 {
		return fault(0, "%d bytes, shorter than the header", size)
	}
	if n := binary.LittleEndian.Uint32(b); uint64(n) != uint64(size) {
		return fault(0, "header says %d bytes, blob has %d", n, size)
	}
	if b[size-1] != 0xFF {
		return fault(size-1, "no end byte")
	}
	tail := binary.LittleEndian.Uint32(b[4:])
	if uint64(tail) > uint64(size-1) {
		return fault(4, "tail offset %d past the end", tail)
	}
	if !deep {
		return nil
	}
	fs := fieldSet{per: per}
	p, prev, prevSize := 10, -1, uint64(0)
	var buf [24]byte
	for b[p] != 0xFF {
		e, err := ziplistEntryAt(b, p)
		if err != nil {
			return err
		}
		if e.prevlen != prevSize {
			return fault(p, "previous-entry length %d, previous entry %d bytes", e.prevlen, prevSize)
		}
		fs.add(e.value(b, buf[:0]))
		prev, prevSize = p, e.size
		p += int(e.size)
	}
	switch {
	case p != size-1:
		return fault(p, "end byte before the end")
	case prev >= 0 && uint32(prev) != tail:
		return fault(4, "tail offset %d, last entry at %d", tail, prev)
	case !fs.whole():
		return fault(p, "%d entries, not a multiple of %d", fs.n, per)
	case fs.twice():
		return fault(10, "a field appears twice")
	}
	if h := binary.LittleEndian.Uint16(b[8:]); h != countUnknown16 && int(h) != fs.n {
		return fault(8, "header count %d, %d entries", h, fs.n)
	}
	return nil
}

// zlEntry is a ziplist entry: where it starts, its previous-entry length,
// where its encoding byte is, its header and data sizes.
type zlEntry struct {
	at        int // the entry's first byte
	prevlen   uint64
	encAt     int
	head, len uint64
	size      uint64 // head + len
}

// ziplistEntryAt decodes the entry at p, which must lie within the blob
// (its last byte being the end byte) and point back no further than the
// first entry.
func ziplistEntryAt(b []byte, p int) (zlEntry, error) {
	last := len(b) - 1
	pls := 1
	if b[p] >= 254 {
		pls = 5
	}
	if p+pls > last {
		return zlEntry{}, fault(p, "entry header past the end")
	}
	e := zlEntry{at: p, prevlen: uint64(b[p]), encAt: p + pls}
	if pls == 5 {
		e.prevlen = uint64(binary.LittleEndian.Uint32(b[p+1:]))
	}
	c := b[e.encAt]
	lensize, n := zlEncoding(c)
	if lensize == 0 {
		return zlEntry{}, fault(e.encAt, "encoding byte 0x%02x", c)
	}
	if e.encAt+lensize > last {
		return zlEntry{}, fault(p, "entry header past the end")
	}
	switch c >> 6 {
	case 0:
		n = uint64(c & 0x3F)
	case 1:
		n = uint64(c&0x3F)<<8 | uint64(b[e.encAt+1])
	case 2:
		n = uint64(binary.BigEndian.Uint32(b[e.encAt+1:]))
	}
	e.head, e.len = uint64(pls+lensize), n
	e.size = e.head + e.len
	if uint64(p)+e.size > uint64(last) {
		return zlEntry{}, fault(p, "entry of %d bytes past the end", e.size)
	}
	if e.prevlen > uint64(p-10) {
		return zlEntry{}, fault(p, "previous-entry length %d before the first entry", e.prevlen)
	}
	return e, nil
}

// zlEncoding gives the size of the encoding field that starts with byte c
// (0: not an encoding) and, for integers, the size of their data.
func zlEncoding(c byte) (int, uint64) {
	switch {
	case c>>6 == 0:
		return 1, 0
	case c>>6 == 1:
		return 2, 0
	case c>>6 == 2: // the server reads 0x81..0xBF as 0x80
		return 5, 0
	case c == 0xC0:
		return 1, 2
	case c == 0xD0:
		return 1, 4
	case c == 0xE0:
		return 1, 8
	case c == 0xF0:
		return 1, 3
	case c == 0xFE:
		return 1, 1
	case c >= 0xF1 && c <= 0xFD:
		return 1, 0
	}
	return 0, 0
}

// value is the entry as a field name: its bytes, or an integer's digits.
func (e zlEntry) value(b, buf []byte) []byte {
	c, d := b[e.encAt], b[e.at+int(e.head):e.at+int(e.size)]
	if c < 0xC0 {
		return d
	}
	var v int64
	switch c {
	case 0xC0:
		v = int64(int16(binary.LittleEndian.Uint16(d)))
	case 0xD0:
		v = int64(int32(binary.LittleEndian.Uint32(d)))
	case 0xE0:
		v = int64(binary.LittleEndian.Uint64(d))
	case 0xF0:
		v = int64(int32(uint32(d[0])<<8|uint32(d[1])<<16|uint32(d[2])<<24)) >> 8
	case 0xFE:
		v = int64(int8(d[0]))
	default:
		v = int64(c&0x0F) - 1
	}
	return strconv.AppendInt(buf, v, 10)
}

// checkZipmap: at least 2 bytes ending with 0xFF; deep: every field and
// value within the blob, at least one pair, the count in the first byte
// right (unless 254), no field twice.
func checkZipmap(b []byte, deep bool) error {
	size := len(b)
	if size < 2 {
		return fault(0, "%d bytes, shorter than the header", size)
	}
	if b[size-1] != 0xFF {
		return fault(size-1, "no end byte")
	}
	if !deep {
		return nil
	}
	out := func(p uint64) bool { return p < 2 || p > uint64(size-1) }
	fs := fieldSet{per: 2}
	p, count := uint64(1), 0
	for b[p] != 0xFF {
		start := p
		l, s := zipmapLen(b, p)
		if out(p + s) {
			return fault(int(start), "field length past the end")
		}
		p += s
		field := p
		p += uint64(l)
		if out(p) {
			return fault(int(start), "field of %d bytes past the end", l)
		}
		fs.add(b[field:p])
		l, s = zipmapLen(b, p)
		if out(p + s) {
			return fault(int(start), "value length past the end")
		}
		p += s
		free := uint32(b[p])
		p++
		p += uint64(l + free) // 32-bit, as the server adds them
		count++
		if out(p) {
			return fault(int(start), "value of %d bytes past the end", l)
		}
		fs.n++ // the value
	}
	if count == 0 {
		return fault(1, "no pair")
	}
	if fs.twice() {
		return fault(1, "a field appears twice")
	}
	if b[0] != 254 && int(b[0]) != count {
		return fault(0, "header count %d, %d pairs", b[0], count)
	}
	return nil
}

// zipmapLen reads the length at p: one byte below 254, else the u32 that
// follows (the server reads it so for 255 too), and the size of the field.
func zipmapLen(b []byte, p uint64) (uint32, uint64) {
	if b[p] < 254 {
		return uint32(b[p]), 1
	}
	if p+5 > uint64(len(b)) {
		return 0, 5 // the caller finds p+5 out of range
	}
	return binary.LittleEndian.Uint32(b[p+1:]), 5
}
