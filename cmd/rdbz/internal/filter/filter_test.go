package filter

import (
	"encoding/binary"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/rdbz/rdbz/rdbio"
)

// filterFile is an RDB 11 with a ctime of 1700000000 (2023-11-14T22:13:20Z)
// and keys "db:key" of several types and expiries (checksum 0).
func filterFile() []byte {
	str := func(s string) []byte { return append(rdbio.AppendLen(nil, uint64(len(s))), s...) }
	key := func(typ byte, k string, val ...byte) []byte { return append(append([]byte{typ}, str(k)...), val...) }
	expire := func(ms uint64) []byte { return binary.LittleEndian.AppendUint64([]byte{rdbio.OpExpireMs}, ms) }
	lp := []byte{11, 0, 0, 0, 1, 0, 0x81, 'a', 2, 0xFF} // a listpack of "a"
	b := []byte("REDIS0011")
	b = rdbio.AppendAux(b, []byte("ctime"), []byte("1700000000"))
	b = append(b, rdbio.OpSelectDB, 0)
	b = append(b, key(rdbio.TypeString, "user:1", str("v")...)...)
	b = append(b, key(rdbio.TypeSetListpack, "tags", str(string(lp))...)...)
	b = append(append(b, expire(1_699_999_999_000)...), key(rdbio.TypeString, "old", str("v")...)...)
	b = append(append(b, expire(1_800_000_000_000)...), key(rdbio.TypeString, "new", str("v")...)...)
	b = append(b, rdbio.OpSelectDB, 2)
	b = append(b, key(rdbio.TypeHash, "user:2", 1, 1, 'f', 1, 'v')...)
	b = append(b, key(rdbio.TypeListQuicklist2, "list", 1, 2, byte(len(lp)))...)
	b = append(b, lp...)
	b = append(b, rdbio.OpEOF)
	return append(b, make([]byte, 8)...)
}

// kept lists the keys of filterFile that o keeps, as keyNames does.
func kept(t *testing.T, o Options) []string {
	t.Helper()
	f, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	ks, err := keyNames(filterFile(), f.Keep)
	if err != nil {
		t.Fatal(err)
	}
	return ks
}

// TestFilterKeep: a key stays iff it matches a --match (when there is
// one), no --exclude, its db and type are allowed (families and exact type
// names) and it has not expired when expired keys are dropped (against
// Now, else the dump's ctime).
func TestFilterKeep(t *testing.T) {
	for _, tc := range []struct {
		o    Options
		want []string
	}{
		{Options{}, []string{"0:new", "0:old", "0:tags", "0:user:1", "2:list", "2:user:2"}},
		{Options{Match: []string{"user:*", "l*"}}, []string{"0:user:1", "2:list", "2:user:2"}},
		{Options{Match: []string{"user:*"}, Exclude: []string{"*2"}}, []string{"0:user:1"}},
		{Options{Exclude: []string{"*e*", "?l*"}}, []string{"0:tags", "2:list"}},
		{Options{DBs: []uint64{2}}, []string{"2:list", "2:user:2"}},
		{Options{DBs: []uint64{1, 0}, Types: []string{"set", "hash"}}, []string{"0:tags"}},
		{Options{Types: []string{"string"}}, []string{"0:new", "0:old", "0:user:1"}},
		{Options{Types: []string{"hash", "list-quicklist2"}}, []string{"2:list", "2:user:2"}},
		{Options{Types: []string{"set-listpack"}}, []string{"0:tags"}},
		{Options{DropExpired: true}, []string{"0:new", "0:tags", "0:user:1", "2:list", "2:user:2"}},
		{Options{DropExpired: true, Now: time.Unix(1_600_000_000, 0)}, []string{"0:new", "0:old", "0:tags", "0:user:1", "2:list", "2:user:2"}},
		{Options{DropExpired: true, Now: time.UnixMilli(1_800_000_000_001)}, []string{"0:tags", "0:user:1", "2:list", "2:user:2"}},
		{Options{DropExpired: true, Now: time.UnixMilli(1_800_000_000_000)}, []string{"0:new", "0:tags", "0:user:1", "2:list", "2:user:2"}}, // expiring now: not yet expired
	} {
		if tc.o.Active() == (len(tc.want) == 6 && tc.o.Now.IsZero() && !tc.o.DropExpired) {
			t.Errorf("%+v: Active %v", tc.o, tc.o.Active())
		}
		if got := kept(t, tc.o); !slices.Equal(got, tc.want) {
			t.Errorf("%+v: kept %q, want %q", tc.o, got, tc.want)
		}
	}
}

// TestFilterOptions: New refuses bad patterns, unknown types and a time
// before 1970.
func TestFilterOptions(t *testing.T) {
	for _, tc := range []struct {
		o    Options
		want error
	}{
		{Options{Match: []string{"[a"}}, ErrGlob},
		{Options{Exclude: []string{`a\`}}, ErrGlob},
		{Options{Types: []string{"sets"}}, ErrOptions},
		{Options{DropExpired: true, Now: time.Unix(-5, 0)}, ErrOptions},
	} {
		if _, err := New(tc.o); !errors.Is(err, tc.want) {
			t.Errorf("%+v: %v, want %v", tc.o, err, tc.want)
		}
	}
	if (Options{Types: []string{"json"}}).Active() != true {
		t.Error("a type filter is not active")
	}
	if _, err := New(Options{Types: []string{"json", "bloom", "module", "hash2"}}); err != nil {
		t.Error(err)
	}
}
