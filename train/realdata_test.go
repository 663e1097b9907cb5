package train

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/hdt3213/rdb/lzf"
	"github.com/rdbz/rdbz/rdbio"
	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

// This file extracts list node strings (listpacks, ziplists, plain nodes)
// from the RDB files of the generated corpus, for measurements on realistic
// samples, with the project's streaming reader.

var corpusDir = filepath.Join(rdbiotest.Shared(), "corpus", "generated")

// listNodes calls fn with every decoded list node string of an RDB file.
func listNodes(path string, fn func([]byte)) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	r, err := rdbio.NewReader(f, rdbio.Options{})
	if err != nil {
		return err
	}
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if rec.Kind != rdbio.KindKey || !rdbio.IsList(rec.Type) {
			continue
		}
		if _, err := r.Nodes(); err != nil {
			return err
		}
		for {
			n, err := r.NextNode()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return err
			}
			if err := emitNode(n, fn); err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
		}
	}
}

func emitNode(n *rdbio.Node, fn func([]byte)) error {
	switch n.Enc {
	case rdbio.EncRaw:
		fn(n.Data)
	case rdbio.EncLZF:
		raw, err := lzf.Decompress(n.Data, len(n.Data), int(n.ULen))
		if err != nil || len(raw) != int(n.ULen) {
			return fmt.Errorf("LZF node at offset %d does not decode", n.Offset)
		}
		fn(raw)
	}
	return nil
}

// corpusSamples returns a reservoir sample of the list nodes of one corpus
// file, or an error if the file is missing or unreadable.
func corpusSamples(name string, budget int64) ([][]byte, error) {
	sm := NewSampler(budget, 42)
	if err := listNodes(filepath.Join(corpusDir, name), sm.Add); err != nil {
		return nil, err
	}
	return sm.Samples(), nil
}
