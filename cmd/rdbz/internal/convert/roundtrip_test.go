package convert

import (
	"bytes"
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

// TestConvertToOwnServer: every corpus file that redis 7.0 does not load
// but another server here does converts for that server (the newest
// that loads it) into the same bytes, which verify calls equal to the
// input (TestConvertToOwnVersion does the files redis 7.0 loads, with its
// digest).
func TestConvertToOwnServer(t *testing.T) {
	loads := loaders(t)
	for _, cf := range small(t) {
		if cf.RedisLoads() {
			continue
		}
		own := ""
		for _, j := range judges {
			if slices.Contains(loads[cf.Name], j.target) {
				own = j.target // judges go oldest first: the newest wins
			}
		}
		if own == "" {
			continue
		}
		t.Run(cf.Name, func(t *testing.T) {
			out, rep, err := convertTo(t, cf.Path, own, nil)
			if err != nil || !rep.Lossless() {
				t.Fatalf("for %s: %v, %+v", own, err, rep)
			}
			if !bytes.Equal(readFile(t, cf.Path), readFile(t, out)) {
				t.Fatalf("the output for %s differs from the input", own)
			}
			sameData(t, cf.Path, out)
		})
	}
}
