package rdbio

import (
	"bytes"
	"errors"
	"slices"
	"testing"
)

// handleFile is an RDB of a string key "s", then a quicklist 2 "l" of two
// PACKED nodes, then a string key "t".
func handleFile() []byte {
	b := []byte("REDIS0011")
	b = AppendAux(b, []byte("redis-ver"), []byte("7.2.0"))
	b = append(b, OpSelectDB, 0, TypeString, 1, 's', 1, 'v')
	b = append(b, TypeListQuicklist2, 1, 'l', 2)
	lp := []byte{11, 0, 0, 0, 1, 0, 0x81, 'a', 2, 0xFF} // a listpack of "a"
	for range 2 {
		b = append(b, 2, byte(len(lp)))
		b = append(b, lp...)
	}
	b = append(b, TypeString, 1, 't', 1, 'w', OpEOF)
	return append(b, make([]byte, 8)...) // checksum 0
}

// TestValueHandle: a value is read once through its handle; a second use,
// a use after Next, a use of a non-key record's handle, and a node walk
// after Next are ErrValueUsed, and what was not read is skipped by Next.
func TestValueHandle(t *testing.T) {
	r, err := NewReader(bytes.NewReader(handleFile()), Options{})
	if err != nil {
		t.Fatal(err)
	}
	used := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, ErrValueUsed) {
			t.Errorf("%s: err %v, want ErrValueUsed", what, err)
		}
	}
	next := func() *Record {
		t.Helper()
		rec, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		return rec
	}
	aux := next()
	if aux.Kind != KindAux {
		t.Fatalf("first record %v: want an AUX record", aux.Kind)
	}
	used("Copy on an AUX record", r.Value().Copy(nil))
	next() // SELECTDB
	rec := next()
	if rec.Kind != KindKey || rec.Type != TypeString || rec.Type.String() != "string" {
		t.Fatalf("record %v of type %v, want the string key", rec.Kind, rec.Type)
	}
	v := r.Value()
	info, err := v.Count(nil)
	if err != nil || info.Elements != 1 {
		t.Fatalf("Count: %+v, %v", info, err)
	}
	_, err = v.Count(nil)
	used("a second Count", err)
	used("Copy after Count", r.Value().Copy(nil))

	rec = next()
	if rec.Type != TypeListQuicklist2 {
		t.Fatalf("type %v, want list-quicklist2", rec.Type)
	}
	nodes, err := r.Value().Nodes()
	if err != nil || nodes.Len() != 2 {
		t.Fatalf("Nodes: %v nodes, %v", nodes.Len(), err)
	}
	_, err = r.Value().Count(nil)
	used("Count during a node walk", err)
	if !nodes.Next() {
		t.Fatal(nodes.Err())
	}
	if n, ok, err := nodes.Elements(); n != 1 || !ok || err != nil {
		t.Fatalf("Elements: %d %v %v", n, ok, err)
	}
	// The second node is left to Next.
	if rec := next(); string(rec.Key) != "t" {
		t.Fatalf("key %q after the list, want t", rec.Key)
	}
	if nodes.Next() || !errors.Is(nodes.Err(), ErrValueUsed) {
		t.Errorf("Nodes.Next after Next: err %v, want ErrValueUsed", nodes.Err())
	}
	_, _, err = nodes.Elements()
	used("Nodes.Elements after Next", err)
	used("the old handle after Next", v.Copy(nil))
	if rec := next(); rec.Kind != KindEOF {
		t.Fatalf("%v, want the EOF record", rec.Kind)
	}
}

// TestTypeFixedAtFirstKey: the producer that decides what a type byte
// means is fixed at the first key: a Dragonfly type later does not turn a
// REDIS0009 file's type 20 into Dragonfly's old JSON, while an AUX df-ver
// before the first key does.
func TestTypeFixedAtFirstKey(t *testing.T) {
	lp := []byte{11, 0, 0, 0, 1, 0, 0x81, 'a', 2, 0xFF}
	setLP := append([]byte{TypeSetListpack, 1, 's', byte(len(lp))}, lp...)
	file := func(aux bool) []byte {
		b := []byte("REDIS0009")
		if aux {
			b = AppendAux(b, []byte("df-ver"), []byte("v1.6.0"))
		}
		b = append(b, OpSelectDB, 0)
		if !aux {
			b = append(b, TypeDflyJSON, 1, 'j', 2, '{', '}') // Dragonfly's JSON
			b = append(b, setLP...)
		} else {
			b = append(b, TypeSetListpack, 1, 'j', 2, '{', '}')
		}
		return append(append(b, OpEOF), make([]byte, 8)...)
	}
	for _, tc := range []struct {
		aux  bool
		want []Type
	}{{false, []Type{TypeDflyJSON, TypeSetListpack}}, {true, []Type{TypeDflyJSONOld}}} {
		r, err := NewReader(bytes.NewReader(file(tc.aux)), Options{})
		if err != nil {
			t.Fatal(err)
		}
		var got []Type
		for {
			rec, err := r.Next()
			if err != nil {
				t.Fatal(err)
			}
			if rec.Kind == KindEOF {
				break
			}
			if rec.Kind == KindKey {
				got = append(got, rec.Type)
			}
		}
		if !slices.Equal(got, tc.want) || !r.Dragonfly() {
			t.Errorf("df-ver %v: types %v (Dragonfly %v), want %v", tc.aux, got, r.Dragonfly(), tc.want)
		}
	}
	if TypeDflyJSONOld.String() != "json" || TypeDflyJSONOld.Byte() != TypeSetListpack || TypeHash2.Byte() != 22 {
		t.Errorf("variant names or bytes: %v %d %d", TypeDflyJSONOld, TypeDflyJSONOld.Byte(), TypeHash2.Byte())
	}
}
