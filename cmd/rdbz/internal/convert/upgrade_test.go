package convert

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rdbz/rdbz/rdbio"
	"github.com/rdbz/rdbz/rdbio/blob"
	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

// lzfRepeat is an LZF stream of unit repeated to n bytes (n ≥ len(unit),
// len(unit) ≤ 32): unit as a literal, then back references to it.
func lzfRepeat(unit string, n int) []byte {
	out := append([]byte{byte(len(unit) - 1)}, unit...)
	off := len(unit) - 1
	for left := n - len(unit); left > 0; {
		l := min(left, 264)
		if l < 3 { // a reference copies at least 3 bytes: end with a literal
			out = append(out, byte(l-1))
			for i := 0; i < l; i++ {
				out = append(out, unit[(n-left+i)%len(unit)])
			}
			break
		}
		if l-2 < 7 {
			out = append(out, byte(off>>8)|byte(l-2)<<5, byte(off))
		} else {
			out = append(out, byte(off>>8)|7<<5, byte(l-2-7), byte(off))
		}
		left -= l
	}
	return out
}

// upgradeInput is a REDIS0006 file holding the old types Dragonfly does
// not read, with what each key holds in order: a ziplist list of strings
// and integers, an LZF-compressed ziplist list, a linked list (with a
// millisecond expiry) of thousands of short strings, integers stored as
// integers and as digits, LZF strings short and long, strings just under,
// at and over what fits in an 8 KiB listpack, and zipmaps; then a string.
func upgradeInput(t *testing.T) ([]byte, map[string][]string) {
	t.Helper()
	var b bytes.Buffer
	w, err := rdbio.NewWriter(&b, rdbio.Header{Magic: "REDIS0006", Version: 6})
	if err != nil {
		t.Fatal(err)
	}
	put := func(p ...byte) { w.Write(p) }
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	want := map[string][]string{}
	put(rdbio.OpSelectDB, 0)

	put(rdbio.TypeListZiplist)
	must(w.WriteString([]byte("zl")))
	must(w.WriteString(rdbiotest.ZiplistOfEntries(
		[]byte{1, 'a'}, append([]byte{5}, "hello"...), []byte{0xF6}, []byte{0xFE, 0x80}, []byte{0xC0, 0xE8, 0x03}, []byte{0})))
	want["zl"] = []string{"a", "hello", "5", "-128", "1000", ""}

	var zlEntries [][]byte
	for i := range 40 {
		zlEntries = append(zlEntries, append([]byte{50}, strings.Repeat(string(rune('a'+i%3)), 50)...))
		want["zl-lzf"] = append(want["zl-lzf"], strings.Repeat(string(rune('a'+i%3)), 50))
	}
	zl := rdbiotest.ZiplistOfEntries(zlEntries...)
	comp := lzfPlain(zl)
	put(rdbio.TypeListZiplist)
	must(w.WriteString([]byte("zl-lzf")))
	put(rdbio.AppendStringHead(nil, rdbio.EncLZF, 0, uint64(len(comp)), uint64(len(zl)))...)
	put(comp...)

	put(rdbio.OpExpireMs)
	put(binary.LittleEndian.AppendUint64(nil, 4000000000000)...)
	put(rdbio.TypeList)
	must(w.WriteString([]byte("ll")))
	var ll []string
	var body []byte
	str := func(s string) {
		ll = append(ll, s)
		body = append(rdbio.AppendLen(body, uint64(len(s))), s...)
	}
	for i := range 3000 {
		str(fmt.Sprintf("elem-%d", i))
	}
	str("12345")
	str("007")
	str("-0")
	str("")
	body = append(body, 0xC0, 0x7F)
	ll = append(ll, "127")
	body = append(body, 0xC1, 0x18, 0xFC)
	ll = append(ll, "-1000")
	body = append(body, 0xC2, 0x60, 0x79, 0xFE, 0xFF)
	ll = append(ll, "-100000")
	lzf := func(unit string, n int) {
		c := lzfRepeat(unit, n)
		body = append(rdbio.AppendStringHead(body, rdbio.EncLZF, 0, uint64(len(c)), uint64(n)), c...)
		ll = append(ll, strings.Repeat(unit, n/len(unit)+1)[:n])
	}
	lzf("xy", 100)
	str(strings.Repeat("q", 8000)) // fits an 8 KiB listpack alone
	lzf("0123456789", 10000)       // over 8 KiB: a PLAIN node
	str("between")
	str(strings.Repeat("r", 8180)) // does not fit with the listpack's header
	str(strings.Repeat("s", 20000))
	for i := range 5 {
		str(strconv.Itoa(i))
	}
	must(w.WriteLen(uint64(len(ll))))
	put(body...)
	want["ll"] = ll

	put(rdbio.TypeHashZipmap)
	must(w.WriteString([]byte("zm")))
	must(w.WriteString(rdbiotest.ZipmapOf("f1", "v1", "num", "12345", "empty", "")))
	want["zm"] = []string{"f1", "v1", "num", "12345", "empty", ""}

	put(rdbio.TypeString)
	must(w.WriteString([]byte("str")))
	must(w.WriteString([]byte("value")))
	must(w.Close())
	return b.Bytes(), want
}

// lzfPlain is b as an LZF stream of literal runs only.
func lzfPlain(b []byte) []byte {
	var out []byte
	for len(b) > 0 {
		n := min(len(b), 32)
		out = append(append(out, byte(n-1)), b[:n]...)
		b = b[n:]
	}
	return out
}

// keyValue is a key of a file and its elements, decoded.
type keyValue struct {
	db     uint64
	key    string
	typ    rdbio.Type
	expire int64
	elems  []string
	nodes  []*rdbio.Node // list nodes (their Data dropped)
	sizes  []int         // their decoded sizes
	counts []int         // their element counts
}

// keyValues decodes the lists (types 1, 10, 14, 18) and the zipmap,
// ziplist and listpack hashes (9, 13, 16) of a file, in order; other
// keys come with no elements.
func keyValues(t *testing.T, b []byte) []keyValue {
	t.Helper()
	r, err := rdbio.NewReader(bytes.NewReader(b), rdbio.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out []keyValue
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("reading: %v", err)
		}
		if rec.Kind != rdbio.KindKey {
			continue
		}
		kv := keyValue{db: rec.DB, key: string(rec.Key), typ: rec.Type, expire: rec.Expire}
		if err := kv.decode(r, rec.Type); err != nil {
			t.Fatalf("key %q: %v", rec.Key, err)
		}
		out = append(out, kv)
	}
}

func (kv *keyValue) decode(r *rdbio.Reader, typ rdbio.Type) error {
	add := func(e blob.Entry) error {
		if e.IsInt {
			kv.elems = append(kv.elems, strconv.FormatInt(e.Int, 10))
		} else {
			kv.elems = append(kv.elems, string(e.Str))
		}
		return nil
	}
	switch typ {
	case rdbio.TypeListZiplist, rdbio.TypeListQuicklist, rdbio.TypeListQuicklist2:
		err := eachNode(r, func(n *rdbio.Node) (bool, error) {
			data := n.Data
			if n.Enc == rdbio.EncLZF {
				d, err := rdbio.DecodeNodeLZF(nil, n.Data, n.ULen, rdbio.DefaultCap)
				if err != nil {
					return false, err
				}
				data = d
			}
			node := *n
			node.Data, node.Raw = nil, nil
			kv.nodes, kv.sizes = append(kv.nodes, &node), append(kv.sizes, len(data))
			had := len(kv.elems)
			defer func() { kv.counts = append(kv.counts, len(kv.elems)-had) }()
			if n.Container == 1 {
				kv.elems = append(kv.elems, string(data))
				return true, nil
			}
			return true, blob.Entries(rdbio.NodeBlob(typ), data, add)
		})
		return err
	case rdbio.TypeList, rdbio.TypeHashZipmap, rdbio.TypeHashZiplist, rdbio.TypeHashListpack:
		var buf rdbio.CappedBuffer
		buf.Reset(rdbio.DefaultCap)
		if _, err := r.Value().Count(&buf); err != nil {
			return err
		}
		if typ != rdbio.TypeList {
			kind, _, _, _ := typ.Blob()
			b, err := rdbio.DecodeValueBlob(nil, buf.Buf, 0, rdbio.DefaultCap)
			if err != nil {
				return err
			}
			return blob.Entries(kind, b, add)
		}
		s := rdbio.NewStringScanner(buf.Buf, rdbio.DefaultCap)
		n, err := s.Len()
		for i := uint64(0); i < n && err == nil; i++ {
			var e []byte
			e, _, err = s.String(nil)
			kv.elems = append(kv.elems, string(e))
		}
		return err
	}
	return nil
}

// TestUpgradeForDragonfly converts the old list and zipmap types for
// Dragonfly: ziplist lists become one-node quicklists (the ziplist string
// as it was, LZF too), the linked list a quicklist 2 of listpacks of at
// most 8 KiB with PLAIN nodes for the elements that do not fit one, the
// zipmap a listpack hash; every element is there, in order, the expiry
// kept; the report says re-encoded; analyze names convert as the input's
// fix and says Dragonfly loads the output.
func TestUpgradeForDragonfly(t *testing.T) {
	in, want := upgradeInput(t)
	var out bytes.Buffer
	rep, err := Convert(t.Context(), &out, bytes.NewReader(in), Options{Target: "dragonfly"})
	if err != nil {
		t.Fatal(err)
	}
	reencoded := map[string]int64{}
	for _, it := range rep.Items {
		if it.Action != Reencoded || it.FirstKey == nil {
			t.Errorf("report item %+v", it)
			continue
		}
		reencoded[it.Kind] = it.Count
	}
	if w := map[string]int64{"list-ziplist": 2, "list": 1, "hash-zipmap": 1}; !maps.Equal(reencoded, w) {
		t.Errorf("re-encoded %v, want %v", reencoded, w)
	}
	if rep.Keys != 5 {
		t.Errorf("report keeps %d keys, want 5", rep.Keys)
	}
	types := map[string]rdbio.Type{"zl": rdbio.TypeListQuicklist, "zl-lzf": rdbio.TypeListQuicklist,
		"ll": rdbio.TypeListQuicklist2, "zm": rdbio.TypeHashListpack, "str": rdbio.TypeString}
	got := keyValues(t, out.Bytes())
	if len(got) != len(types) {
		t.Fatalf("%d keys in the output, want %d", len(got), len(types))
	}
	for _, kv := range got {
		if kv.typ != types[kv.key] {
			t.Errorf("key %q of type %d, want %d", kv.key, kv.typ, types[kv.key])
		}
		if w, ok := want[kv.key]; ok && !slices.Equal(kv.elems, w) {
			t.Errorf("key %q: %d elements, want %d; first difference %s", kv.key, len(kv.elems), len(w), firstDiff(kv.elems, w))
		}
		if (kv.expire >= 0) != (kv.key == "ll") || kv.key == "ll" && kv.expire != 4000000000000 {
			t.Errorf("key %q expires at %d", kv.key, kv.expire)
		}
		switch kv.key {
		case "zl-lzf":
			if len(kv.nodes) != 1 || kv.nodes[0].Enc != rdbio.EncLZF {
				t.Errorf("zl-lzf: nodes %+v, want the one LZF ziplist", kv.nodes)
			}
		case "ll":
			checkNodes(t, kv)
		}
	}
	if v := analyzeBytes(t, in)["dragonfly"]; v.Fix != "rdbz convert --target dragonfly" {
		t.Errorf("analyze names no convert fix for the input: %+v", v)
	}
	if v := analyzeBytes(t, out.Bytes())["dragonfly"]; !v.Loads {
		t.Errorf("analyze says Dragonfly does not load the output: %+v", v.Causes)
	}
}

// checkNodes checks the quicklist 2 the linked list became: listpacks of
// at most 8 KiB, each full (its next element would not fit in it), and
// PLAIN nodes for exactly the elements too large for one alone.
func checkNodes(t *testing.T, kv keyValue) {
	t.Helper()
	// alone is the size of a listpack holding only the string e.
	alone := func(e string) int {
		if v, ok := blob.RedisInt([]byte(e)); ok {
			return 7 + int(blob.ListpackIntSize(v))
		}
		return 7 + int(blob.ListpackStringSize(int64(len(e))))
	}
	plain, first := 0, 0
	for i, n := range kv.nodes {
		e := kv.elems[first]
		switch {
		case n.Container == 1:
			plain++
			if alone(e) <= 8192 {
				t.Errorf("PLAIN node %d of %d bytes: it fits a listpack", i, kv.sizes[i])
			}
		case kv.sizes[i] > 8192:
			t.Errorf("listpack node %d of %d bytes", i, kv.sizes[i])
		case i+1 < len(kv.nodes):
			next := kv.elems[first+kv.counts[i]]
			if kv.sizes[i]+alone(next)-7 <= 8192 {
				t.Errorf("listpack node %d of %d bytes: %.20q would fit in it", i, kv.sizes[i], next)
			}
		}
		first += kv.counts[i]
	}
	if plain != 3 {
		t.Errorf("%d PLAIN nodes, want 3 (10000, 8180 and 20000 bytes)", plain)
	}
	if len(kv.nodes) < 8 {
		t.Errorf("only %d nodes for %d elements", len(kv.nodes), len(kv.elems))
	}
}

// firstDiff describes where two element lists first differ.
func firstDiff(a, b []string) string {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return fmt.Sprintf("at %d: %.40q vs %.40q", i, a[i], b[i])
		}
	}
	return fmt.Sprintf("one list is a prefix of the other (%d vs %d)", len(a), len(b))
}

// oneKey is a REDIS0006 file holding one key of type typ whose value is
// stored as value.
func oneKey(t *testing.T, typ byte, key string, value []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	w, err := rdbio.NewWriter(&b, rdbio.Header{Magic: "REDIS0006", Version: 6})
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte{rdbio.OpSelectDB, 0, typ})
	if err := w.WriteString([]byte(key)); err != nil {
		t.Fatal(err)
	}
	w.Write(value)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestUpgradeWithinTheCap: with a cap smaller than a ziplist list, it
// still converts (its node is streamed, raw or LZF); a linked list or a
// zipmap over the cap, which must be held, is refused as too large,
// naming its offset and key; an element that does not decode is corrupt,
// naming its offset.
func TestUpgradeWithinTheCap(t *testing.T) {
	long := strings.Repeat("e", 40)
	var entries [][]byte
	for range 5 {
		entries = append(entries, append([]byte{40}, long...))
	}
	zl := rdbiotest.ZiplistOfEntries(entries...)
	comp := lzfPlain(zl)
	lzfZl := append(rdbio.AppendStringHead(nil, rdbio.EncLZF, 0, uint64(len(comp)), uint64(len(zl))), comp...)
	ll := rdbio.AppendLen(nil, 3)
	for range 3 {
		ll = append(rdbio.AppendLen(ll, 40), long...)
	}
	opt := Options{Options: rdbio.Options{Cap: 32}, Target: "dragonfly"}
	for _, v := range [][]byte{rawString(zl), lzfZl} {
		in := oneKey(t, rdbio.TypeListZiplist, "zl", v)
		var out bytes.Buffer
		if _, err := Convert(t.Context(), &out, bytes.NewReader(in), opt); err != nil {
			t.Fatal(err)
		}
		kv := keyValues(t, out.Bytes())
		if len(kv) != 1 || kv[0].typ != rdbio.TypeListQuicklist || len(kv[0].elems) != 5 || kv[0].elems[4] != long {
			t.Errorf("converted: %+v", kv)
		}
	}
	// A linked list whose LZF element does not decode (a back reference
	// before any output) is corrupt, named by the element's offset.
	bad := append(rdbio.AppendLen(nil, 1), 0xC3, 2, 10, 0x20, 0x00)
	_, err := Convert(t.Context(), io.Discard, bytes.NewReader(oneKey(t, rdbio.TypeList, "k", bad)), Options{Target: "dragonfly"})
	if want := `offset 15, key "k": linked list: element 0`; !errors.Is(err, rdbio.ErrCorrupt) || !strings.Contains(err.Error(), want) {
		t.Errorf("a bad LZF element: %v, want %q", err, want)
	}
	for _, c := range []struct {
		typ   byte
		value []byte
		name  string
	}{
		{rdbio.TypeList, ll, "list"},
		{rdbio.TypeHashZipmap, rawString(rdbiotest.ZipmapOf("f", long, "g", long)), "hash-zipmap"},
	} {
		in := oneKey(t, c.typ, "k", c.value)
		_, err := Convert(t.Context(), io.Discard, bytes.NewReader(in), opt)
		want := `offset 11, key "k": ` + c.name + " value over the cap"
		if !errors.Is(err, rdbio.ErrTooLarge) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s over the cap: %v, want %q", c.name, err, want)
		}
	}
}

// TestZipmapAsZiplist re-encodes a zipmap as a ziplist hash (type 13, for
// a target that would not read listpack hashes) and as a listpack.
func TestZipmapAsZiplist(t *testing.T) {
	zm := rdbiotest.ZipmapOf("a", "1", "bb", "x")
	for _, typ := range []rdbio.Type{rdbio.TypeHashZiplist, rdbio.TypeHashListpack} {
		b, err := zipmapAs(typ, zm, 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		kind := blob.Listpack
		if typ == rdbio.TypeHashZiplist {
			kind = blob.Ziplist
		}
		var got []string
		err = blob.Entries(kind, b, func(e blob.Entry) error {
			if e.IsInt {
				got = append(got, strconv.FormatInt(e.Int, 10))
			} else {
				got = append(got, string(e.Str))
			}
			return nil
		})
		if err != nil || !slices.Equal(got, []string{"a", "1", "bb", "x"}) {
			t.Errorf("type %d: %q, %v", typ, got, err)
		}
		if err := blob.Check(kind, b, true, 2); err != nil {
			t.Errorf("type %d: %v", typ, err)
		}
	}
	if _, err := zipmapAs(rdbio.TypeHashZiplist, zm, 10); !errors.Is(err, rdbio.ErrTooLarge) {
		t.Errorf("a ziplist over the cap: %v", err)
	}
}

// TestUpgradeCorpus: every corpus file holding linked lists, ziplist lists
// or zipmaps converts for Dragonfly (dropping what Dragonfly cannot hold
// and convert does not rewrite) with those keys re-encoded, not dropped,
// their elements as they were, in order; analyze says Dragonfly loads the
// output. Converted back for redis-7.0, the output loads in redis 7.0
// with the digest of the input where redis 7.0 loads the input (per key,
// when keys were dropped).
func TestUpgradeCorpus(t *testing.T) {
	keep := map[string]bool{"list": true, "list-ziplist": true, "hash-zipmap": true}
	drop := dropAll()
	for k := range keep {
		delete(drop, k)
	}
	seen := 0
	for _, cf := range rdbiotest.Sweep(t) {
		fi, err := os.Stat(cf.Path)
		if err != nil || cf.Folder != "public" || fi.Size() > 1<<20 || !holdsOldTypes(readFile(t, cf.Path)) {
			continue
		}
		seen++
		t.Run(cf.Name, func(t *testing.T) {
			in := readFile(t, cf.Path)
			before := keyValues(t, in)
			dfly, rep, err := convertTo(t, cf.Path, "dragonfly", nil)
			if err != nil {
				checkRefusal(t, err)
				if dfly, rep, err = convertTo(t, cf.Path, "dragonfly", drop); err != nil {
					t.Fatalf("convert dropping every other kind: %v", err)
				}
			}
			for _, it := range rep.Items {
				if keep[it.Kind] && it.Action != Reencoded {
					t.Errorf("report: %+v", it)
				}
			}
			out := readFile(t, dfly)
			if v := analyzeBytes(t, out)["dragonfly"]; !v.Loads {
				t.Errorf("analyze says Dragonfly does not load the output: %+v", v.Causes)
			}
			sameElements(t, before, keyValues(t, out))
			back, _, err := convertTo(t, dfly, "redis-7.0", nil)
			if err != nil {
				t.Fatalf("converting the output for redis-7.0: %v", err)
			}
			if !cf.RedisLoads() {
				t.Logf("redis 7.0 does not load the input (%s): elements compared only", cf.Fields["redis70_loads"])
				return
			}
			if droppedKeys(rep) == 0 {
				want, werr := rdbiotest.Digest(t, cf.Path)
				got, gerr := rdbiotest.Digest(t, back)
				if werr != nil || gerr != nil || got != want {
					t.Fatalf("digest of the input %q (%v), of the output %q (%v)", want, werr, got, gerr)
				}
				t.Logf("redis 7.0: the input's %s", strings.SplitN(got, "\n", 2)[0])
				return
			}
			wantKeys, err := rdbiotest.Oracle(t, cf.Path, "--keys")
			if err != nil {
				t.Fatal(err)
			}
			gotKeys, err := rdbiotest.Oracle(t, back, "--keys")
			if err != nil {
				t.Fatalf("redis 7.0 refuses the output: %v", err)
			}
			had := strings.Split(strings.TrimSpace(wantKeys), "\n")
			kept := strings.Split(strings.TrimSpace(gotKeys), "\n")
			for _, l := range kept {
				if !slices.Contains(had, l) {
					t.Errorf("key line %q is not one of the input's", l)
				}
			}
			if len(had)-len(kept) != droppedKeys(rep) {
				t.Errorf("%d keys of %d loaded; the report drops %d", len(kept), len(had), droppedKeys(rep))
			}
		})
	}
	if seen == 0 {
		t.Skip("no corpus file holds linked lists, ziplist lists or zipmaps")
	}
}

// holdsOldTypes says whether a file holds linked lists, ziplist lists or
// zipmaps (as far as rdbio reads it).
func holdsOldTypes(b []byte) bool {
	r, err := rdbio.NewReader(bytes.NewReader(b), rdbio.Options{})
	if err != nil {
		return false
	}
	for {
		rec, err := r.Next()
		if err != nil {
			return false
		}
		switch rec.Type {
		case rdbio.TypeList, rdbio.TypeListZiplist, rdbio.TypeHashZipmap:
			if rec.Kind == rdbio.KindKey {
				return true
			}
		}
	}
}

// sameElements checks that every key of the old types in before (in
// order) is in after, as the type it becomes, with the same elements in
// the same order.
func sameElements(t *testing.T, before, after []keyValue) {
	t.Helper()
	becomes := map[rdbio.Type]rdbio.Type{rdbio.TypeList: rdbio.TypeListQuicklist2, rdbio.TypeListZiplist: rdbio.TypeListQuicklist,
		rdbio.TypeHashZipmap: rdbio.TypeHashListpack}
	i := 0
	for _, kv := range before {
		to, ok := becomes[kv.typ]
		if !ok {
			continue
		}
		for i < len(after) && !(after[i].db == kv.db && after[i].key == kv.key && after[i].typ == to) {
			i++
		}
		if i == len(after) {
			t.Errorf("key %q (db %d, type %d) not in the output as type %d", kv.key, kv.db, kv.typ, to)
			return
		}
		if !slices.Equal(after[i].elems, kv.elems) || after[i].expire != kv.expire {
			t.Errorf("key %q: %d elements (expiry %d), %d in the input (%d); %s", kv.key, len(after[i].elems), after[i].expire,
				len(kv.elems), kv.expire, firstDiff(after[i].elems, kv.elems))
		}
		i++
	}
}

// eachNode walks the nodes of the pending list value and calls fn with
// each until it returns false.
func eachNode(r *rdbio.Reader, fn func(*rdbio.Node) (bool, error)) error {
	nodes, err := r.Value().Nodes()
	if err != nil {
		return err
	}
	for nodes.Next() {
		if more, err := fn(nodes.Node()); err != nil || !more {
			return err
		}
	}
	return nodes.Err()
}
