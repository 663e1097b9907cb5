package rdbio

import (
	"path/filepath"
	"testing"

	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

// corpusDir is the shared corpus beside the checkout.
var corpusDir = filepath.Join(rdbiotest.Shared(), "corpus")

// corpusFiles lists every corpus file (skipping when the corpus is absent).
func corpusFiles(t testing.TB) []rdbiotest.File { return rdbiotest.Sweep(t) }
