package verify

import (
	"bytes"
	"testing"

	"github.com/rdbz/rdbz/rdbio"
	"github.com/rdbz/rdbz/rdbio/lzf"
)

// TestStringObjectMatchesDecoder: a string value decoded by stringObject
// (rdbio's string decoder) digests as hdt3213/rdb's decoding of the same
// one-key RDB does, for each way a string is stored, so that two sides
// agree whichever decoded a key; and a value with bytes after its string
// goes to hdt3213/rdb.
func TestStringObjectMatchesDecoder(t *testing.T) {
	var d semDecoder
	d.init(rdbio.Header{Magic: "REDIS0011", Version: 11}, 1<<20)
	if d.refuse != "" {
		t.Fatal(d.refuse)
	}
	text := bytes.Repeat([]byte("package main\n\nfunc main() {}\n"), 40)
	var enc lzf.Encoder
	comp, ok := enc.RedisSave(nil, text)
	if !ok {
		t.Fatal("the text does not LZF-encode")
	}
	vals := map[string][]byte{
		"raw":    append(rdbio.AppendLen(nil, 5), "hello"...),
		"empty":  rdbio.AppendLen(nil, 0),
		"int8":   {0xC0, 0x85},                   // -123
		"int16":  {0xC1, 0x39, 0x30},             // 12345
		"int32":  {0xC2, 0x15, 0xCD, 0x5B, 0x07}, // 123456789
		"digits": append(rdbio.AppendLen(nil, 3), "007"...),
		"lzf":    append(rdbio.AppendStringHead(nil, rdbio.EncLZF, 0, uint64(len(comp)), uint64(len(text))), comp...),
	}
	for name, val := range vals {
		buf := d.head(nil, byte(rdbio.TypeString), []byte("k"))
		head := len(buf)
		buf = append(buf, val...)
		o, err := d.parse(bytes.Clone(buf), "k")
		if err != nil {
			t.Fatalf("%s: hdt3213/rdb: %v", name, err)
		}
		var want, got [32]byte
		if _, _, err := digestObject(o, want[:0]); err != nil {
			t.Fatal(err)
		}
		fast, err := stringObject(buf[head:], d.limit)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if _, _, err := digestObject(fast, got[:0]); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("%s: the %d bytes decoded digest apart from hdt3213/rdb's decoding", name, len(fast.Value))
		}
	}
	if _, err := stringObject(append(rdbio.AppendLen(nil, 1), "ab"...), d.limit); err == nil {
		t.Error("a string with a byte after it decoded")
	}
}
