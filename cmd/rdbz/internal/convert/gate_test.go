package convert

import (
	"bytes"
	"errors"
	"testing"

	"github.com/rdbz/rdbz/rdbio"
)

// TestGateHoldsBounded: the gate refuses to hold more than its bound (a
// huge module aux record or function library is refused, not held), and
// holds and commits what fits.
func TestGateHoldsBounded(t *testing.T) {
	var out bytes.Buffer
	g := &gate{out: &out, max: 10}
	if _, err := g.Write([]byte("0123456789")); err != nil {
		t.Fatalf("10 bytes within a bound of 10: %v", err)
	}
	if err := g.commitAll(); err != nil || out.String() != "0123456789" {
		t.Fatalf("commit: %v, wrote %q", err, out.String())
	}
	if _, err := g.Write([]byte("0123456789")); err != nil {
		t.Fatal(err)
	}
	if _, err := g.Write([]byte("x")); !errors.Is(err, rdbio.ErrTooLarge) {
		t.Fatalf("an 11th held byte: err %v, want ErrTooLarge", err)
	}
}
