package blob

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
)

// An intset (intset.c) is a u32 member width in bytes (2, 4 or 8) and a u32
// member count, then the members, sorted and each once, little-endian
// signed integers of that width.

const intsetHeader = 8 // u32 width, u32 count

// intsetHead decodes an intset's header: its width and count, when the
// width is one of the three and the members fill the rest of b exactly.
func intsetHead(b []byte) (width, count uint64, err error) {
	if len(b) < intsetHeader {
		return 0, 0, fault(0, "%d bytes, shorter than the header", len(b))
	}
	width = uint64(binary.LittleEndian.Uint32(b))
	if width != 2 && width != 4 && width != 8 {
		return 0, 0, fault(0, "encoding %d", width)
	}
	count = uint64(binary.LittleEndian.Uint32(b[4:]))
	if intsetHeader+count*width != uint64(len(b)) {
		return 0, 0, fault(4, "%d members of %d bytes in %d bytes", count, width, len(b))
	}
	return width, count, nil
}

// intsetAt is member i of an intset of the given width.
func intsetAt(b []byte, width, i uint64) int64 {
	p := intsetHeader + i*width
	return leSigned(b[p : p+width])
}

// eachIntset calls fn with each member of the intset b until fn returns an
// error, which it returns; it fails (a *blobError) when the header is not
// one intsetHead takes.
func eachIntset(b []byte, fn func(Entry) error) error {
	width, count, err := intsetHead(b)
	if err != nil {
		return err
	}
	for i := range count {
		if err := fn(Entry{IsInt: true, Int: intsetAt(b, width, i)}); err != nil {
			return err
		}
	}
	return nil
}

// checkIntset: encoding 2, 4 or 8; the size is the header and count
// members; not empty; deep: members strictly increasing.
func checkIntset(b []byte, deep bool) error {
	width, count, err := intsetHead(b)
	if err != nil {
		return err
	}
	if count == 0 {
		return fault(4, "empty")
	}
	if !deep {
		return nil
	}
	prev := intsetAt(b, width, 0)
	for i := uint64(1); i < count; i++ {
		cur := intsetAt(b, width, i)
		if cur <= prev {
			return fault(intsetHeader+int(i*width), "members out of order")
		}
		prev = cur
	}
	return nil
}

// IntsetWriter builds an intset as intset.c does: the members sorted,
// each once, all in the width the smallest or largest of them needs (2, 4
// or 8 bytes). It holds each member in 8 bytes until Bytes, so its cap
// counts 8 bytes a member (beside the 8-byte header) whatever the width.
// The zero value is unusable: use NewIntsetWriter.
type IntsetWriter struct {
	vals  []int64
	width int // the width the members so far need
	buf   []byte
	max   int
}

// NewIntsetWriter returns a writer of intsets that holds at most max bytes.
func NewIntsetWriter(max int) *IntsetWriter { return &IntsetWriter{max: max, width: 2} }

// Reset empties the writer.
func (w *IntsetWriter) Reset() { w.vals, w.width = w.vals[:0], 2 }

// Len is the number of members added (a member added twice counts twice
// until Bytes drops it).
func (w *IntsetWriter) Len() int { return len(w.vals) }

// Size is the size of the finished intset, before members added twice are
// dropped.
func (w *IntsetWriter) Size() int { return intsetHeader + len(w.vals)*w.width }

// Append adds e: an integer, or a string that reads as one (RedisInt);
// another string is refused with ErrNotInteger.
func (w *IntsetWriter) Append(e Entry) error {
	if e.IsInt {
		return w.AppendInt(e.Int)
	}
	v, ok := RedisInt(e.Str)
	if !ok {
		return fmt.Errorf("%w: intset member %.32q", ErrNotInteger, e.Str)
	}
	return w.AppendInt(v)
}

// AppendString adds the member that s reads as (RedisInt), or refuses s
// with ErrNotInteger.
func (w *IntsetWriter) AppendString(s []byte) error { return w.Append(Entry{Str: s}) }

// AppendInt adds the member v.
func (w *IntsetWriter) AppendInt(v int64) error {
	if err := growTo(Intset, intsetHeader+8*(len(w.vals)+1), w.max); err != nil {
		return err
	}
	w.vals = append(w.vals, v)
	w.width = max(w.width, intsetWidth(v))
	return nil
}

// Bytes finishes the intset: members sorted, each once.
func (w *IntsetWriter) Bytes() []byte {
	slices.Sort(w.vals)
	w.vals = slices.Compact(w.vals)
	width := w.width
	b := binary.LittleEndian.AppendUint32(w.buf[:0], uint32(width))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(w.vals)))
	for _, v := range w.vals {
		b = appendLE(b, uint64(v), width)
	}
	w.buf = b
	return b
}

// intsetWidth is the member width intset.c needs for v.
func intsetWidth(v int64) int {
	switch {
	case v < math.MinInt32 || v > math.MaxInt32:
		return 8
	case v < math.MinInt16 || v > math.MaxInt16:
		return 4
	}
	return 2
}
