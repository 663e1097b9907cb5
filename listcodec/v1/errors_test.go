package v1

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/rdbz/rdbz/listcodec/format"
	"github.com/rdbz/rdbz/listcodec/internal/codectest"
	"github.com/rdbz/rdbz/listcodec/node"
	"github.com/rdbz/rdbz/rdbio"
)

// compressedSmall compresses testdata/small.rdb (stream mode, so the
// dictionary is trained from the file itself).
func compressedSmall(t *testing.T, opt CompressOptions) []byte {
	t.Helper()
	var out bytes.Buffer
	opt.Train.Stream = true
	if _, err := Compress(&out, bytes.NewReader(codectest.SmallRDB(t)), opt); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// firstZstdNode returns the offset of the first 0xC4 node's flags byte.
func firstZstdNode(t *testing.T, data []byte) (flags int, key string) {
	t.Helper()
	err := rdbio.ForEachNode(bytes.NewReader(data), rdbio.Options{}, func(k []byte, n *rdbio.Node) (bool, error) {
		if n.Enc != rdbio.EncZstd {
			return true, nil
		}
		flags, key = int(n.Offset)+bytes.IndexByte(n.Raw, 0xC4)+1, string(k)
		return false, nil
	})
	if err != nil || key == "" {
		t.Fatalf("no zstd node found (%v)", err)
	}
	return flags, key
}

func TestDecompressErrors(t *testing.T) {
	comp := compressedSmall(t, CompressOptions{})
	flagsAt, key := firstZstdNode(t, comp)
	// the frame starts after flags, clen and ulen (1 or 2 bytes each here)
	frameAt := bytes.Index(comp[flagsAt:], []byte{0x28, 0xB5, 0x2F, 0xFD}) + flagsAt
	cases := []struct {
		name   string
		mutate func([]byte)
		want   []string
	}{
		{"unknown flag bit", func(b []byte) { b[flagsAt] |= 0x80 }, []string{"unknown flag bits", "offset"}},
		{"corrupt frame", func(b []byte) {
			for i := frameAt + 8; i < frameAt+40; i++ {
				b[i] ^= 0x5A
			}
		}, []string{"zstd node", "offset", key}},
		{"wrong decoded length", func(b []byte) { b[frameAt-1]++ }, []string{"offset", key}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			bad := bytes.Clone(comp)
			c.mutate(bad)
			var out bytes.Buffer
			_, err := Decompress(&out, bytes.NewReader(bad), DecompressOptions{})
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Fatalf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

func TestExternalDictionary(t *testing.T) {
	comp := compressedSmall(t, CompressOptions{})
	r, _ := rdbio.NewReader(bytes.NewReader(comp), rdbio.Options{})
	var dict *node.Dict
	for dict == nil {
		rec, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		if rec.Kind == rdbio.KindAux && string(rec.Name) == format.AuxDict {
			d, err := node.ParseDict(bytes.Clone(rec.Value))
			if err != nil {
				t.Fatal(err)
			}
			dict = d
		}
	}
	data, _ := os.ReadFile("../../testdata/small.rdb")
	var ext bytes.Buffer
	if _, err := Compress(&ext, bytes.NewReader(data), CompressOptions{Dict: dict, NoEmbed: true}); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(ext.Bytes(), []byte(format.AuxDict+"\x00")) || !bytes.Contains(ext.Bytes(), []byte(format.AuxDictID)) {
		t.Fatal("--no-embed output should carry rdbz-dict-id, not the dictionary")
	}
	_, err := Decompress(&bytes.Buffer{}, bytes.NewReader(ext.Bytes()), DecompressOptions{})
	if err == nil || !strings.Contains(err.Error(), "dictionary "+itoa(dict.ID)) {
		t.Fatalf("missing dictionary: error %v, want one naming dictionary %d", err, dict.ID)
	}
	var back bytes.Buffer
	if _, err := Decompress(&back, bytes.NewReader(ext.Bytes()), DecompressOptions{Dicts: []*node.Dict{dict}}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(back.Bytes(), data) {
		t.Fatal("round trip with the external dictionary is not byte-identical")
	}
}

func itoa(v uint32) string { return strconv.FormatUint(uint64(v), 10) }
