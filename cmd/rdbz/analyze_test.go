package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/klauspost/compress/zstd"
	"github.com/rdbz/rdbz/listcodec"
	"github.com/rdbz/rdbz/listcodec/flow"
	"github.com/rdbz/rdbz/listcodec/format2"
	"github.com/rdbz/rdbz/listcodec/v1"
	"github.com/rdbz/rdbz/rdbio"
	"github.com/rdbz/rdbz/rdbio/rdbiotest"
	"github.com/rdbz/rdbz/train"
	"github.com/urfave/cli/v2"
)

// analyzeJSON is the part of rdbz analyze --json the tests read.
type analyzeJSON struct {
	infoJSON
	Biggest map[string]struct {
		DB       uint64 `json:"db"`
		Key      string `json:"key"`
		Elements int64  `json:"elements"`
		Expire   int64  `json:"expire_ms"`
		Ties     int64  `json:"ties"`
	} `json:"biggest"`
	TopBytes []struct {
		Bytes int64 `json:"bytes"`
	} `json:"top_bytes"`
	Compat []struct {
		Server string `json:"server"`
		Loads  bool   `json:"loads"`
	} `json:"compat"`
	WhatIf *struct {
		RdbzCompressBytes int64 `json:"rdbz_compress_bytes"`
		Format1Bytes      int64 `json:"rdbz_compress_format1_bytes"`
		Exact             bool  `json:"exact"`
		Unchanged         bool  `json:"compress_copies_unchanged"`
		Format2           *struct {
			Exact bool `json:"exact"`
		} `json:"format2"`
	} `json:"whatif"`
}

func runAnalyzeJSON(t *testing.T, args ...string) (analyzeJSON, string, int) {
	t.Helper()
	out, stderr, code := run(t, nil, append([]string{"analyze", "--json"}, args...)...)
	var a analyzeJSON
	if err := json.Unmarshal([]byte(out), &a); err != nil {
		t.Fatalf("bad JSON (%v): %.500s", err, out)
	}
	return a, stderr, code
}

// analyzeHasInfo checks, on a file whose info --json gave info and exit
// icode, that analyze --json holds the fields of info --json with the
// same values and exits as info does (TestInfoJSONCorpus runs it on every
// corpus file).
func analyzeHasInfo(t *testing.T, path string, info infoJSON, icode int) {
	t.Helper()
	a, stderr, code := runAnalyzeJSON(t, "--sample-bytes", "0", path)
	if code != icode {
		t.Fatalf("analyze exits %d (%s), info exits %d", code, stderr, icode)
	}
	if !reflect.DeepEqual(a.infoJSON, info) {
		t.Fatalf("analyze %+v\ninfo    %+v", a.infoJSON, info)
	}
	if len(a.Compat) != 9 || a.WhatIf != nil {
		t.Fatalf("analyze: compat %d verdicts, whatif %v", len(a.Compat), a.WhatIf)
	}
}

// TestAnalyzeWhatIfVsCompress is the acceptance test of the what-if: on
// the generated corpus files, whatif.rdbz_compress_bytes is within 5% of
// the size of the file rdbz compress (default flags: format 2) writes, and
// rdbz_compress_format1_bytes of `compress --format 1`'s, each equal to it
// where the what-if says it is exact. Both train a dictionary on up to
// 8 MB of nodes, so by default it runs on the files of at most 4 MB (the
// 4.8 MB lists-logs.rdb alone took 30 s on a busy machine); with
// RDBZ_LONG=1 on every generated file (docs/testing.md). The files that
// rdbio/analyze's TestWhatIfMatchesCompress checks to the byte in-process (the
// same dictionary, the same size) are left to it by default.
func TestAnalyzeWhatIfVsCompress(t *testing.T) {
	exactInListcodec := map[string]bool{"lists-ints-small.rdb": true, "mixed-all-types.rdb": true}
	for _, cf := range rdbiotest.Generated(t, 4<<20) {
		if exactInListcodec[cf.Name] && !rdbiotest.Long() {
			continue
		}
		t.Run(cf.Name, func(t *testing.T) {
			a, stderr, code := runAnalyzeJSON(t, cf.Path)
			if code != 0 || a.WhatIf == nil {
				t.Fatalf("analyze exit %d: %s", code, stderr)
			}
			f2 := a.WhatIf.Format2
			if f2 == nil {
				t.Fatal("no format-2 prediction")
			}
			for _, c := range []struct {
				args  []string
				pred  int64
				exact bool
			}{
				{nil, a.WhatIf.RdbzCompressBytes, f2.Exact},
				{[]string{"--format", "1"}, a.WhatIf.Format1Bytes, a.WhatIf.Exact},
			} {
				out := filepath.Join(t.TempDir(), "c.rdb")
				if _, stderr, code := run(t, nil, append(append([]string{"compress"}, c.args...), "-o", out, cf.Path)...); code != 0 {
					t.Fatalf("compress %v exit %d: %s", c.args, code, stderr)
				}
				st, err := os.Stat(out)
				if err != nil {
					t.Fatal(err)
				}
				pred, real := c.pred, st.Size()
				off := float64(pred-real) / float64(real)
				t.Logf("compress %v: predicted %d, compress wrote %d (%+.3f%%, exact %v)", c.args, pred, real, 100*off, c.exact)
				if off > 0.05 || off < -0.05 || (c.exact && pred != real) {
					t.Fatalf("compress %v: what-if %d vs real %d: %+.2f%%", c.args, pred, real, 100*off)
				}
			}
		})
	}
}

var (
	bigkeysLine = regexp.MustCompile(`^Biggest\s+(\w+) found '(.*)' has (\d+) \w+$`)
	loaded      = regexp.MustCompile(`(?m)^loading:0\r?$`) // not async_loading
)

// TestAnalyzeBiggestMatchesBigKeys: on the generated files, the biggest
// key of each type is the one redis-cli --bigkeys finds in a redis-server
// that loaded the file (strings by length, collections by element count,
// as --bigkeys measures them). Keys that expired by now are invisible to
// --bigkeys, so a family whose biggest key has expired is skipped.
func TestAnalyzeBiggestMatchesBigKeys(t *testing.T) {
	for _, bin := range []string{"redis-server", "redis-cli"} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Skipf("%s not installed", bin)
		}
	}
	for _, cf := range rdbiotest.Sweep(t) {
		if cf.Folder != "generated" {
			continue
		}
		t.Run(cf.Name, func(t *testing.T) {
			a, _, code := runAnalyzeJSON(t, "--sample-bytes", "0", cf.Path)
			if code != 0 {
				t.Fatalf("analyze exit %d", code)
			}
			sock := startRedis(t, cf.Path)
			type big struct {
				size  int64
				key   string
				db    int64
				count int // dbs holding a key of that size
			}
			found := map[string]*big{}
			for _, d := range a.DBs {
				out, err := exec.Command("redis-cli", "-s", sock, "-n", strconv.FormatInt(d.DB, 10), "--bigkeys").CombinedOutput()
				if err != nil {
					t.Fatalf("redis-cli --bigkeys: %v: %s", err, out)
				}
				sc := bufio.NewScanner(strings.NewReader(string(out)))
				for sc.Scan() {
					m := bigkeysLine.FindStringSubmatch(strings.TrimSpace(sc.Text()))
					if m == nil {
						continue
					}
					key, err := strconv.Unquote(m[2])
					if err != nil {
						t.Fatalf("key %s: %v", m[2], err)
					}
					size, _ := strconv.ParseInt(m[3], 10, 64)
					switch b := found[m[1]]; {
					case b == nil || size > b.size:
						found[m[1]] = &big{size: size, key: key, db: d.DB, count: 1}
					case size == b.size:
						b.count++
					}
				}
			}
			now := time.Now().UnixMilli()
			for fam, b := range found {
				ours, ok := a.Biggest[fam]
				if !ok {
					t.Errorf("%s: --bigkeys finds %q (%d), rdbz none", fam, b.key, b.size)
					continue
				}
				if ours.Expire != -1 && ours.Expire <= now {
					t.Logf("%s: rdbz's biggest %q has expired; skipped", fam, ours.Key)
					continue
				}
				t.Logf("%s: --bigkeys db %d %q %d; rdbz db %d %q %d", fam, b.db, b.key, b.size, ours.DB, ours.Key, ours.Elements)
				if ours.Elements != b.size {
					t.Errorf("%s: rdbz %q has %d, --bigkeys %q has %d", fam, ours.Key, ours.Elements, b.key, b.size)
				}
				if ours.Ties == 1 && b.count == 1 && (ours.Key != b.key || int64(ours.DB) != b.db) {
					t.Errorf("%s: rdbz names db %d %q, --bigkeys db %d %q", fam, ours.DB, ours.Key, b.db, b.key)
				}
			}
			for fam := range a.Biggest {
				if _, ok := found[fam]; !ok {
					t.Errorf("%s: rdbz names %q, --bigkeys finds none", fam, a.Biggest[fam].Key)
				}
			}
		})
	}
}

// startRedis loads a copy of path into a redis-server on a unix socket in
// a temporary folder and returns the socket; the server is stopped when
// the test ends.
func startRedis(t *testing.T, path string) string {
	dir := t.TempDir()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "dump.rdb"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "redis.sock")
	cmd := exec.Command("redis-server", "--port", "0", "--unixsocket", sock, "--dir", dir,
		"--dbfilename", "dump.rdb", "--save", "", "--appendonly", "no", "--logfile", filepath.Join(dir, "log"))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		out, err := exec.Command("redis-cli", "-s", sock, "info", "persistence").Output()
		if err == nil && loaded.Match(out) {
			return sock
		}
		time.Sleep(50 * time.Millisecond)
	}
	log, _ := os.ReadFile(filepath.Join(dir, "log"))
	t.Fatalf("redis-server did not load %s: %s", path, log)
	return ""
}

// TestAnalyzeText: the text report on stdin names its sections, ranks as
// asked and ends with the verdicts.
func TestAnalyzeText(t *testing.T) {
	data, err := os.ReadFile(small)
	if err != nil {
		t.Fatal(err)
	}
	out, stderr, code := run(t, data, "analyze", "--top", "2", "--sample-bytes", "0", "-")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"producer  redis", "types", "TTL (relative to ctime", "biggest keys by serialized bytes",
		"biggest key per type", "key prefixes", "lists", "node size", "compatibility", "redis-7.0", "dragonfly"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "what-if:") && !strings.Contains(out, "what-if: not run") || strings.Contains(out, "what-if took") {
		t.Error("--sample-bytes 0 still ran the what-if")
	}
	sec := out[strings.Index(out, "biggest keys by serialized bytes"):]
	sec = sec[:strings.Index(sec, "\n\n")]
	if n := strings.Count(sec, "\n"); n != 3 { // title, header, 2 keys
		t.Errorf("--top 2 printed %d lines:\n%s", n, sec)
	}
}

// TestAnalyzeWhatIfText: the text report of a file with lists shows the
// what-if table and the predicted size.
func TestAnalyzeWhatIfText(t *testing.T) {
	out, stderr, code := run(t, nil, "analyze", small)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"what-if", "raw (rdbcompression no)", "zstd, no dictionary", "rdbz compress:", "(level 1,",
		"the what-if took", "--no-whatif skips it"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}

// TestAnalyzeNoWhatIf: --no-whatif skips the what-if (JSON: null, no time)
// and the text says it was not run.
func TestAnalyzeNoWhatIf(t *testing.T) {
	a, stderr, code := runAnalyzeJSON(t, "--no-whatif", small)
	if code != 0 || a.WhatIf != nil {
		t.Fatalf("exit %d (%s), whatif %+v", code, stderr, a.WhatIf)
	}
	out, _, _ := run(t, nil, "analyze", "--no-whatif", small)
	if !strings.Contains(out, "what-if: not run") {
		t.Fatalf("report:\n%s", out)
	}
}

// TestAnalyzeFitsTerminal: the text report of every generated corpus file
// fits in 80 columns (file names and error reasons apart); those up to
// SmallBytes unless RDBZ_LONG=1.
func TestAnalyzeFitsTerminal(t *testing.T) {
	for _, cf := range rdbiotest.Generated(t, rdbiotest.SmallBytes) {
		out, stderr, code := run(t, nil, "analyze", "--sample-bytes", "200000", cf.Path)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", cf.Name, code, stderr)
		}
		for _, l := range strings.Split(out, "\n") {
			if utf8.RuneCountInString(l) > 80 && !strings.HasPrefix(l, "file ") {
				t.Errorf("%s: %d columns: %s", cf.Name, utf8.RuneCountInString(l), l)
			}
		}
	}
}

// TestAnalyzeErrors: usage errors and damaged input exit 1 with a reason;
// a truncated file still prints what was read.
func TestAnalyzeErrors(t *testing.T) {
	data, err := os.ReadFile(small)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		stdin []byte
		args  []string
		want  string
	}{
		{"no input", nil, nil, "missing input"},
		{"not an RDB", []byte("hello world"), []string{"-"}, "not an RDB file"},
		{"truncated", data[:len(data)/2], []string{"--json", "-"}, "unexpected end"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, stderr, code := run(t, tc.stdin, append([]string{"analyze"}, tc.args...)...)
			if code != 1 || !strings.Contains(stderr, tc.want) {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
			if tc.name == "truncated" && !strings.Contains(out, `"magic"`) {
				t.Fatalf("nothing printed: %q", out)
			}
		})
	}
}

// TestCompressDefaultsMatchFlags: every default `rdbz compress --help`
// shows is the library's for the formats the flag applies to (format 2's:
// listcodec's and format2's; format 1's: package v1's), and a flag not
// given sets nothing: with no flags, both formats' options are zero but
// for the flow (whose flags, shared with decompress, pass their values),
// so that each format's own defaults apply; a flag given lands in them.
func TestCompressDefaultsMatchFlags(t *testing.T) {
	cmd := compressCommand()
	// The library's defaults of each flag that takes a value, format 2's
	// first. Where they differ, the help's text gives each and no other
	// number, in order; where they agree, the flag's value is theirs.
	lib := map[string][]any{
		"workers":      {flow.DefaultWorkers()},
		"cap":          {rdbio.DefaultCap},
		"queue-bytes":  {v1.DefaultQueueBytes},
		"level":        {format2.ZstdLevel(format2.LZFLevel), format2.ZstdLevel(format2.DefaultLevel), format2.ZstdLevel(v1.DefaultLevel)},
		"min-saving":   {v1.DefaultMinSaving},
		"dict-size":    {format2.DefaultDictSize, v1.DefaultDictSize},
		"sample-bytes": {format2.DefaultSampleBytes, v1.DefaultSampleBytes},
		"train-bytes":  {format2.DefaultTrainBytes, v1.DefaultTrainBytes},
		"seed":         {train.DefaultSeed},
		"tries":        {v1.DefaultTries},
		"block-size":   {format2.ColumnsBlockSize, format2.ColumnsBestBlockSize, format2.ZstdLevel(format2.BestLevel), format2.DefaultBlockSize},
	}
	notLibrary := []string{"output", "dict", "format", "match", "exclude", "db", "type", "expired", "now"}
	number, formatName := regexp.MustCompile(`[0-9.]+`), regexp.MustCompile(`format [0-9]+:`)
	for _, f := range cmd.Flags {
		d, ok := f.(cli.DocGenerationFlag)
		name := f.Names()[0]
		want, known := lib[name]
		switch {
		case !ok || !d.TakesValue() || slices.Contains(notLibrary, name):
			continue
		case !known:
			t.Errorf("--%s: no library default to compare with", name)
			continue
		}
		var texts []string
		for _, v := range want {
			texts = append(texts, fmt.Sprint(v))
		}
		if slices.Equal(texts, slices.Repeat(texts[:1], len(texts))) {
			if got := d.GetValue(); got != texts[0] {
				t.Errorf("--%s: value %s, the library's default %s", name, got, texts[0])
			}
			continue
		}
		if shown := number.FindAllString(formatName.ReplaceAllString(d.GetDefaultText(), ""), -1); !slices.Equal(shown, texts) {
			t.Errorf("--%s: the help shows %q, not the library's defaults %s", name, d.GetDefaultText(), texts)
		}
	}

	var got listcodec.CompressOptions
	var got1 v1.CompressOptions
	cmd.Action = func(c *cli.Context) error {
		got, got1 = compressOptions(c), compressOptions1(c)
		return nil
	}
	app := &cli.App{Commands: []*cli.Command{cmd}}
	if err := app.Run([]string{"rdbz", "compress", "in.rdb"}); err != nil {
		t.Fatal(err)
	}
	flow := listcodec.Flow{Options: rdbio.Options{Cap: rdbio.DefaultCap}, Workers: flow.DefaultWorkers(), QueueBytes: v1.DefaultQueueBytes}
	if want := (listcodec.CompressOptions{Flow: flow}); !reflect.DeepEqual(got, want) {
		t.Fatalf("no flags give\n%+v\nwant\n%+v", got, want)
	}
	if want := (v1.CompressOptions{Flow: flow}); !reflect.DeepEqual(got1, want) {
		t.Fatalf("no flags give, for format 1,\n%+v\nwant\n%+v", got1, want)
	}
	if err := app.Run([]string{"rdbz", "compress", "--level", "3", "--dict-size", "40000", "--sample-bytes", "5000", "--train-bytes", "6000",
		"--seed", "0", "--tries", "2", "--min-saving", "0", "--block-size", "200000", "in.rdb"}); err != nil {
		t.Fatal(err)
	}
	seed := int64(0)
	want := listcodec.CompressOptions{Flow: flow, Level: zstd.SpeedDefault, BlockSize: 200000, DictSize: 40000, SampleBytes: 5000, TrainBytes: 6000}
	want1 := v1.CompressOptions{Flow: flow, Level: zstd.SpeedDefault, MinSaving: v1.NoMinSaving,
		Train: v1.TrainOptions{DictSize: 40000, SampleBytes: 5000, TrainBytes: 6000, Seed: &seed, Tries: 2}}
	if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(got1, want1) {
		t.Fatalf("flags give\n%+v\n%+v\nwant\n%+v\n%+v", got, got1, want, want1)
	}
}
