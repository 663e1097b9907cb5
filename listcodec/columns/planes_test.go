package columns

import (
	"bytes"
	"encoding/binary"
	"math/rand"
	"testing"
)

func TestPlanes(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for _, n := range []int{0, 1, 2, 100, 10000} {
		var b []byte
		for range n {
			b = binary.AppendUvarint(b, r.Uint64()>>(r.Intn(64)))
		}
		p := toPlanes(nil, b)
		got, err := fromPlanes(make([]byte, 0, len(b)), p, len(b))
		if err != nil || !bytes.Equal(got, b) {
			t.Fatalf("%d uvarints: %v", n, err)
		}
		for cut := 0; cut < len(p); cut += 1 + len(p)/50 {
			if _, err := fromPlanes(make([]byte, 0, len(b)), p[:cut], len(b)); err == nil {
				t.Fatalf("%d uvarints cut at %d: no error", n, cut)
			}
		}
	}
	// A plane that never ends.
	if _, err := fromPlanes(nil, []byte{1, 0x80}, 1); err == nil {
		t.Fatal("an unfinished uvarint: no error")
	}
	if _, err := fromPlanes(nil, append([]byte{1}, bytes.Repeat([]byte{0x80}, 10)...), 10); err == nil {
		t.Fatal("an 11-byte uvarint: no error")
	}
}
