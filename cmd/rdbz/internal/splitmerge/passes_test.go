package splitmerge

import (
	"bytes"
	"context"
	"io"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/rdbz/rdbz/cmd/rdbz/internal/cluster"
	"github.com/rdbz/rdbz/cmd/rdbz/internal/reshape"
	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

// evenTable is the table of n parts of even slot ranges (--shards n).
func evenTable(t *testing.T, n int) *cluster.Table {
	t.Helper()
	ranges, err := cluster.Even(n)
	if err != nil {
		t.Fatal(err)
	}
	tb, err := cluster.NewTable(ranges)
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

// splitPasses splits the file in into n RDB parts in memory, writing at
// most per of them in one pass.
func splitPasses(t *testing.T, in string, tb *cluster.Table, per int) ([]*bytes.Buffer, *reshape.SplitReport, error) {
	t.Helper()
	bufs := make([]*bytes.Buffer, tb.Parts())
	dst := make([]io.Writer, tb.Parts())
	for i := range bufs {
		bufs[i] = new(bytes.Buffer)
		dst[i] = bufs[i]
	}
	src := reshape.Input{Name: in, Open: func() (io.ReadCloser, error) { return os.Open(in) }}
	opened := 0
	rep, err := inPasses(context.Background(), src, dst, tb, reshape.SplitOptions{}, per,
		func(lo, hi int) []io.Writer { opened += hi - lo; return dst[lo:hi] },
		func(_, _ int, err error) error { return err })
	if err == nil && opened != tb.Parts() {
		t.Fatalf("%d parts opened in all, of %d", opened, tb.Parts())
	}
	return bufs, rep, err
}

// TestSplitInPassesIsOnePass: a split written three parts a pass gives
// the parts, byte for byte, and the report of a split written in one pass
// (RESIZEDB counts included: the first pass's count serves every pass).
func TestSplitInPassesIsOnePass(t *testing.T) {
	tb := evenTable(t, 8)
	checked := 0
	for _, cf := range splittable(t) {
		if checked == 12 {
			break
		}
		one, rep1, err := splitPasses(t, cf.Path, tb, tb.Parts())
		if err != nil {
			continue // refused in one pass: the passes refuse it too (below)
		}
		checked++
		many, rep3, err := splitPasses(t, cf.Path, tb, 3)
		if err != nil {
			t.Fatalf("%s: in passes: %v", cf.Name, err)
		}
		for i := range one {
			if !bytes.Equal(one[i].Bytes(), many[i].Bytes()) {
				t.Fatalf("%s: part %d: %d bytes in one pass, %d in passes of 3", cf.Name, i, one[i].Len(), many[i].Len())
			}
		}
		if !slices.Equal(rep1.Parts, rep3.Parts) || rep1.Shared != rep3.Shared || rep1.Sized != rep3.Sized || rep1.Magic != rep3.Magic {
			t.Fatalf("%s: report %+v in one pass, %+v in passes", cf.Name, rep1, rep3)
		}
	}
	if checked == 0 {
		t.Skip("no corpus file splits")
	}
	t.Logf("%d corpus files split alike in one pass and in passes of 3", checked)
}

// TestSplitRDBZInPasses: an rdbz file split into more rdbz parts than are
// written at once gives parts whose RDBs are the RDB file's parts.
func TestSplitRDBZInPasses(t *testing.T) {
	files := rdbiotest.Files(t)
	i := slices.IndexFunc(files, func(f rdbiotest.File) bool { return strings.HasSuffix(f.Path, "generated/lists-logs.rdb") })
	if i < 0 {
		t.Skip("corpus file generated/lists-logs.rdb absent")
	}
	tb := evenTable(t, 2*rdbzPartsPerPass+1)
	parts, _, err := splitInto(t, fileSource(files[i].Path), tb, t.TempDir(), ".rdb", SplitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !splitRDBZ(t, files[i].Path, tb, parts) {
		t.Fatal("not split as format 2")
	}
}

// TestSplitInPassesRefusesStdin: a split into more parts than one pass
// writes needs to read its input again; stdin is refused, naming it.
func TestSplitInPassesRefusesStdin(t *testing.T) {
	tb := evenTable(t, rdbPartsPerPass+1)
	dst := make([]io.Writer, tb.Parts())
	for i := range dst {
		dst[i] = io.Discard
	}
	f, err := os.Open(testDict) // any bytes: the refusal comes before they are read
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	src := reshape.Input{Name: "(stdin)", Open: func() (io.ReadCloser, error) { return f, nil }, Once: true}
	_, err = inPasses(context.Background(), src, dst, tb, reshape.SplitOptions{}, rdbPartsPerPass,
		func(lo, hi int) []io.Writer { return dst[lo:hi] }, func(_, _ int, err error) error { return err })
	if err == nil || !strings.Contains(err.Error(), "(stdin) can be read only once") {
		t.Fatalf("split of stdin into %d parts: %v", tb.Parts(), err)
	}
}
