package export

import (
	"fmt"
	"strconv"

	"github.com/rdbz/rdbz/rdbio"
)

// walker reads a key's value through rdbio and hands its parts to a
// renderer as events: strings (in pieces when over the cap), scores, field
// TTLs, and a stream's entries, metadata, groups and consumers.
type walker struct {
	rd  renderer
	rep *Report
	k   *keyInfo
	// zsets stored as one blob give member and score as two strings
	blobZset bool
	n        int64 // strings completed in the value
	elem     rdbio.Elem
}

// value reads the pending value v of key k.
func (w *walker) value(v rdbio.Value, k *keyInfo) error {
	t := k.rec.Type
	switch {
	case rdbio.Decodable(t):
		w.k, w.n = k, 0
		w.blobZset = t == rdbio.TypeZsetZiplist || t == rdbio.TypeZsetListpack
		if err := w.rd.begin(k); err != nil {
			return err
		}
		if _, err := v.Decode(w.part); err != nil {
			return err
		}
		return w.rd.end()
	case rdbio.HasFieldExpiry(t):
		if err := w.rd.begin(k); err != nil {
			return err
		}
		if err := v.ExpiringFields(w.field); err != nil {
			return err
		}
		return w.rd.end()
	}
	why := fmt.Sprintf("a value of type %v has no commands that rebuild it (RESTORE carries it)", t)
	if t == rdbio.TypeModule2 {
		info, err := v.Count(nil)
		if err != nil {
			return err
		}
		why = fmt.Sprintf("module type %s: no commands rebuild it without the module (RESTORE carries it)", info.Module)
	}
	if err := w.rep.skip(k.family+" values", k.rec.Key, k.rec.Offset, why); err != nil {
		return err
	}
	return w.rd.skip(k, why)
}

// part takes one part of a value from Value.Decode.
func (w *walker) part(e *rdbio.Elem) error {
	switch e.Kind {
	case rdbio.ElemString:
		return w.str(e)
	case rdbio.ElemScore:
		return w.rd.score(e.Score)
	case rdbio.ElemNode:
		return rdbio.StreamEntries(rdbio.StreamIDOf(e.ID), e.Data, w.rd.entry)
	case rdbio.ElemStreamMeta:
		return w.rd.meta(&e.Meta)
	case rdbio.ElemGroup:
		return w.rd.group(e)
	case rdbio.ElemGroupID:
		return w.rd.pending(rdbio.StreamIDOf(e.ID), e.Time, e.Count)
	case rdbio.ElemConsumer:
		return w.rd.consumer(e)
	case rdbio.ElemConsumerID:
		return w.rd.consumerID(rdbio.StreamIDOf(e.ID))
	}
	return nil
}

// str passes a string on; in a zset stored as a blob every second string
// is the score of the member before it.
func (w *walker) str(e *rdbio.Elem) error {
	last := e.Pos+uint64(len(e.Data)) == e.Len
	if w.blobZset && w.n%2 == 1 {
		if e.Pos != 0 || !last {
			return fmt.Errorf("%w: sorted set score of %d bytes", rdbio.ErrCorrupt, e.Len)
		}
		w.n++
		f, err := strconv.ParseFloat(string(e.Data), 64)
		if err != nil {
			return fmt.Errorf("%w: sorted set score %q", rdbio.ErrCorrupt, e.Data)
		}
		return w.rd.score(f)
	}
	if last {
		w.n++
	}
	return w.rd.str(e)
}

// field takes a field of a hash with field expiry (from
// Value.ExpiringFields): its name, its value (none for a set member with
// expiry) and its TTL.
func (w *walker) field(field, value []byte, ms int64) error {
	w.elem = rdbio.Elem{Kind: rdbio.ElemString, Data: field, Len: uint64(len(field))}
	if err := w.rd.str(&w.elem); err != nil {
		return err
	}
	if value != nil {
		w.elem = rdbio.Elem{Kind: rdbio.ElemString, Data: value, Len: uint64(len(value))}
		if err := w.rd.str(&w.elem); err != nil {
			return err
		}
	}
	return w.rd.fieldTTL(ms)
}
