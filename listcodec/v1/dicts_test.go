package v1

import (
	"sync"
	"testing"

	"github.com/rdbz/rdbz/listcodec/internal/nodetest"
	"github.com/rdbz/rdbz/listcodec/node"
)

const testDictID = nodetest.DictID

// buildTestDict builds a dictionary with ID id (nodetest.DictBytes).
func buildTestDict(tb testing.TB, id uint32) *node.Dict {
	tb.Helper()
	d, err := node.ParseDict(nodetest.DictBytes(tb, id))
	if err != nil {
		tb.Fatalf("ParseDict: %v", err)
	}
	return d
}

var (
	sharedDictOnce sync.Once
	sharedDict     *node.Dict
)

// testDict is one dictionary shared by the tests and benchmarks.
func testDict(tb testing.TB) *node.Dict {
	sharedDictOnce.Do(func() { sharedDict = buildTestDict(tb, testDictID) })
	return sharedDict
}
