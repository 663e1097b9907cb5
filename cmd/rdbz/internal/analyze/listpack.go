package analyze

import (
	"math"
	"strconv"

	"github.com/rdbz/rdbz/rdbio/blob"
)

// Listpacks as Redis 7.0 builds them from strings: a string that reads as
// an integer is stored as one (entry sizes: blob.ListpackStringSize and
// blob.ListpackIntSize).

// listpackHeader is a listpack's total-bytes and count header plus its
// end byte.
const listpackHeader = 6 + 1

// scoreEntrySize is the listpack entry of a sorted set score as
// zzlInsertAt writes it (d2string: an integer when the double is one
// within ±2^52, else %.17g).
func scoreEntrySize(f float64) int64 {
	switch {
	case math.IsNaN(f):
		return blob.ListpackStringSize(3)
	case math.IsInf(f, 0):
		return blob.ListpackStringSize(int64(len(strconv.FormatFloat(f, 'g', -1, 64))))
	case f > -4503599627370495 && f < 4503599627370496 && f == math.Trunc(f):
		return blob.ListpackIntSize(int64(f))
	}
	return blob.ListpackStringSize(int64(len(strconv.FormatFloat(f, 'g', 17, 64))))
}
