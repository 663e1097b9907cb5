package convert

import (
	"slices"
	"testing"
)

// TestDownThenUp: every corpus file that a server S here loads, converted
// for each other server here without losing anything (no drop, nothing
// lost in a re-encoding), and the result converted back for S, holds the
// data of the input (verify, which compares decoded values whatever their
// encoding). A conversion that loses something is counted, not compared.
func TestDownThenUp(t *testing.T) {
	loads := loaders(t)
	compared, lossy := 0, 0
	for _, cf := range small(t) {
		i := slices.IndexFunc(sourceOrder, func(s string) bool { return slices.Contains(loads[cf.Name], s) })
		if i < 0 {
			continue
		}
		own := sourceOrder[i]
		for _, j := range judges {
			if j.target == own {
				continue
			}
			down, rep, err := convertTo(t, cf.Path, j.target, nil)
			if err != nil || !rep.Lossless() {
				lossy++
				continue
			}
			up, _, err := convertTo(t, down, own, nil)
			if err != nil {
				t.Errorf("%s: back from %s to %s: %v", cf.Name, j.target, own, err)
				continue
			}
			t.Run(cf.Name+"/"+j.target, func(t *testing.T) { sameData(t, cf.Path, up) })
			compared++
		}
	}
	if compared == 0 {
		t.Skip("no corpus file converts without loss")
	}
	t.Logf("%d down-and-up conversions compared, %d refused or lossy not compared", compared, lossy)
}
