package splitmerge

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rdbz/rdbz/cmd/rdbz/internal/cluster"
	"github.com/rdbz/rdbz/cmd/rdbz/internal/reshape"
	"github.com/rdbz/rdbz/cmd/rdbz/internal/verify"
	"github.com/rdbz/rdbz/listcodec"
	"github.com/rdbz/rdbz/listcodec/block"
	"github.com/rdbz/rdbz/listcodec/format2"
	"github.com/rdbz/rdbz/rdbio"
	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

// TestMain stops the redis-servers rdbiotest.Judge shares between tests.
func TestMain(m *testing.M) { os.Exit(rdbiotest.Main(m)) }

// testDict is the fixed dictionary of the tests (testdata/make-test-dict.sh).
const testDict = "../../../../testdata/test.dict"

// fileSource is a Source over a file.
func fileSource(path string) Source {
	return Source{Name: path, Open: func() (io.ReadCloser, error) { return os.Open(path) }}
}

// splitInto splits src by t into files dir/part-N.ext, and returns their paths.
func splitInto(t *testing.T, src Source, tb *cluster.Table, dir, ext string, opt SplitOptions) ([]string, *SplitResult, error) {
	t.Helper()
	paths := make([]string, tb.Parts())
	files := make([]*os.File, tb.Parts())
	dst := make([]io.Writer, tb.Parts())
	for i := range paths {
		paths[i] = filepath.Join(dir, "part-"+strconv.Itoa(i)+ext)
		f, err := os.Create(paths[i])
		if err != nil {
			t.Fatal(err)
		}
		files[i], dst[i] = f, f
	}
	res, err := Split(context.Background(), src, dst, tb, opt)
	for _, f := range files {
		if cerr := f.Close(); cerr != nil {
			t.Fatal(cerr)
		}
	}
	return paths, res, err
}

// clusterOf3 is a 3-node cluster of redis-cli's even slots, the masters of
// its CLUSTER NODES listing, and the table of their slots.
func clusterOf3(t *testing.T) ([]rdbiotest.ClusterNode, []cluster.Node, *cluster.Table) {
	even, _ := cluster.Even(3)
	var slots [][]string
	for _, rs := range even {
		slots = append(slots, []string{rs.String()})
	}
	nodes, listing := rdbiotest.StartCluster(t, slots...)
	masters, err := cluster.ParseNodes(strings.NewReader(listing))
	if err != nil {
		t.Fatal(err)
	}
	var ranges []cluster.Ranges
	byID := map[string]rdbiotest.ClusterNode{}
	for _, n := range nodes {
		byID[n.ID] = n
	}
	ordered := make([]rdbiotest.ClusterNode, len(masters))
	for i, m := range masters {
		ranges = append(ranges, m.Ranges)
		ordered[i] = byID[m.ID]
	}
	tb, err := cluster.NewTable(ranges)
	if err != nil {
		t.Fatal(err)
	}
	return ordered, masters, tb
}

// loadIntoNode loads part into its cluster node (as its dbfilename, DEBUG
// RELOAD) and checks that the node holds every key of it in its own slots:
// the keys the node counts in them (CLUSTER COUNTKEYSINSLOT) are all it
// holds (DBSIZE).
func loadIntoNode(t *testing.T, n rdbiotest.ClusterNode, m cluster.Node, part string) {
	t.Helper()
	data, err := os.ReadFile(part)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(n.Dir, "dump.rdb"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	rdbiotest.Commands(t, n.Conn, []string{"FUNCTION", "FLUSH"}, []string{"DEBUG", "RELOAD", "NOSAVE"})
	cmds := [][]string{{"DBSIZE"}}
	for _, r := range m.Ranges {
		for s := r.First; s <= r.Last; s++ {
			cmds = append(cmds, []string{"CLUSTER", "COUNTKEYSINSLOT", strconv.Itoa(s)})
		}
	}
	replies := rdbiotest.Replies(t, n.Conn, cmds...)
	total, _ := strconv.Atoi(replies[0][0])
	inSlots := 0
	for _, r := range replies[1:] {
		k, _ := strconv.Atoi(r[0])
		inSlots += k
	}
	if total != inSlots {
		t.Fatalf("node %s: %d keys, %d of them in its slots %s", m.ID[:8], total, inSlots, m.Ranges)
	}
}

// judgeKeys are the key lines redis 7.0 gives a file.
func judgeKeys(t *testing.T, path string) []string {
	t.Helper()
	l, err := rdbiotest.JudgeKeys(t, "", path)
	if err != nil {
		t.Fatalf("redis refuses %s: %v", filepath.Base(path), err)
	}
	return l.Keys
}

// splittable are the corpus files the split tests take: not corrupt by
// design, up to 5 MB unless RDBZ_LONG=1.
func splittable(t *testing.T) []rdbiotest.File {
	var out []rdbiotest.File
	for _, cf := range rdbiotest.Files(t) {
		fi, err := os.Stat(cf.Path)
		if err != nil || cf.CorruptByDesign() || (!rdbiotest.Long() && fi.Size() > rdbiotest.SmallBytes) {
			continue
		}
		out = append(out, cf)
	}
	return out
}

// notSplittable says why split refused a corpus file, or fails the test
// when it should not have.
func notSplittable(t *testing.T, err error) string {
	for _, e := range []error{reshape.ErrDB, rdbio.ErrUnsupported, rdbio.ErrChecksum} {
		if errors.Is(err, e) {
			return err.Error()
		}
	}
	t.Fatalf("split: %v", err)
	return ""
}

// TestSplitCorpusIntoCluster: every corpus file holding db 0 only splits
// into the three parts of a real cluster: each part loads into its node
// with every key in that node's slots; redis 7.0 gives the parts' keys
// together the key lines (digest, expiry, stream metadata) of the input;
// merged back the parts hold the input's data (verify); and the file's
// rdbz form (format 2) splits into rdbz parts with its dictionary whose
// RDBs are the parts of the file, byte for byte.
func TestSplitCorpusIntoCluster(t *testing.T) {
	files := splittable(t)
	nodes, masters, tb := clusterOf3(t)
	ran, split, compressed := 0, 0, 0
	for _, cf := range files {
		t.Run(cf.Name, func(t *testing.T) {
			ran++
			dir := t.TempDir()
			parts, _, err := splitInto(t, fileSource(cf.Path), tb, dir, ".rdb", SplitOptions{})
			if err != nil {
				t.Skip(notSplittable(t, err))
			}
			split++
			if cf.RedisLoads() {
				judgeParts(t, cf.Path, parts, nodes, masters)
			}
			if strings.Contains(cf.Fields["redis70_loads"], "duplicated key") {
				// The input holds a key twice: merge refuses it (as redis does).
				mergeRefuses(t, parts)
			} else {
				mergeVerifies(t, cf.Path, parts)
			}
			if splitRDBZ(t, cf.Path, tb, parts) {
				compressed++
			}
		})
	}
	if ran == len(files) && (split < 60 || compressed < 25) { // not when -run picks some
		t.Fatalf("only %d corpus files split, %d of them in format 2", split, compressed)
	}
	t.Logf("%d corpus files split, %d of them from format 2 too", split, compressed)
}

// judgeParts loads each part into its node, and checks that redis 7.0
// gives the parts' keys together the input's key lines.
func judgeParts(t *testing.T, in string, parts []string, nodes []rdbiotest.ClusterNode, masters []cluster.Node) {
	t.Helper()
	var got []string
	for i, p := range parts {
		loadIntoNode(t, nodes[i], masters[i], p)
		got = append(got, judgeKeys(t, p)...)
	}
	slices.Sort(got)
	if want := judgeKeys(t, in); !slices.Equal(got, want) {
		t.Fatalf("the parts hold %d keys, the input %d, or other values", len(got), len(want))
	}
}

// mergeParts merges the part files.
func mergeParts(parts []string, opt MergeOptions) ([]byte, error) {
	srcs := make([]Source, len(parts))
	for i, p := range parts {
		srcs[i] = fileSource(p)
	}
	var out bytes.Buffer
	_, err := Merge(context.Background(), srcs, &out, opt)
	return out.Bytes(), err
}

// mergeVerifies merges the parts and checks the result holds in's data.
func mergeVerifies(t *testing.T, in string, parts []string) {
	t.Helper()
	out, err := mergeParts(parts, MergeOptions{})
	if err != nil {
		t.Fatalf("merge: %v", err)
	}
	verifySame(t, in, out)
}

// mergeRefuses checks that merging the parts refuses a duplicate key.
func mergeRefuses(t *testing.T, parts []string) {
	t.Helper()
	if _, err := mergeParts(parts, MergeOptions{}); !errors.Is(err, reshape.ErrDuplicate) {
		t.Fatalf("merge of an input holding a key twice: %v", err)
	}
}

// verifySame fails unless the file at path and b hold the same data.
func verifySame(t *testing.T, path string, b []byte) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := verify.Verify(bufio.NewReader(f), bytes.NewReader(b), verify.Options{})
	if err != nil {
		t.Fatalf("verify: %v", err)
	}
	if res.Diff != nil {
		t.Fatalf("merged parts differ from the input: %s", res.Diff)
	}
}

// splitRDBZ compresses in to format 2 (with the test dictionary, or none
// for a file under 1 MiB, which the dictionary in the header would not
// pay for) and splits that: the parts are format 2 with the input's
// dictionary, and decompress to rdbParts. It reports false when format 2
// would not make in smaller (compress then writes the RDB itself).
func splitRDBZ(t *testing.T, in string, tb *cluster.Table, rdbParts []string) bool {
	t.Helper()
	opt := format2.Options{NoDict: true}
	if fi, err := os.Stat(in); err == nil && fi.Size() >= 1<<20 {
		dict, err := os.ReadFile(testDict)
		if err != nil {
			t.Fatal(err)
		}
		opt = format2.Options{Dict: dict}
	}
	dir := t.TempDir()
	z := filepath.Join(dir, "in.rdbz")
	compressFile(t, in, z, opt)
	hdr, ok := format2Header(t, z)
	if !ok {
		return false
	}
	parts, res, err := splitInto(t, fileSource(z), tb, dir, ".rdbz", SplitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Compressed || res.Kind != listcodec.KindFormat2 {
		t.Fatalf("rdbz parts: %+v", res)
	}
	for i, p := range parts {
		if h, ok := format2Header(t, p); ok && h.DictID != hdr.DictID {
			t.Fatalf("part %d: dictionary %d, the input's %d", i, h.DictID, hdr.DictID)
		}
		got := decompressFile(t, p)
		want, err := os.ReadFile(rdbParts[i])
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("part %d of the rdbz input decompresses to %d bytes unlike the RDB's part (%d)", i, len(got), len(want))
		}
	}
	return true
}

// format2Header is the header of a format-2 file; false for another file.
func format2Header(t *testing.T, path string) (block.Header, bool) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	kind, br, err := listcodec.Peek(f)
	if err != nil || kind != listcodec.KindFormat2 {
		return block.Header{}, false
	}
	h, err := block.ReadHeader(br)
	if err != nil {
		t.Fatal(err)
	}
	return h, true
}

func compressFile(t *testing.T, in, out string, opt format2.Options) {
	t.Helper()
	src, err := os.Open(in)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := format2.Compress(context.Background(), dst, src, opt); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
}

// decompressFile is the RDB an rdbz file (or an RDB) holds.
func decompressFile(t *testing.T, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	o, err := listcodec.Open(context.Background(), f, listcodec.DecompressOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	b, err := io.ReadAll(o)
	if err == nil {
		err = o.Finish()
	}
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestMergeForTarget: --target converts each input first: a redis 7.0
// dump merged with itself for redis-6.2 is an RDB 9 file that redis 6.2
// loads with every key once, and the conversion is reported.
func TestMergeForTarget(t *testing.T) {
	bin := rdbiotest.ServerBinary(t, "redis-server-6.2.16")
	const small = "../../../../testdata/small.rdb"
	src := []Source{fileSource(small), fileSource(small)}
	var out bytes.Buffer
	res, err := Merge(context.Background(), src, &out, MergeOptions{Target: "redis-6.2", Drop: map[string]bool{"stream2": true},
		MergeOptions: reshape.MergeOptions{OnDuplicate: reshape.KeepLast}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Magic != "REDIS0009" || res.Keys != 12 || res.Converted[0] == nil || res.Converted[1].Keys != 12 {
		t.Fatalf("result %+v", res.MergeReport)
	}
	path := filepath.Join(t.TempDir(), "m.rdb")
	if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := rdbiotest.Judge(t, bin, path)
	if err != nil || !strings.Contains(l.Summary, "keys 12\n") {
		t.Fatalf("redis 6.2: %v\n%v", err, l)
	}
	if _, err := Merge(context.Background(), src, io.Discard, MergeOptions{Target: "redis-6.2", Drop: map[string]bool{"stream2": true}}); !errors.Is(err, reshape.ErrDuplicate) {
		t.Fatalf("duplicates after conversion: %v", err)
	}
}
