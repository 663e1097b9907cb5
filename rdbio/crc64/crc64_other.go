//go:build !amd64

package crc64

const canFold, canFoldWide = false, false

func fold(uint64, []byte, *[6]uint64, bool) (lo, hi uint64) {
	panic("crc64: no folding on this architecture")
}
