package lzf_test

import (
	"bytes"
	"os"
	"testing"

	"github.com/rdbz/rdbz/rdbio"
	"github.com/rdbz/rdbz/rdbio/lzf"
	"github.com/rdbz/rdbz/rdbio/rdbiotest"
	"github.com/rdbz/rdbz/rdbio/rdbiotest/redislzf"
)

// TestLZFReproducesCorpusNodes: every LZF list node that Redis 7.0 wrote in
// the generated corpus is reproduced byte for byte by Encoder (with a
// budget that never binds, as quicklist's in-memory compression and
// rdbSaveRawString both produce the same stream when it fits). Public files
// are counted too; older liblzf output (Redis ≤ 3.0) may differ, which
// compress handles by keeping such nodes.
func TestLZFReproducesCorpusNodes(t *testing.T) {
	var enc lzf.Encoder
	var raw, out []byte
	total := map[string][2]int{}
	for _, cf := range rdbiotest.Files(t) {
		f, err := os.Open(cf.Path)
		if err != nil {
			t.Fatal(err)
		}
		same, diff := 0, 0
		err = rdbio.ForEachNode(f, rdbio.Options{IgnoreChecksum: true}, func(_ []byte, n *rdbio.Node) (bool, error) {
			if n.Enc != rdbio.EncLZF || n.Data == nil {
				return true, nil
			}
			raw, err = lzf.Decode(raw[:0], n.Data, int(n.ULen))
			if err != nil {
				return false, err
			}
			out, _ = enc.Encode(out[:0], raw, len(raw)+len(raw)/16+64)
			if bytes.Equal(out, n.Data) {
				same++
			} else {
				diff++
			}
			return true, nil
		})
		f.Close()
		if err != nil && !cf.CorruptByDesign() {
			t.Fatalf("%s: %v", cf.Name, err)
		}
		if cf.Folder == "generated" && diff > 0 {
			t.Errorf("%s: %d of %d LZF nodes not reproduced", cf.Name, diff, same+diff)
		}
		c := total[cf.Folder]
		total[cf.Folder] = [2]int{c[0] + same, c[1] + diff}
	}
	if total["generated"][0] == 0 {
		t.Fatal("no LZF nodes found in the generated corpus")
	}
	t.Logf("LZF list nodes reproduced byte for byte: generated %d of %d; public %d of %d",
		total["generated"][0], total["generated"][0]+total["generated"][1],
		total["public"][0], total["public"][0]+total["public"][1])
}

// TestLZFReproducesCorpusStrings: every LZF string of the generated
// corpus — keys, values, blobs, set and hash members, list nodes — is what
// one Encoder, used for all of them in turn (its table never cleared),
// makes of its decoded bytes: the table's leftovers change nothing on real
// inputs either (see lzf.Encoder).
func TestLZFReproducesCorpusStrings(t *testing.T) {
	total := 0
	for _, cf := range rdbiotest.Generated(t, 1<<40) {
		d, err := redislzf.LZFStrings(cf.Path)
		if err != nil {
			t.Fatalf("%s: %v", cf.Name, err)
		}
		if d.Unfaithful > 0 {
			t.Errorf("%s: %d LZF strings not reproduced", cf.Name, d.Unfaithful)
		}
		total += len(d.Items)
	}
	if total == 0 {
		t.Fatal("no LZF strings in the generated corpus")
	}
	t.Logf("%d LZF strings reproduced byte for byte", total)
}
