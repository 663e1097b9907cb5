package columns

import (
	"encoding/binary"
	"errors"
)

// The planes of a stream of uvarints (method 3): the number of uvarints N
// (a uvarint), then plane 0 — the first byte of every uvarint —, plane 1 —
// the second byte of every uvarint of two bytes or more —, and so on to
// plane 9. Each plane is homogeneous where the uvarints mix (low bytes
// random, high bytes small), which zstd's entropy coding sees. Plane j+1
// holds as many bytes as plane j has bytes with bit 7 set.

// toPlanes appends the planes of b, a sequence of whole uvarints, to dst.
func toPlanes(dst, b []byte) []byte {
	n := 0
	var counts [10]int
	for p := 0; p < len(b); n++ {
		j := 0
		for b[p+j]&0x80 != 0 {
			j++
		}
		for k := 0; k <= j; k++ {
			counts[k]++
		}
		p += j + 1
	}
	dst = binary.AppendUvarint(dst, uint64(n))
	base := len(dst)
	var at [10]int
	off := base
	for k := range counts {
		at[k] = off
		off += counts[k]
	}
	dst = append(dst, make([]byte, len(b))...)
	for p := 0; p < len(b); {
		for k := 0; ; k++ {
			c := b[p]
			p++
			dst[at[k]] = c
			at[k]++
			if c&0x80 == 0 {
				break
			}
		}
	}
	return dst
}

var errPlanes = errors.New("the planes of uvarints do not add up")

// fromPlanes appends the uvarints the planes b stand for to dst, which must
// have room for raw bytes; raw is their length.
func fromPlanes(dst, b []byte, raw int) ([]byte, error) {
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(raw) {
		return dst, errPlanes
	}
	b = b[k:]
	if len(b) != raw {
		return dst, errPlanes
	}
	// The planes' bounds: plane j+1 has as many bytes as plane j has
	// continuation bits.
	var at, end [10]int
	size := int(n)
	for j := 0; j < 10; j++ {
		at[j] = end[max(j-1, 0)]
		if j == 0 {
			at[j] = 0
		}
		end[j] = at[j] + size
		if end[j] > len(b) {
			return dst, errPlanes
		}
		size = 0
		for _, c := range b[at[j]:end[j]] {
			size += int(c >> 7)
		}
		if size == 0 {
			if end[j] != len(b) {
				return dst, errPlanes
			}
			break
		}
		if j == 9 {
			return dst, errPlanes
		}
	}
	for i := uint64(0); i < n; i++ {
		for j := 0; ; j++ {
			c := b[at[j]]
			at[j]++
			dst = append(dst, c)
			if c&0x80 == 0 {
				break
			}
		}
	}
	return dst, nil
}
