package rdbio

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

// FuzzReader feeds arbitrary bytes to the reader: it must never panic,
// whatever it copies without error must come out byte-identical, and Check
// must say what Copy says. Seeds: the small corpus files and testdata.
func FuzzReader(f *testing.F) {
	rdbiotest.FuzzSeeds(f, "../testdata")
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := NewReader(bytes.NewReader(data), Options{Cap: 1 << 20})
		if err == nil {
			walkAll(r)
		}
		var out bytes.Buffer
		n, err := Copy(&out, bytes.NewReader(data), Options{Cap: 1 << 20})
		if err == nil && !bytes.Equal(out.Bytes(), data) {
			t.Fatalf("copy succeeded but differs: %d bytes in, %d out", len(data), out.Len())
		}
		// Check, which writes nothing, says what Copy says.
		cn, cerr := Check(bytes.NewReader(data), Options{Cap: 1 << 20})
		if fmt.Sprint(cerr) != fmt.Sprint(err) || err == nil && cn != n {
			t.Fatalf("Check: %d, %v; Copy: %d, %v", cn, cerr, n, err)
		}
	})
}

// FuzzKeep feeds arbitrary bytes to a filtered copy that leaves out every
// other key: it must never panic, and what it copies without error must
// read back whole, holding the keys it kept. Seeds: as FuzzReader's.
func FuzzKeep(f *testing.F) {
	rdbiotest.FuzzSeeds(f, "../testdata")
	f.Fuzz(func(t *testing.T, data []byte) {
		n := 0
		keep := func(*Record) bool { n++; return n%2 == 0 }
		var out bytes.Buffer
		_, left, err := CopyFiltered(&out, bytes.NewReader(data), Options{Cap: 1 << 20}, keep)
		if err != nil {
			return
		}
		r, err := NewReader(bytes.NewReader(out.Bytes()), Options{Cap: 1 << 20})
		if err != nil {
			t.Fatalf("the filtered copy does not read: %v", err)
		}
		var keys int64
		for {
			rec, err := r.Next()
			if err != nil {
				t.Fatalf("the filtered copy does not read back: %v", err)
			}
			if rec.Kind == KindEOF {
				break
			}
			if rec.Kind == KindKey {
				keys++
			}
		}
		if keys != left.Kept || left.Kept+left.LeftOut != int64(n) {
			t.Fatalf("%d keys read back, %+v kept of %d", keys, left, n)
		}
	})
}

// TestStreamGroupNameIntCut: a file the fuzzer found (a stream whose
// consumer-group name is an integer-encoded string cut short by the end of
// the input) is a clean error naming the offset where the input ends, on
// every way of reading a value (Value.Count and Value.Visit stop earlier, at
// the stream's listpack, which they decode); Next made IntValue index an
// empty slice.
func TestStreamGroupNameIntCut(t *testing.T) {
	data := append([]byte("REDIS0001\x0f\x040000\x01\x00\xc3@\xa1"), bytes.Repeat([]byte{'0'}, 166)...)
	data = append(data, 0xC0)
	check := func(how string, err error) {
		t.Helper()
		var re *Error
		if !errors.As(err, &re) || re.Offset <= 0 || re.Offset > int64(len(data)) || !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %v, want a corrupt rdbio.Error naming an offset up to %d", how, err, len(data))
		}
		if how == "next" || how == "copy" { // the group name is read, to the end
			if re.Offset != int64(len(data)) {
				t.Errorf("%s: offset %d, want %d", how, re.Offset, len(data))
			}
		}
	}
	for _, how := range []string{"next", "count", "visit"} {
		r, err := NewReader(bytes.NewReader(data), Options{})
		if err != nil {
			t.Fatal(err)
		}
		rec, err := r.Next()
		for err == nil && rec.Kind != KindKey {
			rec, err = r.Next()
		}
		if err != nil {
			t.Fatalf("%s: %v before the key", how, err)
		}
		switch how {
		case "next":
			_, err = r.Next()
		case "count":
			_, err = r.Value().Count(nil)
		case "visit":
			_, err = r.Value().Visit(func(*Elem) error { return nil })
		}
		check(how, err)
	}
	_, err := Copy(io.Discard, bytes.NewReader(data), Options{})
	check("copy", err)
}
