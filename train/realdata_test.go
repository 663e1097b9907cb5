package train

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/rdbz/rdbz/rdbio"
	"github.com/rdbz/rdbz/rdbio/lzf"
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
	return rdbio.ForEachNode(f, rdbio.Options{}, func(_ []byte, n *rdbio.Node) (bool, error) {
		if err := emitNode(n, fn); err != nil {
			return false, fmt.Errorf("%s: %w", path, err)
		}
		return true, nil
	})
}

func emitNode(n *rdbio.Node, fn func([]byte)) error {
	switch n.Enc {
	case rdbio.EncRaw:
		fn(n.Data)
	case rdbio.EncLZF:
		raw, err := lzf.Decode(nil, n.Data, int(n.ULen))
		if err != nil {
			return fmt.Errorf("LZF node at offset %d does not decode", n.Offset)
		}
		fn(raw)
	}
	return nil
}

// corpusSamples returns a reservoir sample of the list nodes of one corpus
// file, or an error if the file is missing or unreadable.
func corpusSamples(name string, budget int64) ([][]byte, error) {
	sm := NewSampler[[]byte](budget, 42)
	if err := listNodes(filepath.Join(corpusDir, name), func(b []byte) { addBytes(sm, b) }); err != nil {
		return nil, err
	}
	return sm.Samples(), nil
}
