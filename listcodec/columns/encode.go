package columns

import "encoding/binary"

// The tape's ops. Each is one byte followed by its operands, uvarints:
// r is a role (1 ≤ r < MaxRoles), n and k counts. data[r], lens[r] and
// nums[r] are the role's streams; "next length" is the next uvarint of
// lens[r], "next number" the next uvarint of nums[r]. An RDB length is
// written in its shortest form (rdbLen).
const (
	opSkel  = 1 // n: the next n bytes of the skeleton
	opStr   = 2 // r: a string: its RDB length, then that many bytes of data[r] (the length: next length)
	opStrT  = 3 // r: a decoded LZF string: 0xC5, 0x00, then as opStr (FORMAT.md §3)
	opInt   = 4 // r: an integer string (0xC0/0xC1/0xC2 and 1, 2 or 4 bytes, the smallest), its value the next number unzigzagged
	opBytes = 5 // r: next length bytes of data[r], nothing before them
	opF64   = 6 // r: 8 bytes of a double (f64 below)
	opLP    = 7 // k: a listpack of k entries (entry ops follow), stored as opStr stores a string
	opLPT   = 8 // k: the same, stored as opStrT stores one
	opZL    = 9 // k: a ziplist of k entries
	opZLT   = 10
	opIS    = 11 // r k: an intset of k members: the first the next number unzigzagged, each next one the previous plus next number plus 1
	opIST   = 12
	opEStr  = 13 // r: (blob entry) a string entry of next length bytes of data[r]
	opEInt  = 14 // r: (blob entry) an integer entry, the next number unzigzagged
	opLast  = opEInt
)

var opNames = [...]string{"", "skel", "str", "strT", "int", "bytes", "f64", "listpack", "listpackT",
	"ziplist", "ziplistT", "intset", "intsetT", "entry-str", "entry-int"}

func opName(op byte) string {
	if int(op) < len(opNames) && op != 0 {
		return opNames[op]
	}
	return "op?"
}

// f64: a double in nums[r] as u = zigzag(v)·2 when it is the integer v
// exactly (|v| < 2^53, not −0), else u = 1 and its 8 bytes, little-endian,
// are the next string of the role (a length of 8 in lens[r], 8 bytes of
// data[r]): every byte of a role's data belongs to a string its lens
// delimit.

func zigzag(v int64) uint64   { return uint64(v<<1) ^ uint64(v>>63) }
func unzigzag(u uint64) int64 { return int64(u>>1) ^ -int64(u&1) }

// rdbLenSize is the size of the shortest RDB length for n (FORMAT.md §5).
func rdbLenSize(n uint64) int {
	switch {
	case n < 1<<6:
		return 1
	case n < 1<<14:
		return 2
	case n <= 0xFFFFFFFF:
		return 5
	}
	return 9
}

// putRDBLen writes the shortest RDB length for n at b[0:] and returns its size.
func putRDBLen(b []byte, n uint64) int {
	switch {
	case n < 1<<6:
		b[0] = byte(n)
		return 1
	case n < 1<<14:
		b[0], b[1] = 0x40|byte(n>>8), byte(n)
		return 2
	case n <= 0xFFFFFFFF:
		b[0] = 0x80
		binary.BigEndian.PutUint32(b[1:], uint32(n))
		return 5
	}
	b[0] = 0x81
	binary.BigEndian.PutUint64(b[1:], n)
	return 9
}

// rdbIntWidth is the payload size of the shortest integer string for v
// (Redis's rdbEncodeInteger), 0 when v does not fit in 32 bits.
func rdbIntWidth(v int64) int {
	switch {
	case v >= -1<<7 && v < 1<<7:
		return 1
	case v >= -1<<15 && v < 1<<15:
		return 2
	case v >= -1<<31 && v < 1<<31:
		return 4
	}
	return 0
}

// putRDBInt writes the integer string of v (w = rdbIntWidth(v) > 0) and
// returns its size.
func putRDBInt(b []byte, v int64, w int) int {
	b[0] = 0xC0 | byte(w>>1) // 1 → 0xC0, 2 → 0xC1, 4 → 0xC2
	putLE(b[1:], uint64(v), w)
	return 1 + w
}

func putLE(b []byte, u uint64, n int) {
	for i := 0; i < n; i++ {
		b[i] = byte(u >> (8 * i))
	}
}

// Listpack entries, as listpack.c writes them (lpEncodeString,
// lpEncodeIntegerGetType, lpEncodeBacklen).

// lpIntSize is the size of an integer entry's encoding and data.
func lpIntSize(v int64) int {
	switch {
	case v >= 0 && v <= 127:
		return 1
	case v >= -4096 && v <= 4095:
		return 2
	case v >= -1<<15 && v < 1<<15:
		return 3
	case v >= -1<<23 && v < 1<<23:
		return 4
	case v >= -1<<31 && v < 1<<31:
		return 5
	}
	return 9
}

// putLPInt writes an integer entry's encoding and data (size lpIntSize(v)).
func putLPInt(b []byte, v int64, size int) {
	switch size {
	case 1:
		b[0] = byte(v)
	case 2:
		u := uint64(v) & 0x1FFF
		b[0], b[1] = 0xC0|byte(u>>8), byte(u)
	default:
		b[0] = [...]byte{3: 0xF1, 4: 0xF2, 5: 0xF3, 9: 0xF4}[size]
		putLE(b[1:], uint64(v), size-1)
	}
}

// lpStrHeadSize is the size of a string entry's encoding for n bytes.
func lpStrHeadSize(n int) int {
	switch {
	case n < 64:
		return 1
	case n < 4096:
		return 2
	}
	return 5
}

func putLPStrHead(b []byte, n int, size int) {
	switch size {
	case 1:
		b[0] = 0x80 | byte(n)
	case 2:
		b[0], b[1] = 0xE0|byte(n>>8), byte(n)
	default:
		b[0] = 0xF0
		binary.LittleEndian.PutUint32(b[1:], uint32(n))
	}
}

// backlenSize is the size of the back-length of an entry of l bytes.
func backlenSize(l int) int {
	switch {
	case l <= 127:
		return 1
	case l < 16383:
		return 2
	case l < 2097151:
		return 3
	case l < 268435455:
		return 4
	}
	return 5
}

// putBacklen writes the back-length of an entry of l bytes (size
// backlenSize(l)): 7 bits a byte, most significant first, every byte but
// the first with bit 7 set (it is read backwards from the last).
func putBacklen(b []byte, l int, size int) {
	for i := 0; i < size; i++ {
		c := byte(l>>(7*(size-1-i))) & 0x7F
		if i != 0 {
			c |= 0x80
		}
		b[i] = c
	}
}

// Ziplist entries, as ziplist.c writes them when pushing at the tail.

// zlIntEnc is the encoding byte of the integer v and its data size.
func zlIntEnc(v int64) (byte, int) {
	switch {
	case v >= 0 && v <= 12:
		return 0xF1 + byte(v), 0
	case v >= -1<<7 && v < 1<<7:
		return 0xFE, 1
	case v >= -1<<15 && v < 1<<15:
		return 0xC0, 2
	case v >= -1<<23 && v < 1<<23:
		return 0xF0, 3
	case v >= -1<<31 && v < 1<<31:
		return 0xD0, 4
	}
	return 0xE0, 8
}

func zlStrHeadSize(n int) int {
	switch {
	case n <= 0x3F:
		return 1
	case n <= 0x3FFF:
		return 2
	}
	return 5
}

func putZLStrHead(b []byte, n int, size int) {
	switch size {
	case 1:
		b[0] = byte(n)
	case 2:
		b[0], b[1] = 0x40|byte(n>>8), byte(n)
	default:
		b[0] = 0x80
		binary.BigEndian.PutUint32(b[1:], uint32(n))
	}
}

// zlPrevSize is the size of the previous-entry length field for l.
func zlPrevSize(l int) int {
	if l < 254 {
		return 1
	}
	return 5
}

func putZLPrev(b []byte, l int, size int) {
	if size == 1 {
		b[0] = byte(l)
		return
	}
	b[0] = 0xFE
	binary.LittleEndian.PutUint32(b[1:], uint32(l))
}

// intsetWidth is the member width of an intset holding lo..hi (intset.c's
// _intsetValueEncoding of both ends).
func intsetWidth(lo, hi int64) int {
	w := 2
	for _, v := range [2]int64{lo, hi} {
		switch {
		case v < -1<<31 || v >= 1<<31:
			w = 8
		case (v < -1<<15 || v >= 1<<15) && w < 4:
			w = 4
		}
	}
	return w
}
