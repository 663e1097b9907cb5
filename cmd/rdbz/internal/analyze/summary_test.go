package analyze

import (
	"errors"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/rdbz/rdbz/rdbio"
)

// TestSummaryKeysMatchManifest checks that the key records counted equal
// the manifest's file_keys (a real redis-server loading the file as a
// replica) for every file redis 7.0 loads.
func TestSummaryKeysMatchManifest(t *testing.T) {
	for _, cf := range corpusFiles(t) {
		name := filepath.Base(cf.Path)
		t.Run(name, func(t *testing.T) {
			r := openReader(t, cf.Path)
			s, err := Summarize(r, nil)
			loads := cf.Fields["redis70_loads"]
			if loads == "" {
				loads = "yes" // generated files are all saved by redis 7.0
			}
			if loads != "yes" {
				t.Logf("redis 7.0 refuses it (%s); rdbz: keys=%d err=%v", loads, s.Keys, err)
				return
			}
			if err != nil && !errors.Is(err, rdbio.ErrChecksum) {
				t.Fatalf("summarize: %v", err)
			}
			want, err := strconv.Atoi(cf.Fields["file_keys"])
			if err != nil {
				t.Fatalf("manifest file_keys %q: %v", cf.Fields["file_keys"], err)
			}
			if cf.CorruptByDesign() {
				// redis' corrupt_empty_keys files hold empty collections
				// that a loading server drops; rdbz counts key records.
				if s.Keys < int64(want) {
					t.Fatalf("keys = %d, fewer than manifest file_keys = %d", s.Keys, want)
				}
				t.Logf("corrupt by design: %d key records, redis keeps %d", s.Keys, want)
				return
			}
			if s.Keys != int64(want) {
				t.Fatalf("keys = %d, manifest file_keys = %d", s.Keys, want)
			}
		})
	}
}
