package verify

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"strconv"
	"strings"
	"testing"

	"github.com/hdt3213/rdb/model"
	"github.com/rdbz/rdbz/rdbio"
	"github.com/rdbz/rdbz/rdbio/blob"
	"github.com/rdbz/rdbz/rdbio/lzf"
	"github.com/rdbz/rdbz/rdbio/rdbiotest"
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
		if _, _, err := digestObject(sha256.New(), o, want[:0]); err != nil {
			t.Fatal(err)
		}
		fast, err := d.stringObject(buf[head:])
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if _, _, err := digestObject(sha256.New(), fast, got[:0]); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("%s: the %d bytes decoded digest apart from hdt3213/rdb's decoding", name, len(fast.Value))
		}
	}
	if _, err := d.stringObject(append(rdbio.AppendLen(nil, 1), "ab"...)); err == nil {
		t.Error("a string with a byte after it decoded")
	}
}

// storedString is b as an RDB string: LZF-compressed when compress is set
// and it compresses, else raw.
func storedString(b []byte, compress bool) []byte {
	var enc lzf.Encoder
	if c, ok := enc.RedisSave(nil, b); compress && ok {
		return append(rdbio.AppendStringHead(nil, rdbio.EncLZF, 0, uint64(len(c)), uint64(len(b))), c...)
	}
	return append(rdbio.AppendLen(nil, uint64(len(b))), b...)
}

// TestListDigestMatchesDecoder: a list value digested by listDigest (its
// elements streamed into the hash) digests as hdt3213/rdb's decoding of
// the same one-key RDB does: PACKED nodes raw and LZF-compressed, integer
// and string elements, a PLAIN node, quicklist and quicklist 2.
func TestListDigestMatchesDecoder(t *testing.T) {
	var d semDecoder
	d.init(rdbio.Header{Magic: "REDIS0011", Version: 11}, 1<<20)
	node := storedString
	// The builders take elements under 64 bytes: many alike, so that the
	// nodes LZF-compress.
	var many []string
	for i := range 40 {
		many = append(many, "an element that repeats", strconv.Itoa(i*1000-7))
	}
	lp1 := rdbiotest.ListpackOf(append([]string{"x", "12345", "-7", "", "9223372036854775807"}, many...)...)
	lp2 := rdbiotest.ListpackOf(append(many, "0", "y")...)
	zl := rdbiotest.ZiplistOf(append([]string{"a", "255", "-32768", "b"}, many...)...)
	long := strings.Repeat("a PLAIN element, ", 8)
	type value struct {
		typ       rdbio.Type
		nodes     [][]byte // each node as stored: the container (type 18), then the string
		container []uint64
	}
	vals := map[string]value{
		"quicklist2": {rdbio.TypeListQuicklist2, [][]byte{node(lp1, false), node(lp2, true)}, []uint64{2, 2}},
		// hdt3213/rdb cannot size PLAIN and PACKED nodes mixed (decode.go).
		"plain":     {rdbio.TypeListQuicklist2, [][]byte{node([]byte(long), false), node([]byte(long+"!"), true)}, []uint64{1, 1}},
		"quicklist": {rdbio.TypeListQuicklist, [][]byte{node(zl, false), node(zl, true)}, nil},
	}
	for name, v := range vals {
		buf := d.head(nil, byte(v.typ), []byte("k"))
		buf = rdbio.AppendLen(buf, uint64(len(v.nodes)))
		var offs []int
		for i, n := range v.nodes {
			offs = append(offs, len(buf))
			if v.container != nil {
				buf = rdbio.AppendLen(buf, v.container[i])
			}
			buf = append(buf, n...)
		}
		o, err := d.parse(bytes.Clone(buf), "k")
		if err != nil {
			t.Fatalf("%s: hdt3213/rdb: %v", name, err)
		}
		var want, got [32]byte
		class, wantN, err := digestObject(sha256.New(), o, want[:0])
		if err != nil || class != model.ListType {
			t.Fatalf("%s: %s, %v", name, class, err)
		}
		n, err := d.listDigest(v.typ, buf, offs, got[:0])
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got != want || n != wantN {
			t.Errorf("%s: %d elements digest apart from hdt3213/rdb's %d", name, n, wantN)
		}
	}
}

// TestBlobDigestMatchesDecoder: a set stored as an intset or a listpack,
// and a hash stored as a listpack, digested by blobDigest digest as
// hdt3213/rdb's decoding of the same one-key RDB does (integers of every
// width and listpack encoding, strings short and long, stored raw and
// LZF-compressed); blobs hdt3213/rdb reads otherwise than their entries
// say are left to it.
func TestBlobDigestMatchesDecoder(t *testing.T) {
	var d semDecoder
	d.init(rdbio.Header{Magic: "REDIS0011", Version: 11}, 1<<20)
	str := storedString
	intset := func(width int, vs ...int64) []byte {
		b := binary.LittleEndian.AppendUint32(nil, uint32(width))
		b = binary.LittleEndian.AppendUint32(b, uint32(len(vs)))
		for _, v := range vs {
			b = binary.LittleEndian.AppendUint64(b, uint64(v))[:len(b)+width]
		}
		return b
	}
	listpack := func(entries ...string) []byte {
		w := blob.NewListpackWriter(1 << 20)
		for _, e := range entries {
			if err := w.AppendString([]byte(e)); err != nil {
				t.Fatal(err)
			}
		}
		return w.Bytes()
	}
	long := strings.Repeat("a long member, ", 300)
	members := []string{"zeta", "", "12", "-1", "127", "128", "-4096", "70000", "-2147483649", "9223372036854775807",
		"-9223372036854775808", "007", "1.5", "alpha", long, long + "!"}
	var fields []string
	for i, m := range members {
		fields = append(fields, m, strconv.Itoa(i*7919-3))
	}
	fields = append(fields, "empty", "")
	type value struct {
		typ  rdbio.Type
		blob []byte
		fast bool // blobDigest takes it
	}
	dup := listpack("f", "1", "g", "2", "f", "3")
	unknown := listpack(members...)
	binary.LittleEndian.PutUint16(unknown[4:], 0xFFFF)
	fewer := listpack(members...)
	binary.LittleEndian.PutUint16(fewer[4:], uint16(len(members)-1))
	vals := map[string]value{
		"intset16":       {rdbio.TypeSetIntset, intset(2, -32768, -1, 0, 5, 32767), true},
		"intset32":       {rdbio.TypeSetIntset, intset(4, -2147483648, 40000, 7), true},
		"intset64":       {rdbio.TypeSetIntset, intset(8, -9223372036854775808, 1, 9223372036854775807, 1<<40), true},
		"intset trailer": {rdbio.TypeSetIntset, append(intset(2, 1, 2), 0), false},
		"set listpack":   {rdbio.TypeSetListpack, listpack(members...), true},
		"hash listpack":  {rdbio.TypeHashListpack, listpack(fields...), true},
		"hash field dup": {rdbio.TypeHashListpack, dup, false},
		"count unknown":  {rdbio.TypeSetListpack, unknown, false},
		"count short":    {rdbio.TypeSetListpack, fewer, false},
		"odd hash":       {rdbio.TypeHashListpack, listpack("f", "1", "g"), false},
	}
	for name, v := range vals {
		for _, compress := range []bool{false, true} {
			buf := d.head(nil, byte(v.typ), []byte("k"))
			head := len(buf)
			buf = append(buf, str(v.blob, compress)...)
			var got [32]byte
			class, n, ok := d.blobDigest(v.typ, buf[head:], got[:0])
			if ok != v.fast {
				t.Fatalf("%s (LZF %v): blobDigest took it: %v, want %v", name, compress, ok, v.fast)
			}
			if !ok {
				continue
			}
			o, err := d.parse(bytes.Clone(buf), "k")
			if err != nil {
				t.Fatalf("%s: hdt3213/rdb: %v", name, err)
			}
			var want [32]byte
			wantClass, wantN, err := digestObject(sha256.New(), o, want[:0])
			if err != nil {
				t.Fatal(err)
			}
			if got != want || class != wantClass || n != wantN {
				t.Errorf("%s (LZF %v): %s of %d digests apart from hdt3213/rdb's %s of %d", name, compress, class, n, wantClass, wantN)
			}
		}
	}
}
