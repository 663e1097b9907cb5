// Package extsort sorts fixed-size records that may not fit in memory: an
// external merge sort. Records are gathered in a buffer of a bounded size;
// a full buffer is sorted and written to a temporary file (a run), which is
// unlinked as soon as it is created where the system allows it, so that
// nothing is left behind however the process ends (elsewhere Close
// removes it). Once FanIn runs exist they are merged into one, so that
// at most FanIn files are open and merging needs FanIn small read buffers
// whatever the number of records. Sort merges the runs and the buffer.
package extsort

import (
	"bufio"
	"container/heap"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
)

// Codec writes records of type T as Size bytes and reads them back.
type Codec[T any] struct {
	Size int
	Put  func(b []byte, v T)
	Get  func(b []byte) T
}

// FanIn is the most runs kept before they are merged into one.
const FanIn = 64

// readBuf is the read buffer of each run being merged.
const readBuf = 32 << 10

// Sorter gathers records and gives them back in the order of cmp.
type Sorter[T any] struct {
	codec Codec[T]
	cmp   func(a, b T) int
	buf   []T
	max   int // records held before a spill
	dir   string
	runs  []*run
	spill []byte
	// Spilled counts the records written to runs, merges included.
	Spilled int64
}

// run is a sorted temporary file.
type run struct {
	f    *os.File
	name string // "" once unlinked
	n    int64  // records
}

// New returns a Sorter that holds at most maxBytes of records in memory
// (at least one record) and writes its runs in dir ("": os.TempDir).
func New[T any](codec Codec[T], cmp func(a, b T) int, maxBytes int, dir string) *Sorter[T] {
	return &Sorter[T]{codec: codec, cmp: cmp, max: max(maxBytes/codec.Size, 1), dir: dir}
}

// Add adds a record.
func (s *Sorter[T]) Add(v T) error {
	if len(s.buf) == cap(s.buf) && cap(s.buf) < s.max {
		s.grow()
	}
	if len(s.buf) >= s.max {
		if err := s.flush(); err != nil {
			return err
		}
	}
	s.buf = append(s.buf, v)
	return nil
}

// grow doubles the buffer, from 4096 records up to s.max: its whole size
// at once made every merge of a few keys zero 16 MiB in a process that
// reuses its heap, and append's own growth passes the bound.
func (s *Sorter[T]) grow() {
	buf := make([]T, len(s.buf), min(s.max, max(4096, 2*cap(s.buf))))
	copy(buf, s.buf)
	s.buf = buf
}

// flush writes the buffer as a run, merging the runs into one when there
// are FanIn of them.
func (s *Sorter[T]) flush() error {
	slices.SortFunc(s.buf, s.cmp)
	src := &memSource[T]{recs: s.buf}
	if err := s.writeRun(src); err != nil {
		return err
	}
	s.buf = s.buf[:0]
	if len(s.runs) < FanIn {
		return nil
	}
	m, err := s.merger(false)
	if err != nil {
		return err
	}
	old := s.runs
	s.runs = nil
	err = s.writeRun(m)
	closeRuns(old)
	return err
}

// writeRun writes what src gives, in order, to a new run.
func (s *Sorter[T]) writeRun(src source[T]) error {
	f, err := os.CreateTemp(s.dir, "rdbz-sort-*")
	if err != nil {
		return fmt.Errorf("sort spill: %w", err)
	}
	rn := &run{f: f, name: f.Name()}
	if os.Remove(f.Name()) == nil {
		rn.name = "" // the file lives while it is open
	}
	s.runs = append(s.runs, rn)
	w := bufio.NewWriterSize(f, readBuf)
	if len(s.spill) < s.codec.Size {
		s.spill = make([]byte, s.codec.Size)
	}
	for {
		v, ok, err := src.next()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		s.codec.Put(s.spill, v)
		if _, err := w.Write(s.spill); err != nil {
			return fmt.Errorf("sort spill: %w", err)
		}
		rn.n++
	}
	s.Spilled += rn.n
	if err := w.Flush(); err != nil {
		return fmt.Errorf("sort spill: %w", err)
	}
	return nil
}

// Runs is the number of runs on disk.
func (s *Sorter[T]) Runs() int { return len(s.runs) }

// Sort ends the adding and returns the records in order. The Sorter may
// not be used after it, but for Close.
func (s *Sorter[T]) Sort() (*Iter[T], error) {
	slices.SortFunc(s.buf, s.cmp)
	return s.merger(true)
}

// merger merges the runs (and, with mem, the buffer).
func (s *Sorter[T]) merger(mem bool) (*Iter[T], error) {
	it := &Iter[T]{h: mergeHeap[T]{cmp: s.cmp}}
	for _, rn := range s.runs {
		if _, err := rn.f.Seek(0, io.SeekStart); err != nil {
			return nil, fmt.Errorf("sort spill: %w", err)
		}
		src := &fileSource[T]{r: bufio.NewReaderSize(rn.f, readBuf), codec: s.codec, buf: make([]byte, s.codec.Size)}
		if err := it.push(src); err != nil {
			return nil, err
		}
	}
	if mem {
		if err := it.push(&memSource[T]{recs: s.buf}); err != nil {
			return nil, err
		}
	}
	return it, nil
}

// Close removes the runs.
func (s *Sorter[T]) Close() {
	closeRuns(s.runs)
	s.runs, s.buf = nil, nil
}

func closeRuns(runs []*run) {
	for _, rn := range runs {
		rn.f.Close()
		if rn.name != "" {
			os.Remove(rn.name)
		}
	}
}

// source is a sorted sequence of records.
type source[T any] interface {
	next() (T, bool, error)
}

type memSource[T any] struct{ recs []T }

func (m *memSource[T]) next() (T, bool, error) {
	var zero T
	if len(m.recs) == 0 {
		return zero, false, nil
	}
	v := m.recs[0]
	m.recs = m.recs[1:]
	return v, true, nil
}

type fileSource[T any] struct {
	r     *bufio.Reader
	codec Codec[T]
	buf   []byte
}

func (f *fileSource[T]) next() (T, bool, error) {
	var zero T
	if _, err := io.ReadFull(f.r, f.buf); err != nil {
		if errors.Is(err, io.EOF) {
			return zero, false, nil
		}
		return zero, false, fmt.Errorf("sort spill: reading a run: %w", err)
	}
	return f.codec.Get(f.buf), true, nil
}

// Iter gives the records of several sorted sources in order.
type Iter[T any] struct{ h mergeHeap[T] }

// Next returns the next record; false at the end.
func (it *Iter[T]) Next() (T, bool, error) {
	var zero T
	h := &it.h
	if len(h.heads) == 0 {
		return zero, false, nil
	}
	top := &h.heads[0]
	v := top.v
	nv, ok, err := top.src.next()
	switch {
	case err != nil:
		return zero, false, err
	case ok:
		top.v = nv
		heap.Fix(h, 0)
	default:
		heap.Pop(h)
	}
	return v, true, nil
}

// push adds a source at its first record (an empty one is left out).
func (it *Iter[T]) push(src source[T]) error {
	v, ok, err := src.next()
	if ok {
		heap.Push(&it.h, head[T]{src: src, v: v})
	}
	return err
}

// next makes an Iter a source (to merge runs into one).
func (it *Iter[T]) next() (T, bool, error) { return it.Next() }

// mergeHeap orders the sources by their current record.
type mergeHeap[T any] struct {
	cmp   func(a, b T) int
	heads []head[T]
}

type head[T any] struct {
	src source[T]
	v   T
}

func (h *mergeHeap[T]) Len() int           { return len(h.heads) }
func (h *mergeHeap[T]) Less(i, j int) bool { return h.cmp(h.heads[i].v, h.heads[j].v) < 0 }
func (h *mergeHeap[T]) Swap(i, j int)      { h.heads[i], h.heads[j] = h.heads[j], h.heads[i] }
func (h *mergeHeap[T]) Push(x any)         { h.heads = append(h.heads, x.(head[T])) }
func (h *mergeHeap[T]) Pop() any {
	x := h.heads[len(h.heads)-1]
	h.heads = h.heads[:len(h.heads)-1]
	return x
}
