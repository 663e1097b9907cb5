package blob

import (
	"fmt"
	"hash/maphash"
	"slices"
	"strconv"
)

// Integrity checks of the blobs, as a server makes them while loading
// (redis src/ziplist.c ziplistValidateIntegrity, listpack.c
// lpValidateIntegrity, intset.c intsetValidateIntegrity, zipmap.c
// zipmapValidateIntegrity, and the conversions of rdb.c that look for
// duplicate fields). A shallow check reads the header and the end byte; a
// deep one walks every entry with the kind's decoder. Which depth a server
// uses for which blob depends on its version and its sanitize-dump-payload
// setting: that is the caller's decision. Each kind's check is in its file.

// Check checks the decoded blob b of the given kind. per is how many
// entries make one element: 2 for field/value pairs (hashes, sorted sets),
// 3 for hashes with field expiry; with deep set, such a blob must hold a
// multiple of per entries and no field twice. A zipmap is always checked
// for duplicate fields when deep. The error wraps ErrCorrupt and says
// what is wrong, with the offset in the blob.
func Check(kind Kind, b []byte, deep bool, per int) error {
	var err error
	switch kind {
	case Ziplist:
		err = checkZiplist(b, deep, per)
	case Listpack:
		err = checkListpack(b, deep, per)
	case Intset:
		err = checkIntset(b, deep)
	case Zipmap:
		err = checkZipmap(b, deep)
	default:
		err = fault(0, "unknown kind")
	}
	if err != nil {
		return fmt.Errorf("%w: %s: %v", ErrCorrupt, kind, err)
	}
	return nil
}

// blobError is a malformed blob: what is wrong, at an offset of the blob.
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
	buf    [24]byte
}

var fieldSeed = maphash.MakeSeed()

// add takes the next entry.
func (s *fieldSet) add(e Entry) {
	if s.per >= 2 && s.n%s.per == 0 {
		text := e.Str
		if e.IsInt {
			text = strconv.AppendInt(s.buf[:0], e.Int, 10)
		}
		s.hashes = append(s.hashes, maphash.Bytes(fieldSeed, text))
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
