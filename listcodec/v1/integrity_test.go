package v1

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/rdbz/rdbz/listcodec/internal/codectest"
	"github.com/rdbz/rdbz/listcodec/node"
	"github.com/rdbz/rdbz/rdbio"
)

// frameSpans returns where the zstd frames of a compressed file lie.
func frameSpans(t *testing.T, data []byte) [][2]int {
	t.Helper()
	var spans [][2]int
	err := rdbio.ForEachNode(bytes.NewReader(data), rdbio.Options{}, func(_ []byte, n *rdbio.Node) (bool, error) {
		if n.Enc == rdbio.EncZstd {
			start := int(n.Offset) + len(n.Raw)
			spans = append(spans, [2]int{start, start + int(n.Size)})
		}
		return true, nil
	})
	if err != nil || len(spans) == 0 {
		t.Fatalf("no zstd frames (%v)", err)
	}
	return spans
}

// TestFrameFlipsNeverSilent: in a compressed file whose CRC64 trailer was
// set to 0 (so the CRC cannot catch anything), no single-bit flip inside a
// frame decodes silently to other data, in any mode.
func TestFrameFlipsNeverSilent(t *testing.T) {
	comp := compressedSmall(t, DefaultCompressOptions())
	binary.LittleEndian.PutUint64(comp[len(comp)-8:], 0)
	want := map[Form][]byte{}
	spans := frameSpans(t, comp)
	r := rand.New(rand.NewPCG(9, 9))
	silent := 0
	const flips = 600
	for i := 0; i < flips; i++ {
		sp := spans[r.IntN(len(spans))]
		pos := sp[0] + r.IntN(sp[1]-sp[0])
		bad := bytes.Clone(comp)
		bad[pos] ^= 1 << r.IntN(8)
		to := Form(i % 3)
		var out bytes.Buffer
		_, err := Decompress(&out, bytes.NewReader(bad), DecompressOptions{To: to, Flow: Flow{Workers: 2}})
		if err != nil {
			continue
		}
		if want[to] == nil {
			var ref bytes.Buffer
			if _, err := Decompress(&ref, bytes.NewReader(comp), DecompressOptions{To: to, Flow: Flow{Options: rdbio.Options{IgnoreChecksum: true}, Workers: 2}}); err == nil {
				want[to] = ref.Bytes()
			}
		}
		if !bytes.Equal(out.Bytes(), want[to]) {
			silent++
		}
	}
	if silent > 0 {
		t.Fatalf("%d of %d bit flips inside frames decoded silently to other data", silent, flips)
	}
}

// TestZeroTrailerRefused: a format 1.1 file always carries a CRC64.
func TestZeroTrailerRefused(t *testing.T) {
	comp := compressedSmall(t, DefaultCompressOptions())
	binary.LittleEndian.PutUint64(comp[len(comp)-8:], 0)
	_, err := Decompress(&bytes.Buffer{}, bytes.NewReader(comp), DecompressOptions{})
	if !errors.Is(err, rdbio.ErrChecksum) {
		t.Fatalf("decompress of a 1.1 file with a zero trailer: %v, want ErrChecksum", err)
	}
}

// TestSourceZeroTrailerKept: a source whose trailer is 0 comes back
// byte-identical, though the compressed file carries a real CRC64.
func TestSourceZeroTrailerKept(t *testing.T) {
	src := bytes.Clone(codectest.SmallRDB(t))
	binary.LittleEndian.PutUint64(src[len(src)-8:], 0)
	var comp bytes.Buffer
	opt := DefaultCompressOptions()
	opt.Train.Stream = true
	if _, err := Compress(&comp, bytes.NewReader(src), opt); err != nil {
		t.Fatal(err)
	}
	c := comp.Bytes()
	if binary.LittleEndian.Uint64(c[len(c)-8:]) == 0 {
		t.Fatal("compressed output has a zero trailer")
	}
	var back bytes.Buffer
	if _, err := Decompress(&back, bytes.NewReader(c), DecompressOptions{}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(back.Bytes(), src) {
		t.Fatal("--to original of a zero-trailer source is not byte-identical")
	}
}

// TestWrongDictionary: a missing, different or altered dictionary is an
// error that names the dictionary.
func TestWrongDictionary(t *testing.T) {
	d := testDict(t)
	opt := DefaultCompressOptions()
	opt.Dict, opt.NoEmbed = d, true
	var comp bytes.Buffer
	if _, err := Compress(&comp, bytes.NewReader(codectest.SmallRDB(t)), opt); err != nil {
		t.Fatal(err)
	}
	decomp := func(in []byte, dicts ...*node.Dict) error {
		_, err := Decompress(&bytes.Buffer{}, bytes.NewReader(in), DecompressOptions{Dicts: dicts, Flow: Flow{Options: rdbio.Options{IgnoreChecksum: true}}})
		return err
	}
	if err := decomp(comp.Bytes(), d); err != nil {
		t.Fatalf("right dictionary: %v", err)
	}
	if err := decomp(comp.Bytes()); !errors.Is(err, node.ErrUnknownDict) {
		t.Fatalf("no dictionary: %v, want ErrUnknownDict", err)
	}
	// Same ID, other content.
	other := buildTestDict(t, testDictID+1)
	forged := bytes.Clone(other.Bytes)
	binary.LittleEndian.PutUint32(forged[4:], d.ID)
	fd, err := node.ParseDict(forged)
	if err != nil {
		t.Fatal(err)
	}
	fd.Source = "forged.dict"
	err = decomp(comp.Bytes(), fd)
	if !errors.Is(err, ErrWrongDict) || !bytes.Contains([]byte(err.Error()), []byte("forged.dict")) {
		t.Fatalf("wrong dictionary: %v, want ErrWrongDict naming forged.dict", err)
	}

	// An embedded dictionary with one byte changed (the CRC ignored).
	opt.NoEmbed = false
	comp.Reset()
	if _, err := Compress(&comp, bytes.NewReader(codectest.SmallRDB(t)), opt); err != nil {
		t.Fatal(err)
	}
	alt := bytes.Clone(comp.Bytes())
	i := bytes.Index(alt, d.Bytes)
	if i < 0 {
		t.Fatal("embedded dictionary not found")
	}
	alt[i+len(d.Bytes)-10] ^= 0x01 // in the content
	if err := decomp(alt); !errors.Is(err, ErrWrongDict) || !bytes.Contains([]byte(err.Error()), []byte("embedded")) {
		t.Fatalf("altered embedded dictionary: %v, want ErrWrongDict naming the embedded one", err)
	}
}

// TestFormat1StillDecodes: a file written by the format 1 rdbz (commit
// 0d10586: `rdbz compress testdata/small.rdb`) decodes to its source byte
// for byte.
func TestFormat1StillDecodes(t *testing.T) {
	old, err := os.ReadFile("../../testdata/small-format1.rdbz")
	if err != nil {
		t.Fatal(err)
	}
	var back bytes.Buffer
	if _, err := Decompress(&back, bytes.NewReader(old), DecompressOptions{}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(back.Bytes(), codectest.SmallRDB(t)) {
		t.Fatal("a format 1 file no longer decodes to its source")
	}
}
