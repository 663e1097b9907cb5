package rdbiotest

import (
	"encoding/binary"

	"github.com/rdbz/rdbz/rdbio/crc64"
)

// Builders of the blobs Redis stores small values in, for tests that need
// well-formed ones to start from or damage (layouts: the files of
// rdbio/blob).

// ZiplistOf builds a ziplist of short strings (< 64 bytes, ZIP_STR_06B).
func ZiplistOf(entries ...string) []byte {
	enc := make([][]byte, len(entries))
	for i, e := range entries {
		enc[i] = append([]byte{byte(len(e))}, e...)
	}
	return ZiplistOfEntries(enc...)
}

// ZiplistOfEntries builds a ziplist of entries given as their encoding
// and data (e.g. {0xF6} for the immediate integer 5), each under 254
// bytes.
func ZiplistOfEntries(entries ...[]byte) []byte {
	b := make([]byte, 10)
	prev, tail := 0, 10
	for _, e := range entries {
		tail = len(b)
		b = append(b, byte(prev))
		b = append(b, e...)
		prev = 1 + len(e)
	}
	b = append(b, 0xFF)
	binary.LittleEndian.PutUint32(b, uint32(len(b)))
	binary.LittleEndian.PutUint32(b[4:], uint32(tail))
	binary.LittleEndian.PutUint16(b[8:], uint16(len(entries)))
	return b
}

// ListpackOf builds a listpack of short strings (6-bit length).
func ListpackOf(entries ...string) []byte {
	b := make([]byte, 6)
	for _, e := range entries {
		b = append(b, 0x80|byte(len(e)))
		b = append(b, e...)
		b = append(b, byte(1+len(e)))
	}
	b = append(b, 0xFF)
	binary.LittleEndian.PutUint32(b, uint32(len(b)))
	binary.LittleEndian.PutUint16(b[4:], uint16(len(entries)))
	return b
}

func IntsetOf(vs ...int16) []byte {
	b := binary.LittleEndian.AppendUint32(nil, 2)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(vs)))
	for _, v := range vs {
		b = binary.LittleEndian.AppendUint16(b, uint16(v))
	}
	return b
}

// ZipmapOf builds a zipmap of field/value pairs (no free bytes).
func ZipmapOf(kv ...string) []byte {
	b := []byte{byte(len(kv) / 2)}
	for i, s := range kv {
		b = append(b, byte(len(s)))
		if i%2 == 1 {
			b = append(b, 0) // free
		}
		b = append(b, s...)
	}
	return append(b, 0xFF)
}

// OddZiplistEntries are the strings OddZiplist holds.
var OddZiplistEntries = []string{"abc", "hello", "x"}

// OddZiplist is a ziplist that redis reads but does not write: its header
// count is 65535 ("unknown": the servers count by walking), "abc" has the
// encoding byte 0x81 (below 0xC0 only the top two bits count: a 32-bit
// length, as 0x80), "hello" a 14-bit length (0x40|len, where 0x05 alone
// would do), "x" the encoding byte 0xBF (a 32-bit length again).
func OddZiplist() []byte {
	zl := ZiplistOfEntries(
		[]byte{0x81, 0, 0, 0, 3, 'a', 'b', 'c'},
		[]byte{0x40, 5, 'h', 'e', 'l', 'l', 'o'},
		[]byte{0xBF, 0, 0, 0, 1, 'x'},
	)
	binary.LittleEndian.PutUint16(zl[8:], 0xFFFF)
	return zl
}

// QuicklistFile is an RDB 9 file (redis 5.0 to 6.2 write it; 7.0 and later
// read it) of one quicklist list (type 14) under key, whose nodes are the
// given ziplists, stored raw.
func QuicklistFile(key string, nodes ...[]byte) []byte {
	str := func(b, s []byte) []byte { return append(appendLen(b, len(s)), s...) }
	b := []byte("REDIS0009")
	b = append(b, 0xFE, 0, 14) // SELECTDB 0, type 14
	b = str(b, []byte(key))
	b = appendLen(b, len(nodes))
	for _, n := range nodes {
		b = str(b, n)
	}
	b = append(b, 0xFF) // EOF
	return binary.LittleEndian.AppendUint64(b, crc64.Checksum(b))
}

// appendLen appends an RDB length.
func appendLen(b []byte, n int) []byte {
	switch {
	case n < 1<<6:
		return append(b, byte(n))
	case n < 1<<14:
		return append(b, 0x40|byte(n>>8), byte(n))
	}
	return binary.BigEndian.AppendUint32(append(b, 0x80), uint32(n))
}
