// Package nodetest makes the synthetic list nodes and zstd dictionaries
// that the tests of listcodec and listcodec/node share.
package nodetest

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

// DictID is the ID of the dictionary the tests share.
const DictID = 40000

// Nodes returns n JSON-like nodes of about size bytes each.
func Nodes(seed uint64, n, size int) [][]byte {
	r := rand.New(rand.NewPCG(seed, seed+1))
	nodes := make([][]byte, n)
	for i := range nodes {
		nodes[i] = rdbiotest.JSONish(r, size/2+r.IntN(size))
	}
	return nodes
}

// DictBytes builds a dictionary with ID id from synthetic samples; its
// content (history) is JSON-like text from another seed.
func DictBytes(tb testing.TB, id uint32) []byte {
	tb.Helper()
	hist := bytes.Join(Nodes(1000+uint64(id), 4, 8192), nil)
	b, err := zstd.BuildDict(zstd.BuildDictOptions{
		ID:         id,
		Contents:   Nodes(2000+uint64(id), 200, 8192),
		History:    hist,
		CompatV155: true,
		Level:      zstd.SpeedDefault,
	})
	if err != nil {
		tb.Fatalf("BuildDict: %v", err)
	}
	return b
}
