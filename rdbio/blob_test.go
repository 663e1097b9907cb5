package rdbio

import (
	"encoding/binary"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/hdt3213/rdb/lzf"
)

// TestNodeCountsWalk: on every listpack and ziplist node of the corpus,
// the entry walk agrees with the header count, and LZF prefixes decode
// like whole streams.
func TestNodeCountsWalk(t *testing.T) {
	nodes := 0
	for _, cf := range corpusFiles(t) {
		if cf.CorruptByDesign() {
			continue
		}
		f, err := os.Open(cf.Path)
		if err != nil {
			t.Fatal(err)
		}
		r, err := NewReader(f, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for {
			rec, err := r.Next()
			if err != nil {
				break
			}
			if rec.Kind != KindKey || !IsList(rec.Type) {
				continue
			}
			ns, err := r.Value().Nodes()
			if err != nil {
				break
			}
			for ns.Next() {
				n := ns.Node()
				if n.Container == 1 || n.Data == nil || n.Enc == EncInt {
					continue
				}
				raw := n.Data
				if n.Enc == EncLZF {
					raw, err = lzf.Decompress(n.Data, len(n.Data), int(n.ULen))
					if err != nil {
						t.Fatalf("%s: %v", cf.Path, err)
					}
					pre, err := LZFDecodePrefix(nil, n.Data, BlobHead, int(n.ULen))
					if err != nil || len(pre) < min(BlobHead, len(raw)) || string(pre) != string(raw[:len(pre)]) {
						t.Fatalf("%s: LZF prefix %q, stream starts %q", cf.Path, pre, raw[:BlobHead])
					}
				}
				header, walked, ok := nodeHeaderAndWalk(rec.Type, raw)
				if !ok || header != walked {
					t.Fatalf("%s key %q: header count %d, walk %d (ok %v)", cf.Path, rec.Key, header, walked, ok)
				}
				nodes++
			}
		}
		f.Close()
	}
	t.Logf("%d nodes checked", nodes)
}

func nodeHeaderAndWalk(typ Type, b []byte) (int64, int64, bool) {
	if typ == TypeListQuicklist2 {
		w, ok := walkListpack(b)
		return int64(binary.LittleEndian.Uint16(b[4:])), w, ok
	}
	w, ok := walkZiplist(b)
	return int64(binary.LittleEndian.Uint16(b[8:])), w, ok
}

// TestBlobCounts covers the count helpers on hand-made blobs, including
// the "unknown count" headers that force a walk.
func TestBlobCounts(t *testing.T) {
	lp := func(count uint16, entries ...[]byte) []byte {
		b := []byte{0, 0, 0, 0, 0, 0}
		for _, e := range entries {
			b = append(b, e...)
			b = append(b, byte(len(e)))
		}
		b = append(b, 0xFF)
		binary.LittleEndian.PutUint32(b, uint32(len(b)))
		binary.LittleEndian.PutUint16(b[4:], count)
		return b
	}
	zl := func(count uint16, entries ...[]byte) []byte {
		b := make([]byte, 10)
		for _, e := range entries {
			b = append(append(b, 0), e...)
		}
		b = append(b, 0xFF)
		binary.LittleEndian.PutUint16(b[8:], count)
		return b
	}
	str6 := func(s string) []byte { return append([]byte{0x80 | byte(len(s))}, s...) }
	zstr := func(s string) []byte { return append([]byte{byte(len(s))}, s...) }
	tests := []struct {
		name  string
		kind  Blob
		blob  []byte
		whole bool
		want  int64
		ok    bool
	}{
		{"listpack header", BlobListpack, lp(3, []byte{5}, []byte{6}, str6("abc")), true, 3, true},
		{"listpack 65535 walked", BlobListpack, lp(0xFFFF, []byte{5}, []byte{0xF1, 1, 2}, str6("abc"), []byte{0xC1, 2}), true, 4, true},
		{"listpack 65535 prefix only", BlobListpack, lp(0xFFFF, []byte{5}), false, 0, false},
		{"listpack bad encoding", BlobListpack, lp(0xFFFF, []byte{0xF5}), true, 0, false},
		{"ziplist header", BlobZiplist, zl(2, zstr("a"), []byte{0xF3}), true, 2, true},
		{"ziplist 65535 walked", BlobZiplist, zl(0xFFFF, zstr("a"), []byte{0xF3}, []byte{0xC0, 1, 0}, []byte{0xFE, 9}), true, 4, true},
		{"intset", BlobIntset, []byte{2, 0, 0, 0, 3, 0, 0, 0, 1, 0, 2, 0, 3, 0}, true, 3, true},
		{"zipmap header", BlobZipmap, []byte{1, 1, 'k', 1, 0, 'v', 0xFF}, true, 1, true},
		{"zipmap 254 walked", BlobZipmap, []byte{254, 1, 'k', 1, 0, 'v', 1, 'x', 2, 1, 'a', 'b', 'z', 0xFF}, true, 2, true},
		{"too short", BlobListpack, []byte{7, 0}, true, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := BlobCount(tc.kind, tc.blob, tc.whole)
			if got != tc.want || ok != tc.ok {
				t.Fatalf("count = %d, %v; want %d, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}

// TestLZFPrefixRandom decodes prefixes of random LZF streams.
func TestLZFPrefixRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 200; i++ {
		src := make([]byte, 20+rng.IntN(4000))
		for j := range src {
			src[j] = "abcabcxyz"[rng.IntN(9)]
		}
		comp := lzfCompressForTest(src)
		if comp == nil {
			continue
		}
		for _, want := range []int{1, 10, len(src) / 2, len(src)} {
			got, err := LZFDecodePrefix(nil, comp, want, len(src))
			if err != nil || len(got) < want || string(got) != string(src[:len(got)]) {
				t.Fatalf("prefix %d of %d bytes: err %v, %d bytes", want, len(src), err, len(got))
			}
		}
		if _, err := LZFDecodePrefix(nil, comp, len(src), len(src)-1); err == nil {
			t.Fatal("decoding past the limit was not refused")
		}
	}
}

// lzfCompressForTest is a tiny greedy LZF encoder (3-byte matches found
// by a map), enough to make valid streams with back references.
func lzfCompressForTest(src []byte) []byte {
	var out, lit []byte
	flush := func() {
		for len(lit) > 0 {
			n := min(len(lit), 32)
			out = append(append(out, byte(n-1)), lit[:n]...)
			lit = lit[n:]
		}
	}
	last := map[string]int{}
	for i := 0; i < len(src); {
		if i+3 <= len(src) {
			if j, ok := last[string(src[i:i+3])]; ok && i-j-1 < 8192 {
				n := 3
				for i+n < len(src) && n < 264 && src[j+n] == src[i+n] {
					n++
				}
				flush()
				off := i - j - 1
				l := n - 2
				if l < 7 {
					out = append(out, byte(off>>8)|byte(l<<5), byte(off))
				} else {
					out = append(out, byte(off>>8)|7<<5, byte(l-7), byte(off))
				}
				for k := i; k < i+n && k+3 <= len(src); k++ {
					last[string(src[k:k+3])] = k
				}
				i += n
				continue
			}
			last[string(src[i:i+3])] = i
		}
		lit = append(lit, src[i])
		i++
	}
	flush()
	return out
}
