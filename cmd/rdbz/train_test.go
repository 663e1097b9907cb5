package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/rdbz/rdbz/listcodec/node"
	"github.com/rdbz/rdbz/rdbio"
	"github.com/rdbz/rdbz/rdbio/lzf"
	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

// trainInput is a generated corpus file with enough list data, or
// testdata/small.rdb.
func trainInput(t *testing.T) string {
	p := filepath.Join(rdbiotest.Shared(), "corpus", "generated", "lists-logs.rdb")
	if _, err := os.Stat(p); err == nil {
		return p
	}
	return small
}

// quickTrain keeps the trainings of these tests short: 0.2 MB of sampled
// nodes (default 8 MB) and a 16 KiB dictionary (default 64 KiB) train in
// about a second.
var quickTrain = []string{"--sample-bytes", "200000", "--dict-size", "16384"}

// TestTrainDeterministic: the same input and seed give the same
// dictionary; another seed gives another one.
func TestTrainDeterministic(t *testing.T) {
	dir := t.TempDir()
	in := trainInput(t)
	var dicts [3][]byte
	for i, seed := range []string{"7", "7", "8"} {
		p := filepath.Join(dir, "d"+seed+string(rune('a'+i)))
		args := append([]string{"train", "--seed", seed, "-o", p}, quickTrain...)
		if _, stderr, code := run(t, nil, append(args, in)...); code != 0 {
			t.Fatalf("train: exit %d: %s", code, stderr)
		}
		dicts[i], _ = os.ReadFile(p)
	}
	if !bytes.Equal(dicts[0], dicts[1]) {
		t.Fatal("same input and seed gave different dictionaries")
	}
	if bytes.Equal(dicts[0], dicts[2]) {
		t.Fatal("seeds 7 and 8 gave the same dictionary")
	}
	d, err := node.ParseDict(dicts[0])
	if err != nil {
		t.Fatal(err)
	}
	if d.ID < 32768 || d.ID > 65535 {
		t.Fatalf("dictionary ID %d outside 32768..65535", d.ID)
	}
	t.Logf("seed 7: %d bytes, id %d", len(dicts[0]), d.ID)
}

// TestZstdCLIDecodesFrames: a dictionary from rdbz train decompresses,
// with zstd -d -D, the node frames rdbz compress wrote with it.
func TestZstdCLIDecodesFrames(t *testing.T) {
	if _, err := exec.LookPath("zstd"); err != nil {
		t.Skip("zstd CLI not installed (apt-get install -y zstd; .ci/run does it)")
	}
	dir := t.TempDir()
	in := trainInput(t)
	dict, comp := filepath.Join(dir, "n.dict"), filepath.Join(dir, "c.rdb")
	for _, args := range [][]string{append(append([]string{"train", "-o", dict}, quickTrain...), in), {"compress", "--format", "1", "--dict", dict, "-o", comp, in}} {
		if _, stderr, code := run(t, nil, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
	}
	frames, originals := nodeFrames(t, comp, in, 5)
	for i, fr := range frames {
		p := filepath.Join(dir, "frame")
		os.WriteFile(p, fr, 0o644)
		out, err := exec.Command("zstd", "-q", "-d", "-c", "-D", dict, p).Output()
		if err != nil {
			t.Fatalf("zstd -d -D: %v", err)
		}
		if !bytes.Equal(out, originals[i]) {
			t.Fatalf("frame %d: zstd decoded %d bytes that differ from the node (%d bytes)", i, len(out), len(originals[i]))
		}
	}
}

// nodeFrames returns the first n zstd frames of a compressed file and the
// decoded nodes at the same positions in the original.
func nodeFrames(t *testing.T, comp, orig string, n int) ([][]byte, [][]byte) {
	t.Helper()
	var frames, raws [][]byte
	var idx []int
	i := 0
	walk(t, comp, func(node *rdbio.Node) {
		if node.Enc == rdbio.EncZstd && len(frames) < n {
			frames = append(frames, bytes.Clone(node.Data))
			idx = append(idx, i)
		}
		i++
	})
	i = 0
	walk(t, orig, func(node *rdbio.Node) {
		if len(raws) < len(idx) && i == idx[len(raws)] {
			raw := node.Data // compressed nodes are raw or LZF
			if node.Enc == rdbio.EncLZF {
				var err error
				if raw, err = lzf.Decode(nil, node.Data, int(node.ULen)); err != nil {
					t.Fatal(err)
				}
			}
			raws = append(raws, bytes.Clone(raw))
		}
		i++
	})
	if len(frames) == 0 {
		t.Fatal("no zstd nodes in the compressed file")
	}
	return frames, raws
}

func walk(t *testing.T, path string, fn func(*rdbio.Node)) {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	err = rdbio.ForEachNode(f, rdbio.Options{}, func(_ []byte, n *rdbio.Node) (bool, error) {
		fn(n)
		return true, nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
