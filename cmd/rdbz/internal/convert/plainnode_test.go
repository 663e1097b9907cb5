package convert

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rdbz/rdbz/rdbio"
	"github.com/rdbz/rdbz/rdbio/blob"
	"github.com/rdbz/rdbz/rdbio/lzf"
	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

// plainCap is the string cap the PLAIN node tests convert with.
const plainCap = 4096

// qlNode is a quicklist 2 node to write: a PACKED listpack of elems, or
// a PLAIN node of elems[0] stored raw, LZF-compressed (claiming ulen
// decoded bytes, 0 for the true length) or as an integer.
type qlNode struct {
	packed   bool
	elems    []string
	lzf, int bool
	ulen     uint64
}

// quicklistFile is a file of the given magic with a type 18 list "list"
// of nodes and a string "str" after it.
func quicklistFile(t *testing.T, magic string, nodes []qlNode) []byte {
	t.Helper()
	v, _ := strconv.Atoi(magic[5:])
	var b bytes.Buffer
	w, err := rdbio.NewWriter(&b, rdbio.Header{Magic: magic, Version: v})
	if err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	put := func(p ...byte) {
		_, err := w.Write(p)
		must(err)
	}
	put(rdbio.OpSelectDB, 0, rdbio.TypeListQuicklist2)
	must(w.WriteString([]byte("list")))
	must(w.WriteLen(uint64(len(nodes))))
	for _, n := range nodes {
		switch {
		case n.packed:
			must(w.WriteNode(2, rdbio.EncRaw, 0, 0, rdbiotest.ListpackOf(n.elems...)))
		case n.int:
			v, err := strconv.ParseInt(n.elems[0], 10, 8)
			must(err)
			put(1, 0xC0, byte(int8(v))) // container PLAIN, an 8-bit integer
		case n.lzf:
			e := []byte(n.elems[0])
			var enc lzf.Encoder
			comp, ok := enc.Encode(nil, e, len(e)+len(e)/32+8)
			if !ok {
				t.Fatal("LZF encoding failed")
			}
			ulen := uint64(len(e))
			if n.ulen != 0 {
				ulen = n.ulen
			}
			must(w.WriteNode(1, rdbio.EncLZF, 0, ulen, comp))
		default:
			must(w.WriteNode(1, rdbio.EncRaw, 0, 0, []byte(n.elems[0])))
		}
	}
	put(rdbio.TypeString)
	must(w.WriteString([]byte("str")))
	must(w.WriteString([]byte("value")))
	must(w.Close())
	return b.Bytes()
}

// plainNodes are a list's nodes: PACKED ones and PLAIN ones within and
// over plainCap, raw and LZF-compressed (one of those compressed within
// the cap but decoding over it), of 21 bytes and of at most 20 (which may
// read as an integer), and one stored as an integer.
func plainNodes() []qlNode {
	rng := rand.New(rand.NewPCG(12, 62))
	raw := string(rdbiotest.Patchy(rng, 100_000))
	js := string(rdbiotest.JSONish(rng, 100_000))
	rep := strings.Repeat("0123456789abcdef", 100_000/16) // LZF: ~1.2 KB
	within := string(rdbiotest.RandomBytes(rng, 3000))
	return []qlNode{
		{packed: true, elems: []string{"a", "b", "12"}},
		{elems: []string{raw}},
		{elems: []string{js}, lzf: true},
		{packed: true, elems: []string{"c", "-7"}},
		{elems: []string{rep}, lzf: true},
		{elems: []string{within}},
		{elems: []string{within[:2000]}, lzf: true},
		{elems: []string{strings.Repeat("x", 21)}},
		{elems: []string{"12345"}},
		{elems: []string{"twenty-bytes-exactly"}},
		{elems: []string{"-100"}, int: true},
		{elems: []string{raw[:plainCap+1]}},
	}
}

// listElements walks the first list of file (either list type) with the
// node API and returns its elements, integers in decimal.
func listElements(t *testing.T, file []byte) (rdbio.Type, []string) {
	t.Helper()
	r, err := rdbio.NewReader(bytes.NewReader(file), rdbio.Options{Cap: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	for {
		rec, err := r.Next()
		if err != nil {
			t.Fatalf("output: %v", err)
		}
		if rec.Kind == rdbio.KindEOF {
			t.Fatal("no list in the file")
		}
		if rec.Kind != rdbio.KindKey || !rdbio.IsList(rec.Type) {
			continue
		}
		var out []string
		err = eachNode(r, func(n *rdbio.Node) (bool, error) {
			data := n.Data
			switch n.Enc {
			case rdbio.EncLZF:
				if data, err = lzf.Decode(nil, n.Data, int(n.ULen)); err != nil {
					return false, err
				}
			case rdbio.EncInt:
				out = append(out, strconv.FormatInt(rdbio.IntValue(n.Data), 10))
				return true, nil
			}
			if n.Container == 1 {
				out = append(out, string(data))
				return true, nil
			}
			kind := blob.Listpack
			if rec.Type == rdbio.TypeListQuicklist {
				kind = blob.Ziplist
			}
			return true, blob.Entries(kind, data, func(e blob.Entry) error {
				if e.IsInt {
					out = append(out, strconv.FormatInt(e.Int, 10))
				} else {
					out = append(out, string(e.Str))
				}
				return nil
			})
		})
		if err != nil {
			t.Fatalf("list %q: %v", rec.Key, err)
		}
		return rec.Type, out
	}
}

// TestPlainNodesStream converts quicklist 2 lists whose PLAIN nodes are
// over the cap (raw, LZF) for redis-6.2 with a 4 KiB cap: the output's
// quicklist of ziplists holds the input's elements in order, the key after
// the list follows, and (when the servers are there) redis 6.2 loads the
// output with the digest that redis 7.0 (REDIS0010) or 7.2 (REDIS0011)
// gives the input.
func TestPlainNodesStream(t *testing.T) {
	nodes := plainNodes()
	var want []string
	for _, n := range nodes {
		want = append(want, n.elems...)
	}
	for _, magic := range []string{"REDIS0011", "REDIS0010"} {
		in := quicklistFile(t, magic, nodes)
		if _, got := listElements(t, in); !slices.Equal(got, want) {
			t.Fatalf("%s: the input's walk differs from its nodes", magic)
		}
		var out bytes.Buffer
		rep, err := Convert(t.Context(), &out, bytes.NewReader(in), Options{Options: rdbio.Options{Cap: plainCap}, Target: "redis-6.2"})
		if err != nil {
			t.Fatalf("%s: %v", magic, err)
		}
		if rep.To != "REDIS0009" || rep.Keys != 2 {
			t.Errorf("%s: report to %s, %d keys", magic, rep.To, rep.Keys)
		}
		typ, got := listElements(t, out.Bytes())
		if typ != rdbio.TypeListQuicklist || !slices.Equal(got, want) {
			t.Fatalf("%s: output list of type %d holds %d elements, not the input's %d", magic, typ, len(got), len(want))
		}
		if recs := strings.Join(records(t, out.Bytes()), " "); recs != "selectdb key:list:list-quicklist key:str:string eof" {
			t.Errorf("%s: output records %s", magic, recs)
		}
		t.Run("redis-"+magic, func(t *testing.T) { redisAgrees(t, magic, in, out.Bytes()) })
	}
}

// redisAgrees checks that redis 6.2 loads out with the digest the input
// has in redis 7.0 (RDB 10) or 7.2 (RDB 11).
func redisAgrees(t *testing.T, magic string, in, out []byte) {
	dir := t.TempDir()
	inPath, outPath := filepath.Join(dir, "in.rdb"), filepath.Join(dir, "out.rdb")
	if err := os.WriteFile(inPath, in, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(outPath, out, 0o644); err != nil {
		t.Fatal(err)
	}
	if magic == "REDIS0011" {
		t.Setenv("REDIS_SERVER", rdbiotest.ServerBinary(t, "redis-server-7.2.6"))
	}
	before, err := rdbiotest.Oracle(t, inPath)
	if err != nil {
		t.Fatalf("the input: %v", err)
	}
	t.Setenv("REDIS_SERVER", rdbiotest.ServerBinary(t, "redis-server-6.2.16"))
	after, err := rdbiotest.Oracle(t, outPath)
	if err != nil {
		t.Fatalf("redis 6.2 refuses the output: %v", err)
	}
	if before != after || !strings.Contains(after, "keys 2") {
		t.Errorf("input:\n%soutput in redis 6.2:\n%s", before, after)
	}
	t.Logf("input and output: %s", strings.ReplaceAll(strings.TrimSpace(after), "\n", "; "))
}

// TestPlainNodeDamage: an input cut inside a PLAIN node over the cap, and
// PLAIN LZF nodes (over the cap, and within it but decoding over it) that
// claim one byte more or less than their stream decodes to, fail naming
// an offset and the key, wrapping rdbio.ErrCorrupt, without a panic.
func TestPlainNodeDamage(t *testing.T) {
	nodes := plainNodes()
	in := quicklistFile(t, "REDIS0011", nodes)
	raw, js, rep := nodes[1].elems[0], nodes[2].elems[0], nodes[4].elems[0]
	rawAt := bytes.Index(in, []byte(raw[:64]))
	cases := map[string][]byte{
		"cut in a raw node":    in[:rawAt+len(raw)/2],
		"cut in an LZF node":   in[:rawAt+len(raw)+1000],
		"cut after the header": in[:rawAt-1],
	}
	for _, d := range []int{1, -1} {
		for i, e := range map[int]string{2: js, 4: rep} {
			bad := append([]qlNode(nil), nodes...)
			bad[i].ulen = uint64(len(e) + d)
			cases["LZF node "+strconv.Itoa(i)+" claiming "+strconv.Itoa(d)] = quicklistFile(t, "REDIS0011", bad)
		}
	}
	for name, file := range cases {
		_, err := Convert(t.Context(), io.Discard, bytes.NewReader(file), Options{Options: rdbio.Options{Cap: plainCap}, Target: "redis-6.2"})
		if !errors.Is(err, rdbio.ErrCorrupt) || !strings.Contains(err.Error(), "offset ") || !strings.Contains(err.Error(), `"list"`) {
			t.Errorf("%s: err %v, want a corrupt input naming an offset and the key", name, err)
		} else {
			t.Logf("%s: %v", name, err)
		}
	}
}

// TestPackedNodeOverCapRefused: a PACKED node (a listpack) over the cap is
// refused, naming its offset and key, as ErrTooLarge.
func TestPackedNodeOverCapRefused(t *testing.T) {
	var elems []string
	for i := range 1000 {
		elems = append(elems, "element-"+strconv.Itoa(i))
	}
	in := quicklistFile(t, "REDIS0011", []qlNode{{elems: []string{strings.Repeat("p", 5000)}}, {packed: true, elems: elems}})
	_, err := Convert(t.Context(), io.Discard, bytes.NewReader(in), Options{Options: rdbio.Options{Cap: plainCap}, Target: "redis-6.2"})
	at := bytes.Index(in, []byte(strings.Repeat("p", 64))) + 5000
	if !errors.Is(err, rdbio.ErrTooLarge) || !strings.Contains(err.Error(), "offset "+strconv.Itoa(at)+`, key "list": PACKED`) {
		t.Fatalf("err %v, want ErrTooLarge for the PACKED node at offset %d of key \"list\"", err, at)
	}
}

// TestGateStreamed: streamed writes what is held, the head, the body and
// the tail, and goes on at the offset end gives.
func TestGateStreamed(t *testing.T) {
	var out bytes.Buffer
	g := &gate{out: &out, heldAt: 100}
	g.Write([]byte("held"))
	body := func(w io.Writer) error { _, err := io.WriteString(w, "-body-"); return err }
	if err := g.streamed([]byte("head"), body, []byte("tail"), func() int64 { return 5000 }); err != nil {
		t.Fatal(err)
	}
	if out.String() != "heldhead-body-tail" || g.heldAt != 5000 || len(g.held) != 0 {
		t.Fatalf("wrote %q, at %d holding %d bytes", out.String(), g.heldAt, len(g.held))
	}
	leak := func(io.Writer) error { g.Write([]byte("x")); return nil }
	if err := g.streamed(nil, leak, nil, func() int64 { return 6000 }); err == nil {
		t.Fatal("input bytes that reached the gate during the body: no error")
	}
}

// TestPlainNodeStreamsInBoundedMemory converts a list with a 24 MiB PLAIN
// node, raw and LZF, read from a pipe and written to the reader that checks
// it, and checks that the conversion allocated a small part of that.
func TestPlainNodeStreamsInBoundedMemory(t *testing.T) {
	const size = 24 << 20 // 1.2–1.7 MiB allocated at 48 MiB as at 24
	rng := rand.New(rand.NewPCG(7, 8))
	elem := rdbiotest.JSONish(rng, size)
	var enc lzf.Encoder
	comp, ok := enc.Encode(nil, elem, size+size/32+8)
	if !ok {
		t.Fatal("LZF encoding failed")
	}
	for _, lzf := range []bool{false, true} {
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		w, err := rdbio.NewWriter(inW, rdbio.Header{Magic: "REDIS0011", Version: 11})
		if err != nil {
			t.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		go func() {
			w.Write([]byte{rdbio.OpSelectDB, 0, rdbio.TypeListQuicklist2})
			w.WriteString([]byte("big"))
			w.WriteLen(1)
			if lzf {
				w.WriteNode(1, rdbio.EncLZF, 0, size, comp)
			} else {
				w.WriteNode(1, rdbio.EncRaw, 0, 0, elem)
			}
			inW.CloseWithError(w.Close())
		}()
		go func() {
			_, err := Convert(t.Context(), outW, inR, Options{Options: rdbio.Options{Cap: 1 << 20}, Target: "redis-6.2"})
			inR.CloseWithError(err)
			outW.CloseWithError(err)
		}()
		head, tail, err := blob.SingleEntryFrame(blob.Ziplist, size)
		if err != nil {
			t.Fatal(err)
		}
		check := &matcher{want: [][]byte{head, elem, tail}}
		r, err := rdbio.NewReader(outR, rdbio.Options{Cap: 1 << 20})
		if err != nil {
			t.Fatal(err)
		}
		rec, err := r.Next() // SELECTDB
		if err == nil {
			rec, err = r.Next()
		}
		if err != nil || rec.Type != rdbio.TypeListQuicklist {
			t.Fatalf("lzf %v: %v, %+v", lzf, err, rec)
		}
		nodes, err := r.Value().Nodes()
		if err != nil {
			t.Fatal(err)
		}
		if !nodes.Next() {
			t.Fatal(nodes.Err())
		}
		if _, err := nodes.CopyDecoded(check); err != nil {
			t.Fatalf("lzf %v: %v", lzf, err)
		}
		if _, err := rdbio.Drain(r); err != nil {
			t.Fatalf("lzf %v: %v", lzf, err)
		}
		runtime.ReadMemStats(&after)
		if !check.done() {
			t.Fatalf("lzf %v: the output node is not the one-entry ziplist of the element", lzf)
		}
		alloc := after.TotalAlloc - before.TotalAlloc
		t.Logf("lzf %v: %d KiB allocated converting and checking a %d MiB element", lzf, alloc>>10, size>>20)
		if alloc > size/6 {
			t.Errorf("lzf %v: %d bytes allocated, over %d", lzf, alloc, size/6)
		}
	}
}

// matcher compares what is written with want, piece after piece.
type matcher struct {
	want [][]byte
	bad  bool
}

func (m *matcher) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 && !m.bad {
		if len(m.want) == 0 {
			m.bad = true
			break
		}
		k := min(len(p), len(m.want[0]))
		if !bytes.Equal(p[:k], m.want[0][:k]) {
			m.bad = true
		}
		p, m.want[0] = p[k:], m.want[0][k:]
		if len(m.want[0]) == 0 {
			m.want = m.want[1:]
		}
	}
	return n, nil
}

func (m *matcher) done() bool { return !m.bad && len(m.want) == 0 }
