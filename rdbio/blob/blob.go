// Package blob reads and writes the blobs Redis stores small values and
// list nodes in: listpack, ziplist, intset and zipmap, each a string of an
// RDB file once decoded; each kind's file (listpack.go, ziplist.go,
// intset.go, zipmap.go) describes its layout as the servers read it. Each
// encoding has one decoder of its entries, and everything here goes through
// it: the entry count of a blob (Count), its entries (Entries), the checks a
// server makes while loading one (Check) and re-encoding into another kind
// (Recode, with the writers that build blobs as the servers do).
//
// It reads decoded bytes only: how a blob is stored in a file (raw, LZF, the
// string that holds it) is rdbio's business, and deciding what to convert is
// rdbio/convert's.
package blob

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
)

// Errors that callers may test for with errors.Is. rdbio's ErrCorrupt and
// ErrTooLarge are these same values.
var (
	// ErrCorrupt reports a blob that is not well formed.
	ErrCorrupt = errors.New("corrupt")
	// ErrTooLarge reports a blob that would grow past a writer's cap.
	ErrTooLarge = errors.New("larger than the cap")
	// ErrNotInteger reports a string that an intset cannot hold: not the
	// decimal form of a 64-bit integer as the server reads it (RedisInt).
	ErrNotInteger = errors.New("not an integer")
)

// Kind is a kind of blob.
type Kind uint8

// Blob kinds.
const (
	Ziplist  Kind = iota // ziplist: u16 count at offset 8
	Listpack             // listpack: u16 count at offset 4
	Intset               // intset: u32 count at offset 4
	Zipmap               // zipmap: the first byte
)

func (k Kind) String() string {
	switch k {
	case Ziplist:
		return "ziplist"
	case Listpack:
		return "listpack"
	case Intset:
		return "intset"
	case Zipmap:
		return "zipmap"
	}
	return "blob(" + strconv.Itoa(int(k)) + ")"
}

// HeadSize is how many leading bytes of a blob every header count needs.
const HeadSize = 10

const (
	countUnknown16 = 0xFFFF // ziplist/listpack header: count by walking
	zipmapUnknown  = 254    // zipmap header: count by walking
	endByte        = 0xFF   // the end byte of a listpack, ziplist or zipmap
)

// Entry is one entry of a blob: an integer (IsInt, Int) or the bytes of a
// string (Str). Str is valid until the walk that gave it moves on.
type Entry struct {
	Str   []byte
	Int   int64
	IsInt bool
}

// Count counts the entries of a blob of the given kind from its decoded
// bytes b, or from a prefix of them (whole false). It reports false when the
// count cannot be told: the header says "unknown" (65535 in a ziplist or
// listpack, 254 in a zipmap) and the blob is not whole, or the blob is
// malformed. HeadSize leading bytes hold every header count. A header that
// says "unknown" is counted as the servers count it: by walking the entries.
func Count(kind Kind, b []byte, whole bool) (int64, bool) {
	switch kind {
	case Ziplist:
		return u16Count(kind, b, zlHeader, 8, whole)
	case Listpack:
		return u16Count(kind, b, lpHeader, 4, whole)
	case Intset:
		if len(b) < intsetHeader {
			return 0, false
		}
		return int64(binary.LittleEndian.Uint32(b[4:])), true
	}
	if len(b) < 2 {
		return 0, false
	}
	if b[0] < zipmapUnknown {
		return int64(b[0]), true
	}
	return walkCount(kind, b, whole)
}

// u16Count reads the u16 entry count at offset off of a blob whose header
// is head bytes (one entry or the end byte must follow it), or walks the
// blob when the count is 65535 and whole is set.
func u16Count(kind Kind, b []byte, head, off int, whole bool) (int64, bool) {
	if len(b) <= head {
		return 0, false
	}
	if n := binary.LittleEndian.Uint16(b[off:]); n != countUnknown16 {
		return int64(n), true
	}
	return walkCount(kind, b, whole)
}

// walkCount counts the entries of a whole blob one by one; a zipmap's
// strings make pairs.
func walkCount(kind Kind, b []byte, whole bool) (int64, bool) {
	if !whole {
		return 0, false
	}
	var n int64
	if each(kind, b, func(Entry) error { n++; return nil }) != nil {
		return 0, false
	}
	if kind == Zipmap {
		n /= 2
	}
	return n, true
}

// Entries calls fn with each entry of the whole decoded blob b of the given
// kind, as it is stored: the entries of a listpack or ziplist, the members
// of an intset, the keys and values of a zipmap in turn. Strings come whole,
// whatever their length. The error wraps ErrCorrupt when b is not well
// formed as far as it was walked, or is fn's.
func Entries(kind Kind, b []byte, fn func(Entry) error) error {
	var ferr error
	err := each(kind, b, func(e Entry) error {
		ferr = fn(e)
		return ferr
	})
	if ferr != nil {
		return ferr
	}
	if err != nil {
		return fmt.Errorf("%w: malformed %s blob", ErrCorrupt, kind)
	}
	return nil
}

// each walks the entries of a whole blob with its kind's decoder until fn
// returns an error. It returns fn's error, or a *blobError when the blob
// is malformed as far as it was walked.
func each(kind Kind, b []byte, fn func(Entry) error) error {
	switch kind {
	case Listpack:
		return eachListpack(b, fn)
	case Ziplist:
		return eachZiplist(b, func(_ int, e zlEntry) error { return fn(e.entry) })
	case Intset:
		return eachIntset(b, fn)
	case Zipmap:
		return eachZipmapString(b, func(s []byte) error { return fn(Entry{Str: s}) })
	}
	return fault(0, "unknown kind %d", kind)
}

// leSigned decodes a little-endian two's complement integer of len(d) bytes.
func leSigned(d []byte) int64 {
	var u uint64
	for i := len(d) - 1; i >= 0; i-- {
		u = u<<8 | uint64(d[i])
	}
	shift := 64 - 8*uint(len(d))
	return int64(u<<shift) >> shift
}
