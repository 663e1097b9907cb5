package rdbio

import (
	"fmt"
	"io"
	"strings"
)

// StreamFieldsLost says what a stream of type from loses as one of the
// older type to (CopyStreamAs), or "" for nothing.
func StreamFieldsLost(from, to byte) string {
	v, w := streamVersion(from), streamVersion(to)
	var parts []string
	lost := func(since int, what string) {
		if w < since && v >= since {
			parts = append(parts, what)
		}
	}
	lost(2, "first-id, max-deleted-entry-id and entries-added; groups' entries-read")
	lost(3, "consumers' active-time")
	lost(4, "idempotent-producer (IDMP) state")
	lost(5, "nacked IDs")
	return strings.Join(parts, "; ")
}

// StreamTypes are the stream value types, oldest first.
var StreamTypes = []byte{TypeStreamListpacks, TypeStream2, TypeStream3, TypeStream4, TypeStream5}

// IsStream reports whether t is a stream value type.
func IsStream(t byte) bool { return streamVersion(t) > 1 || t == TypeStreamListpacks }

// CopyStreamAs sends the pending value, a stream, to w as a stream of the
// older (or the same) type to, as that type stores it (rdb-format.md
// §4.1): the fields to has no place for are left out, everything else
// (the entries' listpacks, the groups, their PELs and consumers) passes
// byte for byte. The type byte, already read with the key, is the
// caller's to rewrite. A server loading the older type derives what it
// needs (Redis 7.0 counts entries_added from the length, marks
// entries_read unknown, and takes seen-time as active-time).
func (r *Reader) CopyStreamAs(w io.Writer, to byte) error {
	from := r.rec.Type
	if r.state != valuePending || !IsStream(from) || !IsStream(to) || streamVersion(to) > streamVersion(from) {
		return fmt.Errorf("rdb: CopyStreamAs(%d) without an equal or newer stream pending", to)
	}
	r.state = noValue
	s := streamCopy{r: r, w: w, from: streamVersion(from), to: streamVersion(to)}
	return r.divert(w, "value", s.stream)
}

// streamCopy walks a stream of version from, sending to w what version to
// stores.
type streamCopy struct {
	r        *Reader
	w        io.Writer
	from, to int
}

// part walks a part that versions from v on store: it passes when the
// output's version stores it, else it goes to no sink.
func (s *streamCopy) part(v int, walk func() error) error {
	if s.from < v {
		return nil
	}
	if s.to >= v {
		return walk()
	}
	if err := s.r.in.setOut(nil); err != nil {
		return err
	}
	if err := walk(); err != nil {
		return err
	}
	return s.r.in.setOut(s.w)
}

func (s *streamCopy) stream() error {
	r := s.r
	if err := r.each(func() error { return skipN(2, r.skipString) }); err != nil { // master ID, listpack
		return err
	}
	if err := r.skipLens(3); err != nil { // length, last ID
		return err
	}
	meta := func() error { return r.skipLens(5) } // first ID, max deleted ID, entries added
	if err := s.part(2, meta); err != nil {
		return err
	}
	if err := r.each(s.group); err != nil {
		return err
	}
	return s.part(4, r.skipIdmp)
}

func (s *streamCopy) group() error {
	r := s.r
	if err := r.skipString(); err != nil { // name
		return err
	}
	if err := r.skipLens(2); err != nil { // last ID
		return err
	}
	read := func() error { return r.skipLens(1) } // entries read
	if err := s.part(2, read); err != nil {
		return err
	}
	err := r.each(func() error { // PEL: ID, delivery time, delivery count
		if err := r.in.skip(16 + 8); err != nil {
			return err
		}
		return r.skipLens(1)
	})
	if err == nil {
		err = r.each(s.consumer)
	}
	if err != nil {
		return err
	}
	return s.part(5, r.skipIDs) // nacked IDs
}

func (s *streamCopy) consumer() error {
	r := s.r
	if err := r.skipString(); err != nil { // name
		return err
	}
	if err := r.in.skip(8); err != nil { // seen time
		return err
	}
	active := func() error { return r.in.skip(8) }
	if err := s.part(3, active); err != nil {
		return err
	}
	return r.each(func() error { return r.in.skip(16) })
}
