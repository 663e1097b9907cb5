package columns

import (
	"bytes"
	"encoding/binary"
	"errors"
	"slices"
	"sort"
)

// Sorted roles. The strings of a role of large string values (a key
// prefix's, where each value is a document: source files, JSON, pages)
// compress better in the order of their keys than in the order of the
// hash table that saved them: neighbours in key order (files of one
// directory) share more. A Splitter stores such a role's strings sorted by
// key, and its order stream (part 1, id 8r+1) says, for each op that takes
// a string of the role, in tape order, which of the stored strings it
// takes: their indexes, uvarints, each string taken exactly once.

// When a role's strings are sorted: at least minSortItems of them in the
// segment, of minSortAvg bytes on average (the order stream costs about
// log2(items) bits a string, which smaller strings do not win back: on
// app-cache's sessions, 576 bytes each, sorting won nothing).
const (
	minSortItems = 16
	minSortAvg   = 2048
)

// sortItem is a string of a sortable role: where it lies in the role's
// data (in tape order), and the key of its record in sorter.keys.
type sortItem struct {
	role       int
	off, n     int
	key0, key1 int
	tpos       int // its position among the role's strings (sortRole)
}

// sorter keeps what a Splitter needs to sort roles when a segment ends.
type sorter struct {
	ok     [MaxRoles]bool // the roles whose strings may be sorted
	items  []sortItem
	keys   []byte
	recKey [2]int // the current record's key in keys; recKey[0] < 0: not added yet
	// Scratch, kept from segment to segment.
	perm  []int
	rank  []int
	data  []byte
	lens  []byte
	order []byte
	spare *spares // where scratch comes from and goes (the Splitter's)
}

// note records a string of n bytes at off in role's data, for the current
// record whose key is key.
func (st *sorter) note(role, off, n int, key []byte) {
	if st.recKey[0] < 0 {
		st.recKey = [2]int{len(st.keys), len(st.keys) + len(key)}
		st.keys = append(st.keys, key...)
	}
	st.items = append(st.items, sortItem{role: role, off: off, n: n, key0: st.recKey[0], key1: st.recKey[1]})
}

// sortRoles sorts the roles of seg that pay for it, and writes their
// order streams.
func (st *sorter) sortRoles(seg *Segment) {
	if len(st.items) == 0 {
		return
	}
	var count, bytes [MaxRoles]int
	for _, it := range st.items {
		count[it.role]++
		bytes[it.role] += it.n
	}
	for r := range MaxRoles {
		if count[r] >= minSortItems && bytes[r] >= minSortAvg*count[r] {
			st.sortRole(seg, r)
		}
	}
}

// sortRole stores role r's strings sorted by key (the tape order among
// equal keys) and writes its order stream.
func (st *sorter) sortRole(seg *Segment, r int) {
	st.perm = st.perm[:0]
	for i, it := range st.items {
		if it.role == r {
			st.items[i].tpos = len(st.perm)
			st.perm = append(st.perm, i)
		}
	}
	sort.Stable(byKey{st})
	st.rank = append(st.rank[:0], make([]int, len(st.perm))...)
	src := seg.bufs[dataID(r)]
	// The sorted strings take what the role's take, their lengths about
	// what theirs do: grown once here, not by append as they go.
	data := st.room(st.data, len(src))
	lens := st.room(st.lens, len(seg.bufs[lensID(r)]))
	for sorted, i := range st.perm {
		it := st.items[i]
		data = append(data, src[it.off:it.off+it.n]...)
		lens = binary.AppendUvarint(lens, uint64(it.n))
		st.rank[it.tpos] = sorted
	}
	order := st.room(st.order, 2*len(st.rank))
	for _, w := range st.rank {
		order = binary.AppendUvarint(order, uint64(w))
	}
	st.data, seg.bufs[dataID(r)] = seg.bufs[dataID(r)], data
	st.lens, seg.bufs[lensID(r)] = seg.bufs[lensID(r)], lens
	st.order, seg.bufs[orderID(r)] = seg.bufs[orderID(r)], order
}

type byKey struct{ st *sorter }

func (b byKey) Len() int      { return len(b.st.perm) }
func (b byKey) Swap(i, j int) { b.st.perm[i], b.st.perm[j] = b.st.perm[j], b.st.perm[i] }
func (b byKey) Less(i, j int) bool {
	x, y := b.st.items[b.st.perm[i]], b.st.items[b.st.perm[j]]
	return bytes.Compare(b.st.keys[x.key0:x.key1], b.st.keys[y.key0:y.key1]) < 0
}

// reset forgets the segment's items, and the scratch buffers when they
// grew far past the roles they last sorted.
func (st *sorter) reset() {
	st.items, st.keys = st.items[:0], st.keys[:0]
	st.recKey[0] = -1
	if cap(st.data) > 2*len(st.data)+(1<<20) {
		st.put(st.data)
		st.put(st.lens)
		st.put(st.order)
		st.data, st.lens, st.order = nil, nil, nil
	}
}

// room returns b emptied, or in its place a buffer of at least n bytes
// from the spares (b going there).
func (st *sorter) room(b []byte, n int) []byte {
	if cap(b) >= n || st.spare == nil {
		return slices.Grow(b[:0], n)
	}
	st.spare.put(b)
	return st.spare.take(n)
}

// put gives a scratch buffer up to the spares.
func (st *sorter) put(b []byte) {
	if st.spare != nil {
		st.spare.put(b)
	}
}

// The joiner's side: the strings of sorted roles, as stored.

type span struct{ off, n int }

var (
	errOrder    = errors.New("an order index past the role's strings")
	errTwice    = errors.New("a string of a sorted role taken twice")
	errSortData = errors.New("a sorted role's lengths do not add up to its data")
)

// sortedRoles reads the lengths of every role with an order stream into
// j.spans (j.first[r]: its first, j.nsorted[r]: how many).
func (j *joiner) sortedRoles() error {
	j.spans, j.used = j.spans[:0], j.used[:0]
	j.first[0] = -1
	for r := 1; r < MaxRoles; r++ {
		j.first[r], j.nsorted[r], j.taken[r] = -1, 0, 0
		if len(j.seg.bufs[orderID(r)]) == 0 {
			continue
		}
		j.first[r] = len(j.spans)
		off, data := 0, j.seg.bufs[dataID(r)]
		for j.pos[lensID(r)] < len(j.seg.bufs[lensID(r)]) {
			n, err := j.num(lensID(r))
			if err != nil {
				return err
			}
			if n > uint64(len(data)-off) {
				return errSortData
			}
			j.spans = append(j.spans, span{off, int(n)})
			off += int(n)
		}
		if off != len(data) {
			return errSortData
		}
		j.pos[dataID(r)] = off
		j.nsorted[r] = len(j.spans) - j.first[r]
	}
	j.used = append(j.used, make([]bool, len(j.spans))...)
	return nil
}

// sortedString takes the string of sorted role r the order stream names.
func (j *joiner) sortedString(r int) ([]byte, error) {
	i, err := j.num(orderID(r))
	if err != nil {
		return nil, err
	}
	if i >= uint64(j.nsorted[r]) {
		return nil, errOrder
	}
	k := j.first[r] + int(i)
	if j.used[k] {
		return nil, errTwice
	}
	j.used[k] = true
	j.taken[r]++
	s := j.spans[k]
	return j.seg.bufs[dataID(r)][s.off : s.off+s.n], nil
}
