package columns

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

// eventRecords are list records of JSON events: numbers and hex ids that
// tokens pay for.
func eventRecords(n int) []handRec {
	r := rand.New(rand.NewSource(3))
	recs := []handRec{{"magic", []byte("REDIS0011"), false, 0}}
	ts := int64(1773974271156)
	for i := range n {
		var els []any
		for range 50 {
			ts += int64(r.Intn(5000))
			els = append(els, fmt.Sprintf(`{"id":"%016x%016x","t":%d,"u":%d,"k":"fanout","\x01":3}`, r.Uint64(), r.Uint64(), ts, r.Intn(1000000)))
		}
		recs = append(recs, handRec{fmt.Sprint("events ", i), cat([]byte{1}, rstrOf(fmt.Sprintf("feed:%d", i)), rlen(len(els)), func() []byte {
			var b []byte
			for _, e := range els {
				b = append(b, rstrOf(e.(string))...)
			}
			return b
		}()), true, 0})
	}
	return recs
}

func TestTokensRoundTrip(t *testing.T) {
	seg, tt := splitOf(eventRecords(40)...)
	enc, _ := NewEncoder(Options{})
	defer enc.Close()
	comp, err := enc.Encode(nil, seg)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, d := range enc.descs {
		if d.id&(1<<partBits-1) == partTmpl {
			n++
		}
	}
	if n == 0 {
		t.Fatal("no role stored as tokens")
	}
	dec, _ := NewDecoder(0)
	defer dec.Close()
	got, err := dec.Decode(nil, comp)
	if err != nil || !bytes.Equal(got, tt) {
		t.Fatalf("Decode: %v (equal %v)", err, bytes.Equal(got, tt))
	}
}

func TestTokenize(t *testing.T) {
	strs := []string{"", "abc", "0", "007", "12345678901234567890", "x1y", "a-1-b", "\x00\x01\x02\x03\x04\x00",
		"deadbeef00", "DEADBEEF00", "deadbeef", "0123456789abcdef", strings.Repeat("ab12", 70), "id=42,43;44 45.46",
		`{"t":1773974271156,"id":"e05ea4a4-f20d-40d6-94ad-f3c6eb2a276e"}`}
	var data, lens []byte
	for _, s := range strs {
		data = append(data, s...)
		lens = binary.AppendUvarint(lens, uint64(len(s)))
	}
	tk := roundTripTokens(t, data, lens, true)
	if tk.tokenize(data, append(lens, 1)) {
		t.Fatal("lens past the data: tokenized")
	}
	// Hostile token streams.
	cases := []struct {
		name string
		t    tokens
		want error
	}{
		{"no total", tokens{}, errTokens},
		{"total over the limit", tokens{lens: []byte{0x80, 0x80, 0x04}}, errTokens},
		{"template past tmpl", tokens{tmpl: []byte("ab"), lens: []byte{2, 3}}, errTokens},
		{"string past the total", tokens{tmpl: []byte("abc"), lens: []byte{2, 3}}, errTokens},
		{"number missing", tokens{tmpl: []byte{markNum}, lens: []byte{1, 1}}, errTokens},
		{"number negative", tokens{tmpl: []byte{markNum}, nums: []byte{1}, lens: []byte{1, 1}}, errTokNumber},
		{"number too long", tokens{tmpl: []byte{markNum}, nums: binary.AppendUvarint(nil, zigzag(1e18)), lens: []byte{19, 1}}, errTokNumber},
		{"hex cut", tokens{tmpl: []byte{markHex}, lens: []byte{8, 1}}, errTokMark},
		{"hex short", tokens{tmpl: []byte{markHex, 3}, hex: []byte{1, 2, 3}, lens: []byte{6, 2}}, errTokMark},
		{"hex past its bytes", tokens{tmpl: []byte{markHex, 4}, hex: []byte{1, 2, 3}, lens: []byte{8, 2}}, errTokens},
		{"escape cut", tokens{tmpl: []byte{markEsc}, lens: []byte{1, 1}}, errTokMark},
		{"escape of a letter", tokens{tmpl: []byte{markEsc, 'a'}, lens: []byte{1, 2}}, errTokMark},
		{"bytes left", tokens{tmpl: []byte("ab"), nums: []byte{2}, lens: []byte{2, 2}}, errTokens},
		{"short of the total", tokens{tmpl: []byte("ab"), lens: []byte{3, 2}}, errTokens},
	}
	for _, c := range cases {
		if _, _, err := untokenize(nil, nil, c.t, 20, noFields()); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
}

// FuzzTokens: untokenize of any streams returns or fails, never panics,
// never writes past its limit; tokenize of any strings comes back.
func FuzzTokens(f *testing.F) {
	f.Add([]byte(`{"t":1773974271156,"id":"e05ea4a4f20d40d6"}`), []byte{1, 2, 3})
	f.Fuzz(func(t *testing.T, a, b []byte) {
		var lens []byte
		for p, i := 0, 0; p < len(a); i++ {
			n := len(a) - p
			if i < len(b) {
				n = min(n, int(b[i]))
			}
			lens = binary.AppendUvarint(lens, uint64(n))
			p += n
		}
		roundTripTokens(t, a, lens, len(b) > 0 && b[0]&1 == 0)
		// The fuzzer's bytes as token streams, of both versions, with
		// the fuzzer's bytes as fields.
		ts := tokens{tmpl: a, nums: b, hex: b, lens: append(binary.AppendUvarint(nil, uint64(len(a))), byte(len(a)))}
		for _, fr := range []*fieldReader{nil, noFields(), someFields(b)} {
			if d, _, err := untokenize(nil, nil, ts, 2*len(a), fr); err == nil && len(d) > 2*len(a) {
				t.Fatal("past the limit")
			}
		}
	})
}

// roundTripTokens tokenizes the strings data cut by lens, their JSON
// values to fields when withFields, and checks that they come back.
func roundTripTokens(t *testing.T, data, lens []byte, withFields bool) *tokens {
	t.Helper()
	var tk tokens
	seg := &Segment{}
	if withFields {
		tk.fields = &fieldSet{}
		tk.fields.reset(seg)
		tk.fields.begin(roleList)
	}
	if !tk.tokenize(data, lens) {
		t.Fatal("tokenize refused")
	}
	if withFields {
		for _, f := range tk.fields.fields[:tk.fields.n] {
			seg.bufs[dataID(f.role)], seg.bufs[lensID(f.role)] = f.data, f.lens
		}
	}
	fr := &fieldReader{}
	fr.start(seg)
	fr.owner = roleList
	gd, gl, err := untokenize(nil, nil, tk, len(data), fr)
	if err == nil {
		err = fr.finish()
	}
	if err != nil || !bytes.Equal(gd, data) || !bytes.Equal(gl, lens) {
		t.Fatalf("untokenize: %v\n%q\n%q", err, gd, data)
	}
	return &tk
}

// noFields is the fieldReader of a segment without fields.
func noFields() *fieldReader {
	fr := &fieldReader{}
	fr.start(&Segment{})
	return fr
}

// someFields is the fieldReader of a segment whose roles 16 and over hold
// b as data and as lens.
func someFields(b []byte) *fieldReader {
	seg := &Segment{}
	for r := firstDynamic; r < MaxRoles; r++ {
		seg.bufs[dataID(r)], seg.bufs[lensID(r)] = b, b
	}
	fr := &fieldReader{}
	fr.start(seg)
	return fr
}

// TestTokenizeFields: the string values of JSON documents, wherever they
// stand in a string, go to one field per path, and every string comes
// back, JSON or not.
func TestTokenizeFields(t *testing.T) {
	strs := []string{
		`{"id":"u1","name":"Ann","tags":["a","b"],"addr":{"city":"Oslo","zip":"0150"},"n":12}`,
		`{"id":"u2","name":"Bob","tags":["c"],"addr":{"city":"Rome","zip":"00100"},"n":13}`,
		"\x82\x00" + `{"id":"u3","name":"Cy"}` + "\x17\x99" + `{"id":"u4","name":"Di"}` + "\x01\x04", // listpack entries
		`{"esc":"a\"b\\","k\"ey":"v","":""}`, `{"cut":"no end`, `{"x":` + strings.Repeat(`{"d":`, 40) + `"deep"` + strings.Repeat("}", 40) + "}",
		`}}]]{"a":"b"}{"a":"c"}`, `["x","y"]`, `{"a" : "spaced" , "b":"\u00e9"}`, "plain text 42 deadbeefcafe",
		"{\n  \"id\": \"u5\",\n  \"name\": \"Ed\",\n  \"n\": 14\n}", "func f() { return map[string]int{} }",
	}
	var data, lens []byte
	for _, s := range strs {
		data = append(data, s...)
		lens = binary.AppendUvarint(lens, uint64(len(s)))
	}
	tk := roundTripTokens(t, data, lens, true)
	fields := map[string]string{}
	for _, f := range tk.fields.fields[:tk.fields.n] {
		var vals []string
		for p, d := 0, f.data; p < len(f.lens); {
			n, k := binary.Uvarint(f.lens[p:])
			p += k
			vals = append(vals, string(d[:n]))
			d = d[n:]
		}
		fields[vals[0]] = strings.Join(vals, ",")
	}
	for first, want := range map[string]string{"u1": "u1,u2,u3,u4,u5", "Ann": "Ann,Bob,Cy,Di,Ed", "a": "a,b,c", "Oslo": "Oslo,Rome", "deep": "deep", "b": "b,c,spaced"} {
		if fields[first] != want {
			t.Errorf("field of %q: %q, want %q (fields: %q)", first, fields[first], want, fields)
		}
	}
	if n := bytes.Count(tk.tmpl, []byte(string(rune(markSlot)))); n != 3 {
		t.Errorf("template %q: %d numbers with their path's slot, want 3 (.n's)", tk.tmpl, n)
	}
	if bytes.Contains(tk.tmpl, []byte("Rome")) || !bytes.Contains(tk.tmpl, []byte(`"zip":"`)) {
		t.Errorf("template %q: values left in it, or keys taken out", tk.tmpl)
	}
}
