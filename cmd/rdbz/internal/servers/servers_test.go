package servers

import (
	"slices"
	"testing"

	"github.com/rdbz/rdbz/rdbio"
)

// TestLookup: every name Names gives is found, the alias included, and
// an unknown one is not.
func TestLookup(t *testing.T) {
	names := Names()
	if !slices.Contains(names, "redis-8.0") || len(names) != len(All())+1 {
		t.Fatalf("names %v", names)
	}
	for _, n := range names {
		s, ok := Lookup(n)
		if !ok || (s.Name() != n && n != "redis-8.0") {
			t.Errorf("Lookup(%q) = %q, %v", n, s.Name(), ok)
		}
	}
	if s, _ := Lookup("redis-8.0"); s.Name() != "redis-8.0..8.4" {
		t.Errorf("redis-8.0 is %q", s.Name())
	}
	if _, ok := Lookup("redis-5.0"); ok {
		t.Error("redis-5.0 found")
	}
	if d, _ := Lookup("dragonfly"); !d.Dragonfly() || d.ReadsType(rdbio.TypeList) {
		t.Error("dragonfly reads linked lists?")
	}
}

// TestStreamFieldsLost: each older stream type loses the fields every newer
// type added, and nothing is lost to the same type.
func TestStreamFieldsLost(t *testing.T) {
	for _, c := range []struct {
		from, to rdbio.Type
		want     string
	}{
		{rdbio.TypeStream3, rdbio.TypeStream3, ""},
		{rdbio.TypeStream2, rdbio.TypeStreamListpacks, "first-id, max-deleted-entry-id and entries-added; groups' entries-read"},
		{rdbio.TypeStream3, rdbio.TypeStream2, "consumers' active-time"},
		{rdbio.TypeStream5, rdbio.TypeStream3, "idempotent-producer (IDMP) state; nacked IDs"},
		{rdbio.TypeStream5, rdbio.TypeStreamListpacks, "first-id, max-deleted-entry-id and entries-added; groups' entries-read; consumers' active-time; idempotent-producer (IDMP) state; nacked IDs"},
	} {
		if got := StreamFieldsLost(c.from, c.to); got != c.want {
			t.Errorf("%v -> %v: %q, want %q", c.from, c.to, got, c.want)
		}
	}
}
