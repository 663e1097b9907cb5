package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/rdbz/rdbz/listcodec/format"
	"github.com/rdbz/rdbz/rdbio"
)

// TestCompressTrainsAsRdbzTrain: with the same sample and seed, the
// dictionary compress embeds is the one rdbz train writes.
func TestCompressTrainsAsRdbzTrain(t *testing.T) {
	dir := t.TempDir()
	in := trainInput(t)
	dict, comp := filepath.Join(dir, "d.dict"), filepath.Join(dir, "c.rdbz")
	for _, args := range [][]string{
		{"train", "--seed", "5", "-o", dict, in},
		{"compress", "--format", "1", "--seed", "5", "-o", comp, in},
	} {
		if _, stderr, code := run(t, nil, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
	}
	want, err := os.ReadFile(dict)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(comp)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var got []byte
	err = rdbio.ForEachAux(f, func(name, value []byte) bool {
		if string(name) == format.AuxDict {
			got = bytes.Clone(value)
			return false
		}
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	if got == nil {
		t.Fatal("compress embedded no dictionary")
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("compress embedded a %d-byte dictionary, rdbz train wrote a different %d-byte one", len(got), len(want))
	}
}
