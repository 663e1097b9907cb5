package rdbio

import (
	"bytes"
	"errors"
	"io"
	"os"
	"testing"

	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

// visitAll walks a file with VisitValue for every value but lists, and
// returns each value's ValueInfo and end offset, and the strings reported.
func visitAll(r *Reader, visit bool) (infos []ValueInfo, ends []int64, strs int64, err error) {
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) || errors.Is(err, ErrUnsupported) {
			return infos, ends, strs, nil
		}
		if err != nil {
			return infos, ends, strs, err
		}
		if rec.Kind != KindKey || IsList(rec.Type) {
			continue
		}
		var vi ValueInfo
		if visit {
			vi, err = r.Value().Visit(func(e *Elem) error {
				if e.Kind == ElemString {
					strs++
				}
				return nil
			})
		} else {
			vi, err = r.Value().Count(nil)
		}
		if err != nil {
			return infos, ends, strs, err
		}
		vi.MaxStringLen = 0
		infos, ends = append(infos, vi), append(ends, r.Offset())
	}
}

// TestVisitValueWalksAsCountValue: on every corpus file, VisitValue ends
// each value where CountValue does and tells the same counts, and reports
// at least one string per counted element of the collections it visits.
func TestVisitValueWalksAsCountValue(t *testing.T) {
	for _, cf := range rdbiotest.Files(t) {
		t.Run(cf.Name, func(t *testing.T) {
			data, err := os.ReadFile(cf.Path)
			if err != nil {
				t.Fatal(err)
			}
			walk := func(visit bool) ([]ValueInfo, []int64, int64, error) {
				r, err := NewReader(bytes.NewReader(data), Options{})
				if err != nil {
					return nil, nil, 0, err
				}
				return visitAll(r, visit)
			}
			ci, ce, _, cerr := walk(false)
			vi, ve, strs, verr := walk(true)
			if (cerr == nil) != (verr == nil) || len(ci) != len(vi) {
				t.Fatalf("CountValue: %d values, %v; VisitValue: %d values, %v", len(ci), cerr, len(vi), verr)
			}
			var elems int64
			for i := range ci {
				if ci[i] != vi[i] || ce[i] != ve[i] {
					t.Fatalf("value %d: CountValue %+v to %d, VisitValue %+v to %d", i, ci[i], ce[i], vi[i], ve[i])
				}
				elems += vi[i].Elements
			}
			if len(vi) > 0 && strs == 0 && elems > 0 && cf.Name == "mixed-all-types.rdb" {
				t.Fatal("no string reported")
			}
		})
	}
}

// FuzzVisitValue: VisitValue on arbitrary bytes never panics.
func FuzzVisitValue(f *testing.F) {
	rdbiotest.FuzzSeeds(f, "../testdata")
	f.Fuzz(func(t *testing.T, data []byte) {
		if r, err := NewReader(bytes.NewReader(data), Options{Cap: 1 << 20}); err == nil {
			_, _, _, _ = visitAll(r, true)
		}
	})
}
