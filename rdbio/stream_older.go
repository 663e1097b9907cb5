package rdbio

import (
	"fmt"
	"io"
)

// StreamTypes are the stream value types, oldest first.
var StreamTypes = []Type{TypeStreamListpacks, TypeStream2, TypeStream3, TypeStream4, TypeStream5}

// IsStream reports whether t is a stream value type.
func IsStream(t Type) bool { return streamVersion(t) > 1 || t == TypeStreamListpacks }

// copyStreamAs reads the pending stream for Value.CopyStreamAs.
func (r *Reader) copyStreamAs(w io.Writer, to Type) error {
	from := r.rec.Type
	if !IsStream(from) || !IsStream(to) || streamVersion(to) > streamVersion(from) {
		return fmt.Errorf("rdb: CopyStreamAs(%v) on a value of type %v, not an equal or newer stream", to, from)
	}
	r.val.state = noValue
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
