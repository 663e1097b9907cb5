package columns

import (
	"bytes"
	"encoding/binary"
)

// Blob kinds.
const (
	kindLP = iota // listpack
	kindZL        // ziplist
	kindIS        // intset
)

// layout says what a blob's entries are, and so which role each goes to.
type layout uint8

const (
	layHash   layout = iota // field, value, field, value, ...
	layHashEx               // field, value, expiry, ...
	layZset                 // member, score, ...
	laySet                  // members
	layList                 // elements
	layStream               // a stream listpack's entries
)

// blob reads a string holding a blob of kind whose entries are laid out
// as lay.
func (s *Splitter) blob(r *rd, kind int, lay layout) {
	role := 0
	switch lay {
	case laySet:
		role = s.prefixRole(famSet, r.left(), roleSet)
	case layList:
		role = s.prefixRole(famList, r.left(), roleList)
	}
	s.blobIn(r, kind, lay, role)
}

// blobIn reads a string holding a blob and takes it apart when Join
// rebuilds it byte for byte; else the string goes on as it is. role is
// the role of the entries of sets and lists.
func (s *Splitter) blobIn(r *rd, kind int, lay layout, role int) {
	at := r.p
	st := r.str()
	if r.bad {
		return
	}
	if (st.enc == sRaw || st.enc == sT) && st.canon {
		es, ok := parseBlob(kind, st.data, s.elems[:0])
		s.elems = es
		if ok && s.rebuilds(kind, st.data, es) {
			s.upto(at)
			s.blobOps(kind, st.enc == sT, es, lay, role)
			s.done = r.p
			return
		}
	}
	s.emit(at, st, roleOther, r.p)
}

// rebuilds tells whether Join's builder, given the entries es, writes the
// blob b byte for byte: the parsers accept only blobs it would write, and
// this checks it, so that a blob taken apart never comes back otherwise.
func (s *Splitter) rebuilds(kind int, b []byte, es []elem) bool {
	need := len(b) + 16
	s.check = room(s.check[:0], need)[:need]
	var size int
	var err error
	switch kind {
	case kindLP:
		s.src = elemSource{es: es}
		size, err = buildListpack(s.check, 0, len(es), &s.src)
	case kindZL:
		s.src = elemSource{es: es}
		size, err = buildZiplist(s.check, 0, len(es), &s.src)
	default:
		w := intsetWidth(es[0].v, es[len(es)-1].v)
		if isHead+len(es)*w > need {
			return false
		}
		i := 0
		size = buildIntset(s.check, w, len(es), func() int64 {
			i++
			if i == 1 {
				return int64(zigzag(es[0].v))
			}
			return es[i-1].v - es[i-2].v - 1
		})
	}
	return err == nil && size == len(b) && bytes.Equal(s.check[:size], b)
}

// elemSource gives parsed entries to a builder.
type elemSource struct {
	es []elem
	i  int
}

func (e *elemSource) entry() ([]byte, int64, bool, error) {
	if e.i >= len(e.es) {
		return nil, 0, false, errEntryOp
	}
	x := e.es[e.i]
	e.i++
	return x.str, x.v, x.isInt, nil
}

func parseBlob(kind int, b []byte, es []elem) ([]elem, bool) {
	switch kind {
	case kindLP:
		return parseListpack(b, es)
	case kindZL:
		return parseZiplist(b, es)
	}
	return parseIntset(b, es)
}

// blobOps writes the ops that rebuild a blob of the entries es (t: the
// blob is stored as a 0xC5 string).
func (s *Splitter) blobOps(kind int, t bool, es []elem, lay layout, role int) {
	code := [...]byte{kindLP: opLP, kindZL: opZL, kindIS: opIS}[kind]
	if t {
		code++
	}
	if kind == kindIS {
		s.op(code, roleIntset)
		s.tapeUvarint(uint64(len(es)))
		id := numsID(roleIntset)
		s.putUvarint(id, zigzag(es[0].v))
		for i := 1; i < len(es); i++ {
			s.putUvarint(id, uint64(es[i].v)-uint64(es[i-1].v)-1)
		}
		return
	}
	s.op(code, uint64(len(es)))
	for i, e := range es {
		s.entry(s.entryRole(lay, es, i, role), e)
	}
}

func elemSize(e elem) int {
	if e.isInt {
		return 8
	}
	return len(e.str)
}

func (s *Splitter) tapeUvarint(v uint64) {
	t := s.room(s.seg.bufs[idTape], binary.MaxVarintLen64)
	n := len(t)
	s.seg.bufs[idTape] = binary.AppendUvarint(t, v)
	s.total += len(s.seg.bufs[idTape]) - n
}

// entry writes a blob entry's op and its bytes in role.
func (s *Splitter) entry(role int, e elem) {
	if e.isInt {
		s.tape(opEInt, uint64(role))
		s.putUvarint(numsID(role), zigzag(e.v))
		return
	}
	s.tape(opEStr, uint64(role))
	s.putUvarint(lensID(role), uint64(len(e.str)))
	s.put(dataID(role), e.str)
}

// entryRole is the role of entry i of a blob laid out as lay.
func (s *Splitter) entryRole(lay layout, es []elem, i int, role int) int {
	switch lay {
	case layHash:
		if i%2 == 0 {
			return roleFields
		}
		return s.fieldRole(!es[i-1].isInt, es[i-1].str, elemSize(es[i]))
	case layHashEx:
		switch i % 3 {
		case 0:
			return roleFields
		case 1:
			return s.fieldRole(!es[i-1].isInt, es[i-1].str, elemSize(es[i]))
		}
		return roleFieldTTL
	case layZset:
		if i%2 == 0 {
			return roleZMember
		}
		return roleZScore
	case layStream:
		return roleStream
	}
	return role
}
