package v1

import (
	"bytes"
	"os"
	"testing"

	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

// TestCorruptByDesign names what compress does with each deliberately
// broken corpus file: it fails cleanly, or — when the damage lies inside a
// value rdbz does not re-encode — the file passes through and comes back
// byte-identical.
func TestCorruptByDesign(t *testing.T) {
	seen := 0
	for _, cf := range rdbiotest.Sweep(t) {
		if !cf.CorruptByDesign() {
			continue
		}
		seen++
		in, err := os.ReadFile(cf.Path)
		if err != nil {
			t.Fatal(err)
		}
		comp, _, err := compressFile(t, cf.Path, CompressOptions{Flow: Flow{Workers: 2}, Verify: true})
		if err != nil {
			t.Logf("%-45s compress fails cleanly: %v", cf.Name, err)
			continue
		}
		if back := decompressBytes(t, comp, ToOriginal); !bytes.Equal(back, in) {
			t.Fatalf("%s: compressed, but does not come back byte-identical", cf.Name)
		}
		t.Logf("%-45s passes through (damage inside values rdbz does not re-encode); round trip byte-identical", cf.Name)
	}
	if seen == 0 {
		t.Skip("no corrupt-by-design files in the corpus")
	}
}
