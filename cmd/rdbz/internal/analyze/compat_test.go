package analyze

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/rdbz/rdbz/listcodec/format"
	"github.com/rdbz/rdbz/listcodec/node"
	"github.com/rdbz/rdbz/listcodec/v1"
	"github.com/rdbz/rdbz/rdbio"
	"github.com/rdbz/rdbz/rdbio/lzf"
	"github.com/rdbz/rdbz/rdbio/rdbiotest"
	"github.com/rdbz/rdbz/train"
)

func analyzePath(t testing.TB, path string) *Analysis {
	t.Helper()
	r := openReader(t, path)
	a, err := Analyze(r, Options{})
	if err != nil && !errors.Is(err, rdbio.ErrChecksum) {
		t.Fatalf("analyze %s: %v", path, err)
	}
	return a
}

// TestAnalyzeKeysMatchRedis: on every corpus file redis 7.0 loads, the
// keys and expiries per db, and the keys per type family, equal what
// redis-server holds after loading it — less the keys whose TTL is already
// past, which a master drops while loading.
func TestAnalyzeKeysMatchRedis(t *testing.T) {
	for _, cf := range rdbiotest.Sweep(t) {
		if !cf.RedisLoads() || cf.CorruptByDesign() {
			continue
		}
		t.Run(cf.Name, func(t *testing.T) {
			a := analyzePath(t, cf.Path)
			redis, err := rdbiotest.LiveKeys(t, cf.Path)
			if err != nil {
				t.Fatalf("redis-server: %v", err)
			}
			byDB, byFamily := expired(t, cf.Path, time.Now().UnixMilli())
			got := map[uint64][2]int64{}
			for _, d := range a.DBs {
				e := byDB[d.DB]
				if n := [2]int64{d.Keys - e, d.Expires - e}; n[0] > 0 {
					got[d.DB] = n
				}
			}
			if !equalMaps(got, redis.PerDB) {
				t.Fatalf("live keys, expires per db: rdbz %v, redis %v (expired now, left out: %v)", got, redis.PerDB, byDB)
			}
			ours := map[string]int64{}
			for _, ts := range a.TypeStats {
				ours[ts.Family] += ts.Keys
			}
			for fam, n := range byFamily {
				ours[fam] -= n
			}
			for fam, n := range ours {
				if n == 0 {
					delete(ours, fam)
				}
			}
			if !equalMaps(ours, redis.Types) {
				t.Fatalf("live keys per type: rdbz %v, redis %v (expired now, left out: %v)", ours, redis.Types, byFamily)
			}
		})
	}
}

func equalMaps[K comparable, V comparable](a, b map[K]V) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// expired counts the key records whose TTL is past at nowMs, per db and
// per type family.
func expired(t *testing.T, path string, nowMs int64) (map[uint64]int64, map[string]int64) {
	r := openReader(t, path)
	byDB, byFamily := map[uint64]int64{}, map[string]int64{}
	for {
		rec, err := r.Next()
		if err != nil {
			return byDB, byFamily
		}
		if rec.Kind == rdbio.KindKey && rec.Expire != -1 && rec.Expire <= nowMs {
			byDB[rec.DB]++
			byFamily[rec.Type.Family()]++
		}
	}
}

// TestAnalyzeCompat names files whose version, types or opcodes decide
// which servers load them.
func TestAnalyzeCompat(t *testing.T) {
	pub := func(name string) string { return rdbiotest.CorpusFile(t, "public", name) }
	dfly := dragonflyFile(t)
	tests := []struct {
		name  string
		path  string
		yes   []string // servers that load it
		no    []string // servers that refuse it
		cause string   // a refusal cause that must be named
	}{
		{"RDB 10", pub("redis-replicator__dumpV10.rdb"),
			[]string{"redis-7.0", "redis-7.2", "valkey-8", "valkey-9", "dragonfly"}, []string{"redis-6.2"}, "RDB version 10"},
		{"RDB 11 set-listpack", pub("librdb__set_lp_v11.rdb"),
			[]string{"redis-7.2", "redis-8.6", "valkey-8", "valkey-9", "dragonfly"}, []string{"redis-6.2", "redis-7.0"}, "RDB version 11"},
		{"RDB 12 hash field expiry (type 24)", pub("hdt3213-rdb__hash_with_hfe.rdb"),
			[]string{"redis-7.4", "redis-8.0..8.4", "redis-8.6"}, []string{"redis-7.2", "valkey-8", "valkey-9", "dragonfly"}, "value type 24"},
		{"RDB 13 stream v4 (type 26)", pub("librdb__stream_v13.rdb"),
			[]string{"redis-8.6"}, []string{"redis-7.4", "redis-8.0..8.4", "valkey-9", "dragonfly"}, "RDB version 13"},
		{"VALKEY080", pub("hdt3213-rdb__valkey_cluster_slot_info.rdb"),
			[]string{"valkey-9"}, []string{"redis-6.2", "redis-7.0", "redis-7.2", "redis-7.4", "redis-8.0..8.4", "redis-8.6", "valkey-8", "dragonfly"}, "magic VALKEY080"},
		{"Valkey 9 hash2 (type 22)", pub("hdt3213-rdb__valkey_hash2_with_hfe.rdb"),
			[]string{"valkey-9"}, []string{"redis-7.4", "valkey-8", "dragonfly"}, "value type 22 (hash2)"},
		{"function libraries", pub("redis-replicator__function2.rdb"),
			[]string{"redis-7.0", "valkey-8"}, []string{"redis-6.2", "dragonfly"}, "function libraries"},
		{"pre-release functions (246)", pub("redis-replicator__function.rdb"),
			[]string{"redis-7.0"}, []string{"redis-7.2", "valkey-9", "dragonfly"}, "opcode 246"},
		{"module without its module", pub("redis-replicator__dump-module-2.rdb"),
			[]string{"dragonfly"}, []string{"redis-6.2", "redis-7.0", "valkey-8"}, "module type hellotype"},
		{"ReJSON module", pub("dragonfly__redis_json.rdb"),
			[]string{"dragonfly"}, []string{"redis-7.2", "valkey-8"}, "ReJSON-RL"},
		{"module aux", pub("librdb__module_aux.rdb"),
			[]string{"dragonfly"}, []string{"redis-7.2", "valkey-9"}, "module aux data"},
		{"ziplist list (type 10)", pub("redis-rdb-tools__ziplist_with_integers.rdb"),
			[]string{"redis-6.2", "redis-8.6", "valkey-8"}, []string{"dragonfly"}, "value type 10"},
		{"RDB 3 linked list", pub("redis-rdb-tools__linkedlist.rdb"),
			[]string{"redis-6.2"}, []string{"dragonfly"}, "value type 1 (list)"},
		{"Dragonfly types 30+", dfly,
			[]string{"dragonfly"}, []string{"redis-6.2", "redis-7.0", "redis-8.6", "valkey-8", "valkey-9"}, "value type 30 (json)"},
		{"rdbz-compressed", rdbzFile(t),
			nil, []string{"redis-6.2", "redis-7.0", "redis-7.2", "redis-7.4", "redis-8.0..8.4", "redis-8.6", "valkey-8", "valkey-9", "dragonfly"}, "rdbz-compressed list nodes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := analyzePath(t, tc.path)
			verdict := map[string]Compat{}
			for _, c := range a.Compat {
				verdict[c.Server] = c
			}
			for _, s := range tc.yes {
				if v := verdict[s]; !v.Loads {
					t.Errorf("%s should load it: %+v", s, v.Causes)
				}
			}
			named := false
			for _, s := range tc.no {
				v := verdict[s]
				if v.Loads {
					t.Errorf("%s should refuse it", s)
				}
				for _, c := range v.Causes {
					named = named || strings.Contains(c.Cause, tc.cause)
				}
			}
			if !named {
				t.Errorf("no refusal names %q: %+v", tc.cause, a.Compat)
			}
		})
	}
}

// TestAnalyzeCompatRedis70MatchesManifest: rdbz's redis-7.0 verdict agrees
// with the manifest's redis70_loads (a real redis-server 7.0 loading with
// sanitize-dump-payload yes, recorded when the corpus was made) on every
// corpus file, the files it refuses for their data (duplicate keys,
// damaged blobs) included.
func TestAnalyzeCompatRedis70MatchesManifest(t *testing.T) {
	for _, cf := range rdbiotest.Sweep(t) {
		t.Run(cf.Name, func(t *testing.T) {
			a := analyzePath(t, cf.Path)
			var v Compat
			for _, c := range a.Compat {
				if c.Server == "redis-7.0" {
					v = c
				}
			}
			m := cf.Fields["redis70_loads"]
			if m == "" {
				m = "yes"
			}
			switch {
			case !v.Loads && m == "yes":
				t.Fatalf("rdbz says redis 7.0 refuses it (%+v), redis loads it", v.Causes)
			case v.Loads && m != "yes":
				t.Fatalf("redis 7.0 refuses it (%s), rdbz says it loads", m)
			}
		})
	}
}

// dragonflyFile writes a small Dragonfly-style RDB: REDIS0009, AUX df-ver,
// JSON (30), HASH_WITH_EXPIRY (31) and SET_WITH_EXPIRY (32) keys, a zero
// checksum (as Dragonfly writes).
func dragonflyFile(t *testing.T) string {
	b := []byte("REDIS0009")
	str := func(s string) { b = append(rdbio.AppendLen(b, uint64(len(s))), s...) }
	b = rdbio.AppendAux(b, []byte("df-ver"), []byte("v1.40.0"))
	b = append(b, rdbio.OpSelectDB, 0)
	b = append(b, rdbio.TypeDflyJSON)
	str("doc")
	str(`{"a":1}`)
	b = append(b, rdbio.TypeDflyHashExpiry)
	str("h")
	b = rdbio.AppendLen(b, 1)
	str("f")
	str("v")
	str("-1")
	b = append(b, rdbio.TypeDflySetExpiry)
	str("s")
	b = rdbio.AppendLen(b, 1)
	str("m")
	str("1900000000")
	b = append(b, rdbio.OpEOF, 0, 0, 0, 0, 0, 0, 0, 0)
	p := filepath.Join(t.TempDir(), "dfly.rdb")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// rdbzFile compresses testdata/small.rdb with a dictionary trained on its
// own nodes and returns the path of the result.
func rdbzFile(t *testing.T) string {
	src := filepath.Join("..", "..", "..", "..", "testdata", "small.rdb")
	f, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var samples [][]byte
	err = rdbio.ForEachNode(f, rdbio.Options{}, func(_ []byte, n *rdbio.Node) (bool, error) {
		raw, err := nodeBytes(n)
		samples = append(samples, bytes.Clone(raw))
		return true, err
	})
	if err != nil {
		t.Fatal(err)
	}
	for len(samples) < 8 { // enough samples for the trainer
		samples = append(samples, samples...)
	}
	tr, err := train.Train(samples, train.Params{DictSize: 4096, K: 256, D: 8, Seed: 1, Level: zstd.SpeedFastest})
	if err != nil {
		t.Fatal(err)
	}
	d, err := node.ParseDict(tr.Dict)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Seek(0, 0); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := v1.Compress(&out, f, v1.CompressOptions{Dict: d}); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "small.rdbz.rdb")
	if err := os.WriteFile(p, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestAnalyzeRdbzFile: the AUX fields and 0xC4 nodes of a compressed file
// are reported.
func TestAnalyzeRdbzFile(t *testing.T) {
	a := analyzePath(t, rdbzFile(t))
	if !a.Rdbz.Compressed || a.Rdbz.Format != format.Version || len(a.Rdbz.Dicts) != 1 || a.Rdbz.ZstdNodes == 0 {
		t.Fatalf("rdbz = %+v", a.Rdbz)
	}
	if a.Rdbz.Dicts[0].ID < train.MinID || a.Rdbz.Dicts[0].Bytes == 0 {
		t.Fatalf("dictionary %+v", a.Rdbz.Dicts[0])
	}
	if a.Lists.Zstd.Nodes != a.Rdbz.ZstdNodes || a.Lists.UnknownNodes < a.Rdbz.ZstdNodes {
		t.Fatalf("lists %+v", a.Lists)
	}
}

// TestAnalyzeDragonflyFile: Dragonfly's own types are named, counted and
// tell the producer.
func TestAnalyzeDragonflyFile(t *testing.T) {
	a := analyzePath(t, dragonflyFile(t))
	if a.Producer.Name != "dragonfly" || a.Producer.Version != "v1.40.0" || a.Checksum != rdbio.ChecksumDisabled {
		t.Fatalf("producer %+v, checksum %s", a.Producer, a.Checksum)
	}
	for name, elems := range map[string]int64{"json": 0, "hash-with-expiry": 1, "set-with-expiry": 1} {
		ts := a.TypeStats[name]
		if ts == nil || ts.Keys != 1 || ts.Elements != elems {
			t.Errorf("%s: %+v", name, ts)
		}
	}
}

// nodeBytes returns a node's bytes: raw as stored, or LZF decoded;
// integer-encoded and zstd nodes give nil.
func nodeBytes(n *rdbio.Node) ([]byte, error) {
	switch n.Enc {
	case rdbio.EncRaw:
		return n.Data, nil
	case rdbio.EncLZF:
		return lzf.Decode(nil, n.Data, int(n.ULen))
	}
	return nil, nil
}
