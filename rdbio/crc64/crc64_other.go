//go:build !amd64

package crc64

const canFold = false

func fold(uint64, []byte, *[4]uint64) (lo, hi uint64) {
	panic("crc64: no folding on this architecture")
}
