package rdbio

import (
	"encoding/binary"
	"os"
	"testing"

	hdtlzf "github.com/hdt3213/rdb/lzf"
	"github.com/rdbz/rdbz/rdbio/blob"
	"github.com/rdbz/rdbz/rdbio/lzf"
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
					raw, err = hdtlzf.Decompress(n.Data, len(n.Data), int(n.ULen))
					if err != nil {
						t.Fatalf("%s: %v", cf.Path, err)
					}
					pre, err := lzf.DecodePrefix(nil, n.Data, blob.HeadSize, int(n.ULen))
					if err != nil || len(pre) < min(blob.HeadSize, len(raw)) || string(pre) != string(raw[:len(pre)]) {
						t.Fatalf("%s: LZF prefix %q, stream starts %q", cf.Path, pre, raw[:blob.HeadSize])
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
	var walked int64
	err := blob.Entries(NodeBlob(typ), b, func(blob.Entry) error { walked++; return nil })
	if typ == TypeListQuicklist2 {
		return int64(binary.LittleEndian.Uint16(b[4:])), walked, err == nil
	}
	return int64(binary.LittleEndian.Uint16(b[8:])), walked, err == nil
}
