package rdbio

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
)

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
func (w *IntsetWriter) Size() int { return 8 + len(w.vals)*w.width }

// Append adds e: an integer, or a string that reads as one (RedisInt);
// another string is refused with ErrNotInteger.
func (w *IntsetWriter) Append(e Entry) error {
	if e.IsInt {
		return w.AppendInt(e.Int)
	}
	v, ok := RedisInt(e.Str)
	if !ok {
		return fmt.Errorf("%w: intset member %s", ErrNotInteger, QuoteKey(e.Str, 32))
	}
	return w.AppendInt(v)
}

// AppendString adds the member that s reads as (RedisInt), or refuses s
// with ErrNotInteger.
func (w *IntsetWriter) AppendString(s []byte) error { return w.Append(Entry{Str: s}) }

// AppendInt adds the member v.
func (w *IntsetWriter) AppendInt(v int64) error {
	if err := growTo(BlobIntset, 8+8*(len(w.vals)+1), w.max); err != nil {
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
