package convert

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rdbz/rdbz/cmd/rdbz/internal/servers"
	"github.com/rdbz/rdbz/rdbio"
	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

// damageSeeds are files whose values convert re-encodes for some target:
// the crafted ones, and the small corpus files holding newer streams,
// hashes with field expiry, listpacks or old list types.
func damageSeeds(t testing.TB) [][]byte {
	seeds := [][]byte{}
	for _, name := range []string{"librdb__stream_v11.rdb", "librdb__stream_v13.rdb", "redis-replicator__dump-ttlhash__b02ce7a.rdb",
		"hdt3213-rdb__valkey_hash2_with_hfe.rdb", "librdb__hash_with_expire_v12.rdb", "redis-rdb-cli__rdt_34__7f1c027.rdb",
		"hdt3213-rdb__zipmap_big_len.rdb", "librdb__100_lists.rdb"} {
		b, err := os.ReadFile(filepath.Join(rdbiotest.Shared(), "corpus", "public", name))
		if err == nil && len(b) <= 64<<10 {
			seeds = append(seeds, b)
		}
	}
	return seeds
}

// convertDamaged converts data for each of targets: it must not panic,
// and a failure other than a refusal must name an offset.
func convertDamaged(t *testing.T, data []byte, targets []string) {
	for _, target := range targets {
		var out bytes.Buffer
		_, err := Convert(t.Context(), &out, bytes.NewReader(data), Options{Options: rdbio.Options{Cap: 1 << 16}, Target: target, Drop: dropAll()})
		var re *rdbio.Error
		if err != nil && !errors.Is(err, ErrRefused) && !errors.As(err, &re) && !strings.Contains(err.Error(), "offset ") {
			t.Fatalf("%s: error naming no offset: %v", target, err)
		}
	}
}

// TestConvertDamaged: prefixes of the seeds, and the seeds with one byte
// changed, at 40 positions each, convert (for the oldest redis, the
// newest, Dragonfly and valkey 9: every re-encoding runs) or fail naming
// an offset, without a panic. FuzzConvert goes further.
func TestConvertDamaged(t *testing.T) {
	seeds := append(damageSeeds(t), expiringFile(t))
	targets := []string{"redis-6.2", "redis-8.6", "dragonfly", "valkey-9"}
	for _, b := range seeds {
		step := max(1, len(b)/40)
		for n := 0; n < len(b); n += step {
			convertDamaged(t, b[:n], targets)
			d := bytes.Clone(b)
			d[n] ^= 0x5a
			convertDamaged(t, d, targets)
		}
	}
}

// FuzzConvert feeds arbitrary bytes to Convert for every target.
func FuzzConvert(f *testing.F) {
	for _, b := range damageSeeds(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) { convertDamaged(t, data, servers.Names()) })
}
