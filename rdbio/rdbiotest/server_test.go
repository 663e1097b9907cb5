package rdbiotest

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMain(m *testing.M) { os.Exit(Main(m)) }

// TestDigestEqualsOracle: the shared server says what rdb-oracle says, on
// files it loads (several dbs, expiries, no keys, all types) and on files
// redis refuses, with and without crashing; a refusal that kills the server
// does not stop the next load. RDBZ_LONG=1 compares every corpus file.
func TestDigestEqualsOracle(t *testing.T) {
	names := map[string]bool{
		"rdb-rs__multidb-skipping.rdb":              true, // two dbs
		"hdt3213-rdb__memory.rdb":                   true, // expiries, an expired key
		"redis-rdb-tools__keys_with_expiry.rdb":     true, // every key expired: empty
		"redis-rdb-cli__rdt_12.rdb":                 true, // duplicate key: redis crashes
		"mixed-all-types.rdb":                       true,
		"hdt3213-rdb__zipmap_big_len.rdb":           true, // integrity check: refused, redis stays
		"librdb__hash_zl_v6.rdb":                    true,
		"librdb__single_key.rdb":                    true, // RDB 11: refused, redis stays
		"hdt3213-rdb__valkey_cluster_slot_info.rdb": true, // wrong signature
		"dragonfly__hll.rdb":                        true,
	}
	seen := 0
	for _, cf := range Files(t) {
		if !names[cf.Name] && !Long() {
			continue
		}
		seen++
		t.Run(cf.Name, func(t *testing.T) {
			t.Parallel() // rdb-oracle mostly waits; Digest takes turns
			want, werr := Oracle(t, cf.Path)
			got, gerr := Digest(t, cf.Path)
			var oe *OracleError
			if werr != nil && !errors.As(werr, &oe) {
				t.Fatalf("rdb-oracle: %v", werr)
			}
			if (werr == nil) != (gerr == nil) || got != want {
				t.Fatalf("shared server: %q, %v\nrdb-oracle:    %q, %v", got, gerr, want, werr)
			}
			if gerr != nil {
				reason := strings.TrimPrefix(cf.Fields["redis70_loads"], "refused: ")
				reason = strings.TrimSuffix(reason, " (redis crashed)")
				if !strings.Contains(gerr.Error(), reason) {
					t.Errorf("refusal %q does not say %q (the manifest's reason)", gerr, reason)
				}
				t.Logf("refused: %v", gerr)
			}
		})
	}
	if seen < len(names) {
		t.Fatalf("%d of the %d files compared are in the corpus", seen, len(names))
	}
}

// TestDigestSeesChanges: a file rewritten between two calls is reloaded,
// not taken from the cache (which holds corpus originals only).
func TestDigestSeesChanges(t *testing.T) {
	var a, b string
	for _, cf := range Files(t) {
		switch cf.Name {
		case "rdb-rs__multidb-skipping.rdb":
			a = cf.Path
		case "librdb__hash_zl_v6.rdb":
			b = cf.Path
		}
	}
	if a == "" || b == "" {
		t.Fatal("corpus files missing")
	}
	p := filepath.Join(t.TempDir(), "x.rdb")
	var outs []string
	for _, src := range []string{a, b} {
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := Digest(t, p)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := Digest(t, src)
		if got != want {
			t.Fatalf("copy of %s: %q, original %q", src, got, want)
		}
		outs = append(outs, got)
	}
	if outs[0] == outs[1] {
		t.Fatalf("two different files, one answer: %q", outs[0])
	}
}
