package filter

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/rdbz/rdbz/rdbio"
	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

func TestMain(m *testing.M) { os.Exit(rdbiotest.Main(m)) }

// splitPattern splits a corpus file's keys in two: those ending in a
// vowel or a digit 0-4.
const splitPattern = "*[aeiou0-4]"

// maxJudgedKeys bounds the files whose keys a server lists, one by one,
// by default (RDBZ_LONG=1: all): listing 92 000 keys takes seconds.
const maxJudgedKeys = 25000

// TestCorpusSplit: on every corpus file rdbio reads, the copy of the keys
// --match P keeps and the copy of those --exclude P keeps hold every key
// of the file exactly once between them; where redis 7.0 loads the file,
// both load and hold each key with its digest and expiry (rdb-oracle
// --keys). The large generated files, and the judging of files of more
// than maxJudgedKeys keys, run with RDBZ_LONG=1.
func TestCorpusSplit(t *testing.T) {
	for _, cf := range rdbiotest.Files(t) {
		if n, _ := strconv.ParseInt(cf.Fields["bytes"], 10, 64); cf.Folder == "generated" && n > rdbiotest.SmallBytes && !rdbiotest.Long() {
			continue
		}
		t.Run(cf.Name, func(t *testing.T) {
			src, err := os.ReadFile(cf.Path)
			if err != nil {
				t.Fatal(err)
			}
			all, err := keyNames(src, nil)
			if err != nil {
				t.Skipf("rdbio does not read it: %v", err)
			}
			dir := t.TempDir()
			var names [][]string
			var paths []string
			for _, o := range []Options{{Match: []string{splitPattern}}, {Exclude: []string{splitPattern}}} {
				out, f, err := filteredCopy(t, src, o)
				if errors.Is(err, rdbio.ErrUnsupported) {
					t.Skipf("refused: %v", err) // the rest past it would go on unfiltered
				}
				if err != nil {
					t.Fatalf("%+v: %v", o, err)
				}
				ks, err := keyNames(out, nil)
				if err != nil {
					t.Fatalf("%+v: the copy does not read back: %v", o, err)
				}
				if int64(len(ks)) != f.Kept {
					t.Errorf("%+v: %d keys read back, %d kept", o, len(ks), f.Kept)
				}
				p := filepath.Join(dir, strconv.Itoa(len(paths))+".rdb")
				if err := os.WriteFile(p, out, 0o644); err != nil {
					t.Fatal(err)
				}
				names, paths = append(names, ks), append(paths, p)
			}
			if got := slices.Sorted(slices.Values(append(names[0], names[1]...))); !slices.Equal(got, all) {
				t.Fatalf("the two copies hold %d keys, the file %d", len(got), len(all))
			}
			if n, _ := strconv.Atoi(cf.Fields["keys"]); !cf.RedisLoads() || cf.CorruptByDesign() || n > maxJudgedKeys && !rdbiotest.Long() {
				return
			}
			judgeSplit(t, cf.Path, paths)
		})
	}
}

// judgeSplit checks that redis loads both copies and that they hold the
// keys of the source, each once, with their digests.
func judgeSplit(t *testing.T, src string, copies []string) {
	want, err := rdbiotest.JudgeKeys(t, "", src)
	if err != nil {
		t.Skipf("redis 7.0 refuses the source: %v", err)
	}
	var got []string
	for _, p := range copies {
		l, err := rdbiotest.JudgeKeys(t, "", p)
		if err != nil {
			t.Fatalf("redis 7.0 refuses a filtered copy: %v", err)
		}
		got = append(got, l.Keys...)
	}
	slices.Sort(got)
	if !slices.Equal(got, want.Keys) {
		t.Fatalf("the copies load %d key lines, the source %d", len(got), len(want.Keys))
	}
}

// filteredCopy copies src through a filter of o.
func filteredCopy(t *testing.T, src []byte, o Options) ([]byte, rdbio.Filtered, error) {
	t.Helper()
	f, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	_, fs, err := rdbio.CopyFiltered(&out, bytes.NewReader(src), rdbio.Options{IgnoreChecksum: true}, f.Keep)
	return out.Bytes(), fs, err
}

// keyNames lists the keys of an RDB as "db:key", sorted, through keep
// (nil: all); the keys after a record rdbio cannot walk are not seen.
func keyNames(b []byte, keep func(*rdbio.Record) bool) ([]string, error) {
	rr, err := rdbio.NewReader(bytes.NewReader(b), rdbio.Options{IgnoreChecksum: true})
	if err != nil {
		return nil, err
	}
	r := rdbio.NewFilter(rr, keep)
	var ks []string
	for {
		rec, err := r.Next()
		if errors.Is(err, rdbio.ErrUnsupported) {
			break
		}
		if err != nil {
			return nil, err
		}
		if rec.Kind == rdbio.KindEOF {
			break
		}
		if rec.Kind == rdbio.KindKey {
			ks = append(ks, strconv.FormatUint(rec.DB, 10)+":"+string(rec.Key))
		}
	}
	slices.Sort(ks)
	return ks, nil
}
