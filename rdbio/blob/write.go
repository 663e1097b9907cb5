package blob

import (
	"fmt"
	"math"
)

// Writers of the blobs, encoding each entry as the server does, so
// that a blob re-encoded from another kind is the one the server would
// have built from the same elements. Each writer holds one blob, growing
// it up to a cap the caller gives: an entry that would take it past the
// cap is refused (an error wrapping ErrTooLarge) and the writer is left as
// it was. docs/codecs.md describes the API; each writer is in its
// kind's file.

// EntryWriter builds one blob from its entries. ListpackWriter,
// ZiplistWriter, IntsetWriter and ZipmapWriter are EntryWriters.
type EntryWriter interface {
	// Append adds e, as the server stores it: in a listpack, ziplist or
	// intset a string that reads as an integer (RedisInt) as one; in a
	// zipmap an integer as its digits.
	Append(e Entry) error
	// Len is the number of entries added since the last Reset.
	Len() int
	// Size is the size in bytes of the blob Bytes would give.
	Size() int
	// Bytes finishes the blob and returns it; it is valid until the next
	// Append or Reset. Appending after Bytes goes on with the same blob.
	Bytes() []byte
	// Reset empties the writer, keeping its buffer and cap.
	Reset()
}

var (
	_ EntryWriter = (*ListpackWriter)(nil)
	_ EntryWriter = (*ZiplistWriter)(nil)
	_ EntryWriter = (*IntsetWriter)(nil)
	_ EntryWriter = (*ZipmapWriter)(nil)
)

// Recode appends every entry of the whole decoded blob src, of kind from,
// to w: src re-encoded as w's kind (a listpack as a ziplist for redis ≤
// 6.2, a set listpack as an intset for redis ≤ 7.0, ...). The error wraps
// ErrCorrupt (src is malformed), ErrTooLarge (over w's cap) or, for an
// intset, ErrNotInteger (then the set needs another encoding).
func Recode(w EntryWriter, from Kind, src []byte) error {
	return Entries(from, src, w.Append)
}

// RedisInt reads s as the server reads a string that may be stored as an
// integer (string2ll, lpStringToInt64): the decimal form of an int64 with
// an optional minus, no plus sign, no leading zero, no "-0".
func RedisInt(s []byte) (int64, bool) {
	if len(s) == 0 || len(s) > 20 {
		return 0, false
	}
	d, neg := s, s[0] == '-'
	if neg {
		d = d[1:]
	}
	if len(d) == 0 || d[0] < '1' && len(s) > 1 {
		return 0, false
	}
	var u uint64
	for _, c := range d {
		if c < '0' || c > '9' || u > (math.MaxUint64-9)/10 {
			return 0, false
		}
		u = u*10 + uint64(c-'0')
	}
	switch {
	case !neg && u <= math.MaxInt64:
		return int64(u), true
	case neg && u <= 1<<63:
		return int64(-u), true
	}
	return 0, false
}

// blobBuf is the blob a ListpackWriter, ZiplistWriter or ZipmapWriter
// builds: its header and entries so far, without the end byte.
type blobBuf struct {
	buf  []byte
	n    int // entries
	max  int // the cap
	head int // header bytes
}

// newBlobBuf is an empty blob of head header bytes and the cap max.
func newBlobBuf(max, head int) blobBuf {
	return blobBuf{buf: make([]byte, head, 64), max: max, head: head}
}

// Reset empties the writer.
func (b *blobBuf) Reset() { b.buf, b.n = append(b.buf[:0], make([]byte, b.head)...), 0 }

// Len is the number of entries.
func (b *blobBuf) Len() int { return b.n }

// Size is the size of the finished blob, its end byte included.
func (b *blobBuf) Size() int { return len(b.buf) + 1 }

// growTo checks that a blob of size bytes is within the cap max and the
// format's limit (a u32 size field) before a writer grows to it.
func growTo(kind Kind, size, max int) error {
	if size > max || size > math.MaxUint32 {
		return fmt.Errorf("%w: %s would grow to %d bytes (cap %d)", ErrTooLarge, kind, size, min(max, math.MaxUint32))
	}
	return nil
}

// SingleEntryFrame gives the bytes that go before (head) and after (tail)
// the n data bytes of a ziplist or listpack holding one string of n
// bytes, so that a string over the cap (a PLAIN list node) can be written
// as a one-entry blob without holding it. n must be over 20: a shorter
// string may read as an integer and is encoded otherwise (use a writer).
func SingleEntryFrame(kind Kind, n uint64) (head, tail []byte, err error) {
	if n <= 20 {
		return nil, nil, fmt.Errorf("blob: one-entry frame for %d bytes: strings of at most 20 bytes need a writer", n)
	}
	switch kind {
	case Ziplist:
		head = append(make([]byte, zlHeader, 16), 0) // no previous entry
		head = appendZiplistStrHead(head, n)
		size := uint64(len(head)) + n + 1
		if err := growTo(kind, int(min(size, math.MaxInt)), math.MaxInt); err != nil {
			return nil, nil, err
		}
		putZiplistHeader(head, int(size), zlHeader, 1)
		return head, []byte{endByte}, nil
	case Listpack:
		head = appendListpackStrHead(make([]byte, lpHeader, 16), n)
		l := uint64(len(head)-lpHeader) + n
		tail = append(appendBacklen(nil, l), endByte)
		size := lpHeader + l + uint64(len(tail))
		if err := growTo(kind, int(min(size, math.MaxInt)), math.MaxInt); err != nil {
			return nil, nil, err
		}
		putListpackHeader(head, int(size), 1)
		return head, tail, nil
	}
	return nil, nil, fmt.Errorf("blob: no one-entry frame for a %s", kind)
}
