package convert

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rdbz/rdbz/rdbio"
	"github.com/rdbz/rdbz/rdbio/blob"
	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

// rdbFile builds a file: the magic, then what body writes, then the EOF
// and checksum.
func rdbFile(t *testing.T, magic string, version int, valkey bool, body func(w *rdbio.Writer, put func(...byte), str func(string))) []byte {
	t.Helper()
	var b bytes.Buffer
	w, err := rdbio.NewWriter(&b, rdbio.Header{Magic: magic, Version: version, Valkey: valkey})
	if err != nil {
		t.Fatal(err)
	}
	put := func(p ...byte) { w.Write(p) }
	str := func(s string) {
		if err := w.WriteString([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	put(rdbio.OpSelectDB, 0)
	body(w, put, str)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func le64(v int64) []byte { return binary.LittleEndian.AppendUint64(nil, uint64(v)) }

func lenOf(v uint64) []byte { return rdbio.AppendLen(nil, v) }

const (
	past   = 1000          // 1970: expired
	future = 4000000000000 // 2096
)

// expiringFile holds hashes with field expiry: type 24 (a field expired,
// one without TTL, one with a TTL to come), type 25 (the same as a
// listpack), a type 24 hash all of whose fields expired (with a key
// expiry record, which goes with it), and a string.
func expiringFile(t *testing.T) []byte {
	return rdbFile(t, "REDIS0012", 12, false, func(w *rdbio.Writer, put func(...byte), str func(string)) {
		put(rdbio.TypeHashMetadata)
		str("h24")
		put(le64(past)...)
		put(lenOf(3)...)
		put(lenOf(1)...) // past
		str("a")
		str("1")
		put(lenOf(0)...)
		str("b")
		str("2")
		put(lenOf(future - past + 1)...)
		str("c")
		str("3")
		put(rdbio.TypeHashListpackEx)
		str("h25")
		put(le64(past)...)
		lp := blob.NewListpackWriter(1 << 20)
		for _, e := range []struct {
			f, v string
			ttl  int64
		}{{"x", "9", past}, {"z", "7", future}, {"y", "8", 0}} { // by TTL, none last, as redis keeps them
			if lp.AppendString([]byte(e.f)) != nil || lp.AppendString([]byte(e.v)) != nil || lp.AppendInt(e.ttl) != nil {
				t.Fatal("listpack")
			}
		}
		str(string(lp.Bytes()))
		put(rdbio.OpExpireMs)
		put(le64(future)...)
		put(rdbio.TypeHashMetadata)
		str("gone")
		put(le64(past)...)
		put(lenOf(1)...)
		put(lenOf(1)...)
		str("f")
		str("v")
		put(rdbio.TypeString)
		str("s")
		str("value")
	})
}

// TestFieldExpiryToPlainHashes: for redis 7.0, hashes with field expiry
// become plain hashes holding the fields not expired (redis 7.0 gives the
// output the digest of a file written with those plain hashes), a hash all
// of whose fields expired goes with its expiry record, and the report says
// the TTLs were lost.
func TestFieldExpiryToPlainHashes(t *testing.T) {
	var out bytes.Buffer
	rep, err := Convert(t.Context(), &out, bytes.NewReader(expiringFile(t)), Options{Target: "redis-7.0", Drop: ttlKinds()})
	if err != nil {
		t.Fatal(err)
	}
	want := rdbFile(t, "REDIS0010", 10, false, func(w *rdbio.Writer, put func(...byte), str func(string)) {
		put(rdbio.TypeHash)
		str("h24")
		put(lenOf(2)...)
		str("b")
		str("2")
		str("c")
		str("3")
		put(rdbio.TypeHash)
		str("h25")
		put(lenOf(2)...)
		str("y")
		str("8")
		str("z")
		str("7")
		put(rdbio.TypeString)
		str("s")
		str("value")
	})
	if got := strings.Join(records(t, out.Bytes()), " "); got != "selectdb key:h24:hash key:h25:hash key:s:string eof" {
		t.Fatalf("records %s", got)
	}
	if rep.Keys != 3 || rep.Lossless() {
		t.Errorf("report: %d keys, lossless %v: %+v", rep.Keys, rep.Lossless(), rep.Items)
	}
	for _, w := range []struct{ action, kind, lost string }{
		{Reencoded, "hash-metadata", "per-field TTLs"},
		{Reencoded, "hash-listpack-ex", "per-field TTLs"},
		{Expired, "hash-metadata", ""},
	} {
		it := item(rep, w.action, w.kind)
		if it == nil || it.Count != 1 || !strings.HasPrefix(it.Lost, w.lost) {
			t.Errorf("report item %s %s: %+v in %+v", w.action, w.kind, it, rep.Items)
		}
	}
	sameDigestAs(t, "", out.Bytes(), want)
}

// TestHash2ToFieldExpiry: for redis 7.4, Valkey's HASH_2 becomes a redis
// hash with field expiry keeping the TTLs (redis 7.4 gives it the digest,
// TTLs included, of the same hash written as type 24), the expired field
// left out.
func TestHash2ToFieldExpiry(t *testing.T) {
	in := rdbFile(t, "VALKEY080", 80, true, func(w *rdbio.Writer, put func(...byte), str func(string)) {
		put(rdbio.TypeHashMetaPreGA) // HASH_2 in a VALKEY file
		str("v")
		put(lenOf(3)...)
		for _, f := range []struct {
			f   string
			exp int64
		}{{"f1", past}, {"f2", -1}, {"f3", future}} {
			str(f.f)
			str("val-" + f.f)
			put(le64(f.exp)...)
		}
	})
	var out bytes.Buffer
	rep, err := Convert(t.Context(), &out, bytes.NewReader(in), Options{Target: "redis-7.4", Drop: ttlKinds()})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Lossless() || rep.Keys != 1 {
		t.Errorf("report: %+v", rep)
	}
	want := rdbFile(t, "REDIS0012", 12, false, func(w *rdbio.Writer, put func(...byte), str func(string)) {
		put(rdbio.TypeHashMetadata)
		str("v")
		put(le64(future - 5)...) // another base: the same expiries
		put(lenOf(2)...)
		put(lenOf(0)...)
		str("f2")
		str("val-f2")
		put(lenOf(6)...)
		str("f3")
		str("val-f3")
	})
	sameDigestAs(t, rdbiotest.ServerBinary(t, "redis-server-7.4.1"), out.Bytes(), want)
	// Without field expiry in the target: a plain hash.
	out.Reset()
	if _, err := Convert(t.Context(), &out, bytes.NewReader(in), Options{Target: "redis-7.2", Drop: ttlKinds()}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(records(t, out.Bytes()), " "); got != "selectdb key:v:hash eof" {
		t.Errorf("for redis-7.2: %s", got)
	}
}

// item is the report's item of kind and action, or nil.
func item(rep *Report, action, kind string) *Item {
	for i, it := range rep.Items {
		if it.Action == action && it.Kind == kind {
			return &rep.Items[i]
		}
	}
	return nil
}

// sameDigestAs fails unless the server (a path; "" for redis-server from
// PATH) gives got the digest it gives want.
func sameDigestAs(t *testing.T, server string, got, want []byte) {
	t.Helper()
	if server != "" {
		t.Setenv("REDIS_SERVER", server)
	}
	dir := t.TempDir()
	var digests [2]string
	for i, b := range [][]byte{got, want} {
		p := filepath.Join(dir, []string{"got.rdb", "want.rdb"}[i])
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := rdbiotest.Oracle(t, p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		digests[i] = out
	}
	if digests[0] != digests[1] {
		t.Fatalf("output loads as\n%s\nwant\n%s", digests[0], digests[1])
	}
}

// TestStreamsToOlderTypes: every corpus stream of a type newer than a
// target reads converts to the newest type it reads, keeping its entries:
// redis 7.0 gives the redis-6.2 conversion (type 15) the digest it gives
// the redis-7.0 one (type 19), and the report names what was lost. (The
// matrix compares them with the input as a server here loads it.)
func TestStreamsToOlderTypes(t *testing.T) {
	seen := 0
	loads := loaders(t)
	for _, cf := range small(t) {
		if !strings.Contains(cf.Fields["features"], "stream") || cf.CorruptByDesign() {
			continue
		}
		var outs []string
		for _, target := range []string{"redis-7.0", "redis-6.2"} {
			out, rep, err := convertTo(t, cf.Path, target, dropAll())
			if err != nil {
				t.Fatalf("%s for %s: %v", cf.Name, target, err)
			}
			for _, it := range rep.Items {
				if it.Action == Reencoded && strings.HasPrefix(it.Kind, "stream") {
					seen++
					if target == "redis-6.2" && !strings.Contains(it.Lost, "entries-added") {
						t.Errorf("%s: %s: lost %q", cf.Name, it.Kind, it.Lost)
					}
				}
			}
			outs = append(outs, out)
		}
		a, aerr := rdbiotest.Digest(t, outs[0])
		b, berr := rdbiotest.Digest(t, outs[1])
		if aerr != nil && len(loads[cf.Name]) == 0 {
			t.Logf("%s: no server loads it (%v)", cf.Name, aerr)
			continue
		}
		if aerr != nil || berr != nil || a != b {
			t.Errorf("%s: redis 7.0 loads the redis-7.0 conversion as %q (%v), the redis-6.2 one as %q (%v)", cf.Name, a, aerr, b, berr)
		}
	}
	if seen == 0 {
		t.Skip("no corpus file holds a stream newer than redis 6.2 reads")
	}
}

// TestFieldExpiryThroughDragonfly: hashes with field expiry become
// Dragonfly's hashes with expiry (type 31, TTLs in seconds) for Dragonfly,
// and those become redis hashes with field expiry again for redis 7.4,
// which gives the result the digest it gives the input (its TTLs are
// whole seconds; the fields that had expired it drops while loading, as
// convert leaves them out).
func TestFieldExpiryThroughDragonfly(t *testing.T) {
	in := expiringFile(t)
	var df, back bytes.Buffer
	rep, err := Convert(t.Context(), &df, bytes.NewReader(in), Options{Target: "dragonfly", Drop: ttlKinds()})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(records(t, df.Bytes()), " "); got != "selectdb key:h24:hash-with-expiry key:h25:hash-with-expiry key:s:string eof" {
		t.Fatalf("for dragonfly: %s (%+v)", got, rep.Items)
	}
	if _, err := Convert(t.Context(), &back, bytes.NewReader(df.Bytes()), Options{Target: "redis-7.4", Drop: ttlKinds()}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(records(t, back.Bytes()), " "); got != "selectdb key:h24:hash-metadata key:h25:hash-metadata key:s:string eof" {
		t.Fatalf("back for redis-7.4: %s", got)
	}
	sameDigestAs(t, rdbiotest.ServerBinary(t, "redis-server-7.4.1"), back.Bytes(), in)
}

// TestFieldExpiryHeldWithinTheCap: a hash with field expiry of many empty
// fields is held within the cap, fields counted with their cost, not
// only their bytes: converting it for redis 7.0 with a 64 KiB cap is
// refused as too large, naming the key, instead of growing.
func TestFieldExpiryHeldWithinTheCap(t *testing.T) {
	in := rdbFile(t, "REDIS0012", 12, false, func(w *rdbio.Writer, put func(...byte), str func(string)) {
		put(rdbio.TypeHashMetadata)
		str("many")
		put(le64(0)...)
		put(lenOf(200000)...)
		for range 200000 {
			put(0, 0, 0) // no TTL, empty field, empty value
		}
	})
	var out bytes.Buffer
	_, err := Convert(t.Context(), &out, bytes.NewReader(in), Options{Options: rdbio.Options{Cap: 64 << 10}, Target: "redis-7.0"})
	if !errors.Is(err, rdbio.ErrTooLarge) || !strings.Contains(err.Error(), `key "many"`) {
		t.Fatalf("got %v, want ErrTooLarge naming the key", err)
	}
}

// TestFieldExpiryPastRedisLimit: a Valkey field expiry later than redis
// keeps (2^48 - 1 ms) would make redis 7.4 refuse the file as type 24:
// that hash becomes a plain hash.
func TestFieldExpiryPastRedisLimit(t *testing.T) {
	in := rdbFile(t, "VALKEY080", 80, true, func(w *rdbio.Writer, put func(...byte), str func(string)) {
		put(rdbio.TypeHashMetaPreGA)
		str("far")
		put(lenOf(1)...)
		str("f")
		str("v")
		put(le64(1 << 50)...)
	})
	var out bytes.Buffer
	rep, err := Convert(t.Context(), &out, bytes.NewReader(in), Options{Target: "redis-7.4", Drop: ttlKinds()})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(records(t, out.Bytes()), " "); got != "selectdb key:far:hash eof" || rep.Lossless() {
		t.Fatalf("%s, %+v", got, rep.Items)
	}
}

// ttlKinds accepts the loss of per-field TTLs (or of their milliseconds),
// which convert refuses unless --drop names the kind.
func ttlKinds() map[string]bool {
	drop := map[string]bool{}
	for _, k := range []string{"hash-metadata-pre-ga", "hash-listpack-ex-pre-ga", "hash-metadata", "hash-listpack-ex", "hash2", "hash-with-expiry", "set-with-expiry"} {
		drop[k] = true
	}
	return drop
}
