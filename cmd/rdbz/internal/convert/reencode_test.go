package convert

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

// TestReencodedKeysKeepTheirData converts the generated mixed-all-types
// dump (listpack hashes and sorted sets, quicklist 2 lists and type 19
// streams, which redis 6.2 reads only as ziplists, quicklists of ziplists
// and type 15 streams) for redis-6.2, dropping the function libraries it
// cannot hold, and loads input and output into redis 7.0 (it reads both):
// every key kept has the digest and expiry it had (a stream's metadata
// aside, which the report says was lost), and the report says how many
// keys were re-encoded.
func TestReencodedKeysKeepTheirData(t *testing.T) {
	in := filepath.Join(rdbiotest.Shared(), "corpus", "generated", "mixed-all-types.rdb")
	if _, err := os.Stat(in); err != nil {
		t.Skipf("generated corpus absent: %v", err)
	}
	drop := map[string]bool{"function": true, "stream2": true}
	out, rep, err := convertTo(t, in, "redis-6.2", drop)
	if err != nil {
		t.Fatal(err)
	}
	reencoded, kinds := 0, map[string]bool{}
	for _, it := range rep.Items {
		if it.Action == Reencoded {
			reencoded += int(it.Count)
			kinds[it.Kind] = true
		}
	}
	for _, k := range []string{"hash-listpack", "zset-listpack", "list-quicklist2", "stream2"} {
		if !kinds[k] {
			t.Errorf("no %s re-encoded: %+v", k, rep.Items)
		}
	}
	before, err := rdbiotest.JudgeKeys(t, "", in)
	if err != nil {
		t.Fatal(err)
	}
	after, err := rdbiotest.JudgeKeys(t, "", out)
	if err != nil {
		t.Fatalf("redis 7.0 refuses the output: %v", err)
	}
	form := keyForm(t, in)
	had := map[string]bool{}
	for _, l := range before.Keys {
		had[form(l)] = true
	}
	kept := 0
	for _, l := range after.Keys {
		if !had[form(l)] {
			t.Errorf("key line %q is not one of the input's", l)
		}
		kept++
	}
	if kept != int(rep.Keys) {
		t.Errorf("%d keys loaded, the report kept %d", kept, rep.Keys)
	}
	t.Logf("%d keys kept, %d re-encoded", kept, reencoded)
}
