package rdbio

import (
	"bytes"
	"errors"
	"io"
	"os"
	"testing"
)

// walkAll reads every record of r as an analysis does: list values node by
// node with their element counts, other values with Value.Count. A record
// rdbio cannot walk ends the walk with PassBody, which checks the trailer.
func walkAll(r *Reader) error {
	err := walkRecords(r)
	if errors.Is(err, ErrUnsupported) {
		_, err = r.PassBody()
	}
	return err
}

func walkRecords(r *Reader) error {
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if rec.Kind != KindKey {
			continue
		}
		if IsList(rec.Type) {
			_, _, err = countNodes(r)
		} else {
			_, err = r.Value().Count(nil)
		}
		if err != nil {
			return err
		}
	}
}

// countNodes walks the nodes of the pending list and sums their element
// counts (Nodes.Elements).
func countNodes(r *Reader) (sum int64, known bool, err error) {
	nodes, err := r.Value().Nodes()
	if err != nil {
		return 0, false, err
	}
	known = true
	for nodes.Next() {
		n, ok, err := nodes.Elements()
		if err != nil {
			return 0, false, err
		}
		sum, known = sum+n, known && ok
	}
	return sum, known, nodes.Err()
}

// TestCountValueIsCopyValue: on every corpus file, Value.Count sends each
// value the same bytes as Value.Copy does (they are one walk), and a list's
// element count equals the sum of its nodes' counts (Nodes.Elements).
func TestCountValueIsCopyValue(t *testing.T) {
	for _, cf := range corpusFiles(t) {
		if cf.CorruptByDesign() {
			continue
		}
		t.Run(cf.Name, func(t *testing.T) {
			data, err := os.ReadFile(cf.Path)
			if err != nil {
				t.Fatal(err)
			}
			copied, counted, nodes := newTestReader(t, data), newTestReader(t, data), newTestReader(t, data)
			var a, b bytes.Buffer
			values, lists := 0, 0
			for {
				rec, err := copied.Next()
				if err != nil { // the end, or where the grammar stops (covered elsewhere)
					t.Logf("%d values, %d of them lists", values, lists)
					return
				}
				if _, err := counted.Next(); err != nil {
					t.Fatalf("second reader: %v", err)
				}
				if _, err := nodes.Next(); err != nil {
					t.Fatalf("third reader: %v", err)
				}
				if rec.Kind != KindKey {
					continue
				}
				a.Reset()
				b.Reset()
				cerr := copied.Value().Copy(&a)
				info, nerr := counted.Value().Count(&b)
				if (cerr == nil) != (nerr == nil) || !bytes.Equal(a.Bytes(), b.Bytes()) {
					t.Fatalf("key %q: Copy %d bytes (%v), Count %d bytes (%v)", rec.Key, a.Len(), cerr, b.Len(), nerr)
				}
				values++
				if cerr != nil || !IsList(rec.Type) {
					continue
				}
				lists++
				sum, known, err := countNodes(nodes)
				if err != nil {
					t.Fatal(err)
				}
				if known != info.Known || (known && sum != info.Elements) {
					t.Fatalf("list %q: Count %+v, nodes %d (known %v)", rec.Key, info, sum, known)
				}
			}
		})
	}
}

func newTestReader(t *testing.T, data []byte) *Reader {
	t.Helper()
	r, err := NewReader(bytes.NewReader(data), Options{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}
