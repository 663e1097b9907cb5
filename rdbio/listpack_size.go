package rdbio

import "math"

// Sizes of listpack entries as listpack.c encodes them (rdb-format.md
// §5.4): encoding byte(s), data and back-length.

// ListpackStringSize is the size of an entry holding a string of n bytes
// that does not read as an integer.
func ListpackStringSize(n int64) int64 {
	var l int64
	switch {
	case n < 64:
		l = 1 + n
	case n < 4096:
		l = 2 + n
	default:
		l = 5 + n
	}
	return l + int64(backlenSize(int(l)))
}

// ListpackIntSize is the size of an entry holding the integer v.
func ListpackIntSize(v int64) int64 {
	switch {
	case v >= 0 && v <= 127:
		return 2
	case v >= -4096 && v <= 4095:
		return 3
	case v >= math.MinInt16 && v <= math.MaxInt16:
		return 4
	case v >= -1<<23 && v < 1<<23:
		return 5
	case v >= math.MinInt32 && v <= math.MaxInt32:
		return 6
	}
	return 10
}
