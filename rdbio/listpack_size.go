package rdbio

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
	if w := lpIntWidth(v); w > 0 {
		return int64(1+w) + 1
	}
	return 2
}
