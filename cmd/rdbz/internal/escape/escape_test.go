package escape

import (
	"bytes"
	"encoding/base64"
	"math/rand"
	"strconv"
	"testing"
	"unicode/utf8"
)

// unescapeUTF8 reverses AppendUTF8.
func unescapeUTF8(t *testing.T, s []byte) []byte {
	t.Helper()
	var out []byte
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			out = append(out, s[i])
			continue
		}
		switch {
		case i+1 < len(s) && s[i+1] == '\\':
			out = append(out, '\\')
			i++
		case i+3 < len(s) && s[i+1] == 'x':
			v, err := strconv.ParseUint(string(s[i+2:i+4]), 16, 8)
			if err != nil {
				t.Fatalf("bad escape in %q", s)
			}
			out = append(out, byte(v))
			i += 3
		default:
			t.Fatalf("lone backslash in %q", s)
		}
	}
	return out
}

// TestModes: utf8 gives valid UTF-8 that tells the bytes back, base64 the
// standard encoding, raw the bytes; escaping in pieces cut after Carry
// gives what escaping the whole does.
func TestModes(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	cases := [][]byte{nil, []byte("plain"), []byte(`back\slash`), []byte("h\xe9llo"), []byte("日本語 ü"), {0xff, 0xfe, 0xc3}}
	for range 200 {
		b := make([]byte, r.Intn(40))
		for i := range b {
			b[i] = "a\\\xc3\xa9\xe6\x97\xa5\xff\x00"[r.Intn(9)]
		}
		cases = append(cases, b)
	}
	for _, b := range cases {
		u := Append(nil, b, UTF8)
		if !utf8.Valid(u) || !bytes.Equal(unescapeUTF8(t, u), b) {
			t.Fatalf("utf8 of %q is %q", b, u)
		}
		if utf8.Valid(b) && !bytes.Contains(b, []byte(`\`)) && !bytes.Equal(u, b) {
			t.Fatalf("utf8 changed valid %q to %q", b, u)
		}
		if got := Append(nil, b, Base64); string(got) != base64.StdEncoding.EncodeToString(b) {
			t.Fatalf("base64 of %q is %q", b, got)
		}
		if got := Append(nil, b, Raw); !bytes.Equal(got, b) {
			t.Fatalf("raw of %q is %q", b, got)
		}
		for cut := 0; cut <= len(b); cut++ {
			head := b[:cut]
			keep := Carry(head)
			pieces := AppendUTF8(nil, head[:len(head)-keep])
			pieces = AppendUTF8(pieces, b[len(head)-keep:])
			if !bytes.Equal(pieces, u) {
				t.Fatalf("%q cut at %d (carry %d): %q, whole %q", b, cut, keep, pieces, u)
			}
		}
	}
	for _, name := range Names {
		if m, err := Parse(name); err != nil || m.String() != name {
			t.Fatalf("Parse(%q) = %v, %v", name, m, err)
		}
	}
	if _, err := Parse("hex"); err == nil {
		t.Fatal("Parse(hex) succeeded")
	}
}
