package rdbio

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// corpusDir is the shared corpus beside the checkout.
const corpusDir = "../../shared/corpus"

// corpusFile is one file of a corpus folder's MANIFEST.tsv.
type corpusFile struct {
	Path     string
	Fields   map[string]string
	FileKeys int
}

// corpusFiles lists every file of every corpus folder's MANIFEST.tsv; it
// skips the test with a clear message when the corpus is absent.
func corpusFiles(t testing.TB) []corpusFile {
	t.Helper()
	var out []corpusFile
	for _, dir := range []string{"public", "generated"} {
		m := filepath.Join(corpusDir, dir, "MANIFEST.tsv")
		f, err := os.Open(m)
		if err != nil {
			t.Skipf("corpus not found (%v): these tests need ../shared/corpus beside the checkout", err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		var cols []string
		for sc.Scan() {
			row := strings.Split(sc.Text(), "\t")
			if cols == nil {
				cols = row
				continue
			}
			cf := corpusFile{Fields: map[string]string{}}
			for i, c := range cols {
				if i < len(row) {
					cf.Fields[c] = row[i]
				}
			}
			cf.Path = filepath.Join(corpusDir, dir, cf.Fields["file"])
			out = append(out, cf)
		}
		f.Close()
	}
	if len(out) == 0 {
		t.Skip("corpus MANIFEST.tsv files list no files")
	}
	return out
}

// corruptByDesign names corpus files that are deliberately broken.
func corruptByDesign(name string) bool {
	return strings.Contains(name, "corrupt")
}
