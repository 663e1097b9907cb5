package analyze

import (
	"bufio"
	"cmp"
	"container/heap"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"os"
	"slices"
)

// keySet finds the keys a file holds twice in one db, which every server
// refuses ("RDB has duplicated key"), in bounded memory. It keeps a 128-bit
// hash of (db, key) and the record's offset per key, 24 bytes, in an
// open-addressing table of at most maxKeySlots slots, where a key met
// again is caught as it comes, with its name. When the table is 3/4 full
// its entries are sorted and written to a temporary file (removed as soon
// as it is created, so nothing is left behind), and the table starts
// again; Finish merges those runs with the table and finds, by offset only,
// the keys that came back across runs. Two different keys are taken for
// one with a probability of about n²/2^128 for n keys (127 bits:
// the lowest bit of h[0] marks a used slot): never for the
// files this tool meets, and on the side of "refuses".
type keySet struct {
	seeds [2]maphash.Seed
	slots []keySlot
	n     int
	max   int // most slots
	runs  []*os.File
	buf   []byte
	err   error // a spill that failed: the check stops there
	// first is the duplicate met earliest in the file (by the offset of
	// its second record); count how many were found.
	first dupKey
	count int64
}

// keySlot is one key: its hash (h[0] is never 0 in a used slot) and the
// offset of its record.
type keySlot struct {
	h   [2]uint64
	off int64
}

// dupKey is a key met twice: at off, and first at firstOff; key is nil
// when the two records were told apart only by Finish.
type dupKey struct {
	key           []byte
	db            uint64
	off, firstOff int64
}

// maxKeySlots bounds the table: 2^19 slots of 24 bytes, 12 MiB, spilled
// every 393,216 keys.
const maxKeySlots = 1 << 19

func newKeySet(max int) *keySet {
	return &keySet{seeds: [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}, max: max}
}

// add records the key of the record at off in db.
func (s *keySet) add(db uint64, key []byte, off int64) {
	if s.err != nil {
		return
	}
	s.buf = binary.AppendUvarint(s.buf[:0], db)
	s.buf = append(s.buf, key...)
	h := [2]uint64{maphash.Bytes(s.seeds[0], s.buf) | 1, maphash.Bytes(s.seeds[1], s.buf)}
	if 4*(s.n+1) > 3*len(s.slots) {
		s.grow()
	}
	mask := len(s.slots) - 1
	for i := int(h[1]) & mask; ; i = (i + 1) & mask {
		sl := &s.slots[i]
		switch {
		case sl.h[0] == 0:
			*sl = keySlot{h: h, off: off}
			s.n++
			return
		case sl.h == h:
			s.found(dupKey{key: append([]byte{}, key...), db: db, off: off, firstOff: sl.off})
			return
		}
	}
}

func (s *keySet) found(d dupKey) {
	if s.count == 0 || d.off < s.first.off {
		s.first = d
	}
	s.count++
}

// grow doubles the table, or spills it once it is at its bound.
func (s *keySet) grow() {
	if len(s.slots) >= s.max {
		s.spill()
		return
	}
	old := s.slots
	s.slots, s.n = make([]keySlot, max(2*len(old), 1024)), 0
	mask := len(s.slots) - 1
	for _, sl := range old {
		if sl.h[0] == 0 {
			continue
		}
		i := int(sl.h[1]) & mask
		for s.slots[i].h[0] != 0 {
			i = (i + 1) & mask
		}
		s.slots[i] = sl
		s.n++
	}
}

// sorted returns the table's keys sorted by hash.
func (s *keySet) sorted() []keySlot {
	out := make([]keySlot, 0, s.n)
	for _, sl := range s.slots {
		if sl.h[0] != 0 {
			out = append(out, sl)
		}
	}
	slices.SortFunc(out, func(a, b keySlot) int {
		return cmp.Or(cmp.Compare(a.h[0], b.h[0]), cmp.Compare(a.h[1], b.h[1]))
	})
	return out
}

// spill writes the table to a temporary file as a sorted run and empties
// it.
func (s *keySet) spill() {
	f, err := os.CreateTemp("", "rdbz-keys-*")
	if err != nil {
		s.err = fmt.Errorf("duplicate-key check: %w", err)
		return
	}
	_ = os.Remove(f.Name()) // unlinked: the file lives while it is open
	w := bufio.NewWriterSize(f, 64<<10)
	var rec [24]byte
	for _, sl := range s.sorted() {
		binary.LittleEndian.PutUint64(rec[0:], sl.h[0])
		binary.LittleEndian.PutUint64(rec[8:], sl.h[1])
		binary.LittleEndian.PutUint64(rec[16:], uint64(sl.off))
		if _, err := w.Write(rec[:]); err != nil {
			break
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		s.err = fmt.Errorf("duplicate-key check: spilling keys: %w", err)
		return
	}
	s.runs = append(s.runs, f)
	clear(s.slots)
	s.n = 0
}

// Finish merges the spilled runs with the table, when there are any, to
// find the keys that came back from one run to a later one, and releases
// the files. It returns the error that stopped the check, if one did.
func (s *keySet) Finish() error {
	defer func() {
		for _, f := range s.runs {
			f.Close()
		}
		s.runs, s.slots = nil, nil
	}()
	if s.err != nil || len(s.runs) == 0 {
		return s.err
	}
	h := runHeap{}
	for _, f := range s.runs {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return fmt.Errorf("duplicate-key check: %w", err)
		}
		if err := h.push(&fileRun{r: bufio.NewReaderSize(f, 16<<10)}); err != nil {
			return fmt.Errorf("duplicate-key check: reading spilled keys: %w", err)
		}
	}
	_ = h.push(&memRun{keys: s.sorted()})
	var prev keySlot
	for h.Len() > 0 {
		cur := h.runs[0].head
		if prev.h == cur.h && prev.h[0] != 0 {
			s.found(dupKey{off: max(prev.off, cur.off), firstOff: min(prev.off, cur.off)})
		}
		prev = cur
		if err := h.advance(); err != nil {
			return fmt.Errorf("duplicate-key check: reading spilled keys: %w", err)
		}
	}
	return nil
}

// run is one sorted sequence of keys being merged.
type run interface {
	next() (keySlot, bool, error)
}

type fileRun struct{ r *bufio.Reader }

func (f *fileRun) next() (keySlot, bool, error) {
	var rec [24]byte
	if _, err := io.ReadFull(f.r, rec[:]); err != nil {
		if errors.Is(err, io.EOF) {
			return keySlot{}, false, nil
		}
		return keySlot{}, false, err
	}
	return keySlot{h: [2]uint64{binary.LittleEndian.Uint64(rec[0:]), binary.LittleEndian.Uint64(rec[8:])},
		off: int64(binary.LittleEndian.Uint64(rec[16:]))}, true, nil
}

type memRun struct{ keys []keySlot }

func (m *memRun) next() (keySlot, bool, error) {
	if len(m.keys) == 0 {
		return keySlot{}, false, nil
	}
	k := m.keys[0]
	m.keys = m.keys[1:]
	return k, true, nil
}

// runHeap orders the runs by their current key.
type runHeap struct{ runs []*headRun }

type headRun struct {
	run
	head keySlot
}

func (h *runHeap) Len() int { return len(h.runs) }
func (h *runHeap) Less(i, j int) bool {
	a, b := h.runs[i].head, h.runs[j].head
	return a.h[0] < b.h[0] || (a.h[0] == b.h[0] && a.h[1] < b.h[1])
}
func (h *runHeap) Swap(i, j int) { h.runs[i], h.runs[j] = h.runs[j], h.runs[i] }
func (h *runHeap) Push(x any)    { h.runs = append(h.runs, x.(*headRun)) }
func (h *runHeap) Pop() any {
	x := h.runs[len(h.runs)-1]
	h.runs = h.runs[:len(h.runs)-1]
	return x
}

// push adds a run at its first key (an empty run is dropped).
func (h *runHeap) push(r run) error {
	k, ok, err := r.next()
	if ok {
		heap.Push(h, &headRun{run: r, head: k})
	}
	return err
}

// advance moves the least run to its next key.
func (h *runHeap) advance() error {
	top := h.runs[0]
	k, ok, err := top.next()
	switch {
	case err != nil:
		return err
	case !ok:
		heap.Pop(h)
	default:
		top.head = k
		heap.Fix(h, 0)
	}
	return nil
}
