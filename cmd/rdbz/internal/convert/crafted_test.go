package convert

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/rdbz/rdbz/rdbio"
	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

// crafted is a REDIS0011 file: a function library, a set listpack with a
// second-resolution expiry and an idle time, a set listpack of integers,
// and a string with a millisecond expiry.
func crafted(t *testing.T) []byte {
	t.Helper()
	var b bytes.Buffer
	w, err := rdbio.NewWriter(&b, rdbio.Header{Magic: "REDIS0011", Version: 11})
	if err != nil {
		t.Fatal(err)
	}
	put := func(p ...byte) { w.Write(p) }
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(w.WriteAux([]byte("redis-ver"), []byte("7.2.6")))
	put(rdbio.OpFunction2)
	must(w.WriteString([]byte("#!lua name=lib\nredis.register_function('f', function() return 1 end)")))
	put(rdbio.OpSelectDB, 0)
	put(rdbio.OpExpireSec)
	put(binary.LittleEndian.AppendUint32(nil, 4000000000)...)
	put(rdbio.OpIdle, 5)
	put(rdbio.TypeSetListpack)
	must(w.WriteString([]byte("set")))
	must(w.WriteString(rdbiotest.ListpackOf("a", "b")))
	put(rdbio.TypeSetListpack)
	must(w.WriteString([]byte("ints")))
	must(w.WriteString(rdbiotest.ListpackOf("3", "-1", "2")))
	put(rdbio.OpExpireSec)
	put(binary.LittleEndian.AppendUint32(nil, 4000000001)...)
	put(rdbio.TypeString)
	must(w.WriteString([]byte("str")))
	must(w.WriteString([]byte("value")))
	must(w.Close())
	return b.Bytes()
}

// records lists the kinds, keys and expiries of a file's records.
func records(t *testing.T, b []byte) []string {
	t.Helper()
	r, err := rdbio.NewReader(bytes.NewReader(b), rdbio.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("output: %v", err)
		}
		s := rec.Kind.String()
		if rec.Kind == rdbio.KindKey {
			s += ":" + string(rec.Key) + ":" + rec.Type.String()
		}
		if rec.Kind == rdbio.KindExpire {
			s += ":" + string('0'+rec.Op-rdbio.OpExpireMs)
		}
		out = append(out, s)
	}
}

func TestConvertCrafted(t *testing.T) {
	in := crafted(t)
	cases := []struct {
		target string
		drop   []string
		want   string // records, or the refusal
		magic  string
	}{
		{"redis-7.2", nil, "aux function selectdb expire:1 idle key:set:set-listpack key:ints:set-listpack expire:1 key:str:string eof", "REDIS0011"},
		// Set listpacks become plain sets, or intsets when every member is an integer.
		{"redis-7.0", nil, "aux function selectdb expire:1 idle key:set:set key:ints:set-intset expire:1 key:str:string eof", "REDIS0010"},
		{"redis-6.2", nil, `offset 26, record: redis-6.2 cannot hold function`, ""},
		{"redis-6.2", []string{"function"}, "aux selectdb expire:1 idle key:set:set key:ints:set-intset expire:1 key:str:string eof", "REDIS0009"},
		{"dragonfly", []string{"function"}, "aux selectdb expire:0 idle key:set:set-listpack key:ints:set-listpack expire:0 key:str:string eof", "REDIS0011"},
	}
	for _, c := range cases {
		drop := map[string]bool{}
		for _, k := range c.drop {
			drop[k] = true
		}
		var out bytes.Buffer
		rep, err := Convert(t.Context(), &out, bytes.NewReader(in), Options{Target: c.target, Drop: drop})
		if c.magic == "" {
			if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s %v: got %v, want a refusal with %q", c.target, c.drop, err, c.want)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s %v: %v", c.target, c.drop, err)
			continue
		}
		if got := strings.Join(records(t, out.Bytes()), " "); got != c.want || rep.To != c.magic || string(out.Bytes()[:9]) != c.magic {
			t.Errorf("%s %v: %s (%s), want %s (%s)", c.target, c.drop, got, rep.To, c.want, c.magic)
		}
	}
}
