package reshape

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/rdbz/rdbz/cmd/rdbz/internal/cluster"
	"github.com/rdbz/rdbz/cmd/rdbz/internal/convert"
	"github.com/rdbz/rdbz/rdbio"
)

const libA = "#!lua name=liba\nredis.register_function('a', function() return 1 end)"

// dump is a crafted input: AUX fields, function libA, keys name=value in
// db 0 (and in db 1 for the names after a "|").
func dump(t testing.TB, magic, ver string, keys ...string) []byte {
	c := &craft{}
	c.aux("redis-ver", ver).function(libA).selectDB(0)
	for _, k := range keys {
		if k == "|" {
			c.selectDB(1)
			continue
		}
		name, value, _ := strings.Cut(k, "=")
		c.set(name, value, 0)
	}
	return c.file(t, magic)
}

func mergeBytes(t testing.TB, opt MergeOptions, files ...[]byte) ([]byte, *MergeReport, error) {
	t.Helper()
	ins := make([]Input, len(files))
	for i, f := range files {
		ins[i] = bytesInput(fmt.Sprintf("in%d.rdb", i+1), f, false)
	}
	var out bytes.Buffer
	rep, err := Merge(context.Background(), ins, &out, opt)
	return out.Bytes(), rep, err
}

// keyValues lists the output's keys as "db key=value" in order, and its
// AUX fields, functions and RESIZEDB records.
func keyValues(t testing.TB, b []byte) (keys, other []string) {
	recs, _ := records(t, b)
	for _, r := range recs {
		switch r.kind {
		case rdbio.KindKey:
			keys = append(keys, fmt.Sprintf("%d %s=%s", r.db, r.key, r.value[1:]))
		case rdbio.KindAux:
			other = append(other, "aux "+r.key+"="+r.value)
		case rdbio.KindFunction:
			other = append(other, "function")
		case rdbio.KindResizeDB:
			other = append(other, fmt.Sprintf("resize %d/%d", r.size, r.expires))
		}
	}
	return keys, other
}

// TestMergePolicies: overlapping keys, in db 0 and db 1, three inputs;
// error names the first duplicate met in input order and both inputs;
// first and last keep that side's values; AUX fields of one name and an
// identical function library once.
func TestMergePolicies(t *testing.T) {
	a := dump(t, "REDIS0010", "7.0.15", "a=1", "b=1", "c=1", "|", "x=1")
	b := dump(t, "REDIS0011", "7.2.4", "d=2", "c=2", "b=2", "|", "x=2", "y=2")
	c := dump(t, "REDIS0010", "7.0.15", "b=3", "e=3")
	_, _, err := mergeBytes(t, MergeOptions{}, a, b, c)
	if !errors.Is(err, ErrDuplicate) || !strings.Contains(err.Error(), `duplicate key "c" in db 0: in1.rdb (input 1, offset `) ||
		!strings.Contains(err.Error(), ") and in2.rdb (input 2, offset ") {
		t.Fatalf("error policy: %v", err)
	}
	for _, tc := range []struct {
		policy Policy
		keys   string
		dups   int64
	}{
		{KeepFirst, "0 a=1,0 b=1,0 c=1,1 x=1,0 d=2,1 y=2,0 e=3", 4},
		{KeepLast, "0 a=1,0 d=2,0 c=2,1 x=2,1 y=2,0 b=3,0 e=3", 4},
	} {
		out, rep, err := mergeBytes(t, MergeOptions{OnDuplicate: tc.policy}, a, b, c)
		if err != nil {
			t.Fatal(err)
		}
		keys, other := keyValues(t, out)
		if got := strings.Join(keys, ","); got != tc.keys {
			t.Errorf("policy %d: keys %s, want %s", tc.policy, got, tc.keys)
		}
		if got := strings.Join(other, ","); got != "aux redis-ver=7.0.15,function,resize 5/0,resize 2/0" {
			t.Errorf("policy %d: %s", tc.policy, got)
		}
		if rep.Magic != "REDIS0011" || rep.Keys != 7 || rep.Duplicates != tc.dups || rep.Functions != 1 || rep.SameFunctions != 2 {
			t.Errorf("policy %d: report %+v", tc.policy, rep)
		}
	}
}

// TestMergeFunctionConflict: a library two inputs define differently is
// refused, naming it and the first input.
func TestMergeFunctionConflict(t *testing.T) {
	a := dump(t, "REDIS0010", "7.0.15", "a=1")
	c := &craft{}
	c.function(strings.Replace(libA, "return 1", "return 2", 1)).selectDB(0).set("z", "1", 0)
	_, _, err := mergeBytes(t, MergeOptions{}, a, c.file(t, "REDIS0010"))
	if !errors.Is(err, ErrDuplicate) || !strings.Contains(err.Error(), `in2.rdb: offset 9: function library "liba": in1.rdb defines it otherwise`) {
		t.Fatalf("%v", err)
	}
}

// TestMergeMagics: the highest version; VALKEY080 takes REDIS ≤ 11 and
// refuses 12; Dragonfly's files merge only with one another.
func TestMergeMagics(t *testing.T) {
	r9 := dump(t, "REDIS0009", "6.2.0", "a=1")
	v80 := dump(t, "VALKEY080", "9.0.0", "b=1")
	r12 := dump(t, "REDIS0012", "7.4.1", "c=1")
	dfly := (&craft{}).aux("df-ver", "1.20").selectDB(0).set("d", "1", 0).file(t, "REDIS0009")
	for _, tc := range []struct {
		files [][]byte
		magic string
	}{
		{[][]byte{r9, v80}, "VALKEY080"}, {[][]byte{r12, r9}, "REDIS0012"}, {[][]byte{v80, r12}, ""},
		{[][]byte{r9, dfly}, ""}, {[][]byte{dfly, dfly}, ""},
	} {
		_, rep, err := mergeBytes(t, MergeOptions{OnDuplicate: KeepFirst}, tc.files...)
		switch {
		case tc.magic == "" && len(tc.files) == 2 && bytes.Equal(tc.files[0], tc.files[1]):
			if err != nil || rep.Magic != "REDIS0009" {
				t.Errorf("dragonfly twice: %v %+v", err, rep)
			}
		case tc.magic == "":
			if !errors.Is(err, convert.ErrMerge) {
				t.Errorf("%s: %v", rep.Inputs[0].Magic, err)
			}
		case err != nil || rep.Magic != tc.magic:
			t.Errorf("want %s: %v %+v", tc.magic, err, rep)
		}
	}
}

// TestSplitThenMerge: the parts of a split merge back into the input's
// keys, values and expiries (in another order).
func TestSplitThenMerge(t *testing.T) {
	in := crafted(t, nil)
	five, _ := cluster.Even(5)
	parts, _, err := splitBytes(t, bytesInput("in", in, false), five, SplitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out, rep, err := mergeBytes(t, MergeOptions{}, parts...)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := records(t, in)
	got, _ := records(t, out)
	keys := map[string]record{}
	for _, r := range want {
		if r.kind == rdbio.KindKey {
			keys[r.key] = r
		}
	}
	for _, r := range got {
		if r.kind == rdbio.KindKey {
			if keys[r.key] != r {
				t.Errorf("key %q: %+v, input %+v", r.key, r, keys[r.key])
			}
			delete(keys, r.key)
		}
	}
	if len(keys) != 0 || rep.Keys != 40 || rep.Expires != 2 || rep.Functions != 1 {
		t.Errorf("%d keys missing; report %+v", len(keys), rep)
	}
}
