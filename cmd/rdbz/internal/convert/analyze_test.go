package convert

import (
	"bytes"
	"errors"
	"io"
	"os"
	"slices"
	"testing"

	"github.com/rdbz/rdbz/cmd/rdbz/internal/analyze"
	"github.com/rdbz/rdbz/cmd/rdbz/internal/servers"
	"github.com/rdbz/rdbz/rdbio"
)

// analyzeBytes is analyze's compatibility verdict per server for a file.
func analyzeBytes(t *testing.T, b []byte) map[string]analyze.Compat {
	t.Helper()
	r, err := rdbio.NewReader(bytes.NewReader(b), rdbio.Options{})
	if err != nil {
		t.Fatal(err)
	}
	a, err := analyze.Analyze(r, analyze.Options{})
	if err != nil && !errors.Is(err, rdbio.ErrChecksum) {
		t.Fatalf("analyze: %v", err)
	}
	out := map[string]analyze.Compat{}
	for _, c := range a.Compat {
		out[c.Server] = c
	}
	return out
}

// TestConvertAgreesWithAnalyze: on every corpus file and for every target
// (Dragonfly and the servers not here included), where analyze names
// convert as the fix, convert succeeds without a drop, and its report says
// something was lost exactly where the fix says it loses something; and whatever convert
// writes (dropping what it must), analyze says the target loads — the
// check of the targets no server here judges.
func TestConvertAgreesWithAnalyze(t *testing.T) {
	for _, cf := range small(t) {
		in, err := os.ReadFile(cf.Path)
		if err != nil {
			t.Fatal(err)
		}
		before := analyzeBytes(t, in)
		for _, target := range servers.Names() {
			tg, _ := servers.Lookup(target)
			if tg.Name() != target || before[target].Causes == nil {
				continue // an alias; or a file analyze could not judge
			}
			var out bytes.Buffer
			drop := map[string]bool{}
			for _, k := range before[target].FixDrops {
				drop[k] = true
			}
			if len(drop) > 0 {
				// A loss not accepted by --drop is refused.
				if _, err := Convert(t.Context(), io.Discard, bytes.NewReader(in), Options{Target: target}); !errors.Is(err, ErrRefused) {
					t.Errorf("%s for %s without --drop %v: %v; want a refusal", cf.Name, target, before[target].FixDrops, err)
				}
			}
			rep, err := Convert(t.Context(), &out, bytes.NewReader(in), Options{Target: target, Drop: drop})
			if fix := before[target]; fix.Fix != "" && err != nil {
				t.Errorf("%s: analyze says %q; convert: %v", cf.Name, fix.Fix, err)
				continue
			} else if fix.Fix != "" && (fix.FixLoses == "") != lostNothing(rep) {
				t.Errorf("%s for %s: analyze says the fix loses %q; convert's report: %+v", cf.Name, target, fix.FixLoses, rep.Items)
			}
			if err != nil {
				out.Reset()
				if _, err = Convert(t.Context(), &out, bytes.NewReader(in), Options{Target: target, Drop: dropAll()}); err != nil {
					if !errors.Is(err, rdbio.ErrUnsupported) && !errors.Is(err, rdbio.ErrChecksum) {
						t.Errorf("%s for %s with every kind dropped: %v", cf.Name, target, err)
					}
					continue
				}
			}
			if v := analyzeBytes(t, out.Bytes())[target]; !v.Loads && !carried(v, before[target]) {
				t.Errorf("%s converted for %s: analyze says it does not load: %+v", cf.Name, target, v.Causes)
			}
		}
	}
}

// carried reports whether every fatal cause of after was a cause of
// before: damage in the data (duplicate keys, broken blobs), which convert
// passes on as it is.
func carried(after, before analyze.Compat) bool {
	for _, c := range after.Causes {
		if c.Fatal && !slices.ContainsFunc(before.Causes, func(b analyze.Cause) bool { return b.Cause == c.Cause }) {
			return false
		}
	}
	return true
}
