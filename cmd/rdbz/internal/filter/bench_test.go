package filter

import (
	"fmt"
	"testing"

	"github.com/rdbz/rdbz/rdbio"
)

// benchKeys are keys of the shapes dumps hold.
var benchKeys = func() [][]byte {
	var ks [][]byte
	for i := range 1024 {
		ks = append(ks,
			fmt.Appendf(nil, "user:%d:profile", i),
			fmt.Appendf(nil, "session:%08x", i*7919),
			fmt.Appendf(nil, "cache:v2:item:%d:fr_FR", i))
	}
	return ks
}()

// BenchmarkGlob matches the bench keys against a pattern of each form.
func BenchmarkGlob(b *testing.B) {
	for _, p := range []string{"user:*", "*:fr_FR", "user:*:profile", "*item*", "cache:v2:item:10",
		"user:[0-9]*:pro?ile", "*:[0-9]*:*"} {
		g := MustCompile(p)
		b.Run(p, func(b *testing.B) {
			b.ReportAllocs()
			n := 0
			for i := 0; b.Loop(); i++ {
				if g.Match(benchKeys[i%len(benchKeys)]) {
					n++
				}
			}
		})
	}
}

// BenchmarkKeep is a Filter's decision on a key record.
func BenchmarkKeep(b *testing.B) {
	f, err := New(Options{Match: []string{"user:*", "cache:*"}, Exclude: []string{"*:fr_FR"},
		Types: []string{"hash", "string"}, DBs: []uint64{0}, DropExpired: true})
	if err != nil {
		b.Fatal(err)
	}
	rec := &rdbio.Record{Kind: rdbio.KindKey, Type: rdbio.TypeHashListpack, Expire: -1}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		rec.Key = benchKeys[i%len(benchKeys)]
		f.Keep(rec)
	}
}
