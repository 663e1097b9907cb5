package rdbiotest

import "encoding/binary"

// Builders of the blobs Redis stores small values in, for tests that need
// well-formed ones to start from or damage (rdb-format.md §5.3, §5.4).

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
