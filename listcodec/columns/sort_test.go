package columns

import (
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

// sortedRecords are string records of large values under keys in no order.
func sortedRecords() []handRec {
	r := rand.New(rand.NewSource(2))
	recs := []handRec{{"magic", []byte("REDIS0011"), false, 0}}
	for _, i := range r.Perm(40) {
		v := strings.Repeat(fmt.Sprintf("file %d body ", i), 300)
		recs = append(recs, handRec{fmt.Sprint("doc ", i), cat([]byte{0}, rstrOf(fmt.Sprintf("doc:%03d", i)), rstrOf(v)), true, 0})
		if i%7 == 0 { // an expiry between, and a key with no value string
			recs = append(recs, handRec{"expiry", cat([]byte{0xFC}, make([]byte, 8)), false, 0})
		}
	}
	return recs
}

func TestSortedRole(t *testing.T) {
	recs := sortedRecords()
	seg, tt := splitOf(recs...)
	checkJoin(t, "sorted", seg, tt)
	n := 0
	for r := 1; r < MaxRoles; r++ {
		if len(seg.bufs[orderID(r)]) > 0 {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d sorted roles, want 1", n)
	}
	// Too few strings: not sorted.
	seg, tt = splitOf(recs[:10]...)
	checkJoin(t, "few", seg, tt)
	for r := 1; r < MaxRoles; r++ {
		if len(seg.bufs[orderID(r)]) > 0 {
			t.Fatalf("role %d sorted with 9 strings", r)
		}
	}
}

func TestSortedRoleHostile(t *testing.T) {
	seg, _ := splitOf(sortedRecords()...)
	r := 0
	for r = 1; len(seg.bufs[orderID(r)]) == 0; r++ {
	}
	order := seg.bufs[orderID(r)]
	lens := seg.bufs[lensID(r)]
	cases := []struct {
		name string
		edit func(s *Segment)
		msg  string
	}{
		{"index past the strings", func(s *Segment) { s.bufs[orderID(r)] = append([]byte{byte(len(order))}, order[1:]...) }, "order index"},
		{"index twice", func(s *Segment) { s.bufs[orderID(r)] = append([]byte{order[1]}, order[1:]...) }, "taken twice"},
		{"order short", func(s *Segment) { s.bufs[orderID(r)] = order[:len(order)-1] }, "stream"},
		{"order long", func(s *Segment) { s.bufs[orderID(r)] = append(append([]byte(nil), order...), 0) }, "left over"},
		{"lengths past the data", func(s *Segment) { s.bufs[lensID(r)] = append(append([]byte(nil), lens...), 5) }, "do not add up"},
		{"lengths short of the data", func(s *Segment) { s.bufs[lensID(r)] = lens[:len(lens)-2] }, "do not add up"},
	}
	for _, c := range cases {
		bad := *seg
		c.edit(&bad)
		_, err := Join(nil, &bad)
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: %v, want ErrCorrupt with %q", c.name, err, c.msg)
		}
	}
}
