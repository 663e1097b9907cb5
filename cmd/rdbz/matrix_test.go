package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"maps"
	"math/bits"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/rdbz/rdbz/listcodec/block"
	"github.com/rdbz/rdbz/rdbio"
	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

// The promise every command keeps, swept as one table (issue 25): every
// command × every kind of input × intact, truncated at each structure
// boundary, or one byte flipped in each part. An intact input gives exit
// 0 (or the command's refusal of that kind: compress of an rdbz file,
// decompress of an RDB); a damaged one exit 1 from every command that
// reads the damaged part (all but get, which reads a format-2 file
// through its index: its exit 0 must then print what the intact file
// gives), naming the file and the offset; a command that declines the
// intact input for what it holds (train with no list nodes, convert of
// data the target cannot hold) is left out of its damaged forms; nothing is left in the output
// folder after a failure; no run passes 64 MiB of peak RSS; a value flag
// at the end of the line or before another flag is exit 2 and leaves the
// input as it was. testdata/small.rdb is the default base; RDBZ_LONG=1
// adds every corpus file (docs/testing.md).

// matrixRSS is the peak RSS every run stays within.
const matrixRSS = 64 << 20

// timeBin is GNU time, which measures each run's peak RSS ("" when it is
// not installed: the runs are not measured; .ci/run installs it).
var timeBin, _ = exec.LookPath("time")

// timeRSS is the peak RSS GNU time wrote to the file stat (-f %M), in
// bytes; false when there is none.
func timeRSS(stat string) (int64, bool) {
	b, err := os.ReadFile(stat)
	if err != nil {
		return 0, false
	}
	var kib int64
	fmt.Sscan(lastLine(string(b)), &kib)
	return kib << 10, true
}

// lastLine is the last non-empty line of s (GNU time writes a note about
// a non-zero exit before its figures).
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// matrixCommands are the commands run on each input IN (OUT: a file in an
// empty folder; DIR: that folder).
var matrixCommands = [][]string{
	{"info", "IN"},
	{"copy", "-o", "OUT", "IN"},
	{"compress", "-o", "OUT", "IN"},
	{"decompress", "--to", "original", "-o", "OUT", "IN"},
	{"decompress", "--to", "raw", "-o", "OUT", "IN"},
	{"decompress", "--to", "lzf", "-o", "OUT", "IN"},
	{"test", "IN"},
	{"analyze", "IN"},
	{"convert", "-t", "redis-7.2", "-o", "OUT", "IN"},
	{"export", "-o", "OUT", "IN"},
	{"get", "IN", "KEY"}, // KEY: a key of the input (getArgs)
	{"split", "--shards", "2", "--db-to-0", "-o", "DIR/p-", "IN"},
	{"merge", "--on-duplicate", "first", "-o", "OUT", "IN", "IN"},
	{"verify", "IN", "IN"},
	{"train", "--dict-size", "4096", "-o", "OUT", "IN"},
}

// matrixInput is one input: its bytes, what kind it is, and its damaged
// forms by name.
type matrixInput struct {
	name   string
	kind   string // rdb, rdb-raw, vkcs, rdbz2, rdbz1
	data   []byte
	damage map[string][]byte
	shapes bool // also the flag shapes
	stdin  bool // also the damaged forms on stdin
	// get is the get command line for a key the input holds (nil: no key
	// to get: the command is left out).
	get []string
}

func TestMatrix(t *testing.T) {
	bases := []string{small}
	if os.Getenv("RDBZ_LONG") != "" {
		for _, f := range rdbiotest.Files(t) {
			if f.RedisLoads() && !f.CorruptByDesign() {
				bases = append(bases, f.Path)
			}
		}
	}
	for i, base := range bases {
		inputs := matrixInputs(t, base)
		for _, in := range inputs {
			// The flag shapes and stdin once, on the default base's
			// rdbz form: the parser does not look at the input's kind.
			in.shapes = i == 0 && in.kind == "rdbz2"
			in.stdin = i == 0
			t.Run(filepath.Base(base)+"/"+in.kind, func(t *testing.T) {
				t.Parallel()
				runMatrix(t, in)
			})
		}
	}
}

// runMatrix runs every command on an input, intact and damaged, from a
// file and (info, test, export, copy) from stdin.
func runMatrix(t *testing.T, in matrixInput) {
	dir := t.TempDir()
	intact := filepath.Join(dir, "in-"+in.kind)
	if err := os.WriteFile(intact, in.data, 0o644); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	declined := map[string]bool{} // commands that decline the intact input for what it holds
	for _, args := range in.commands() {
		res := runOne(t, intact, nil, args)
		refused := refusal(args[0], in.kind)
		switch {
		case refused && res.code != 1:
			t.Errorf("%s %v: exit %d, want the refusal (1): %s", in.kind, args, res.code, res.stderr)
		case !refused && res.code == 1 && declines(args[0], res.stderr):
			declined[args[0]] = true
		case !refused && res.code != 0:
			t.Errorf("%s %v: exit %d on an intact input: %s", in.kind, args, res.code, res.stderr)
		}
		want[args[0]] = res.stdout
		if in.shapes {
			checkFlagShapes(t, intact, args)
		}
	}
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range in.damage {
			if !yield(n) {
				return
			}
		}
	})
	for _, name := range names {
		path := filepath.Join(dir, "in-"+in.kind+"-"+name)
		if err := os.WriteFile(path, in.damage[name], 0o644); err != nil {
			t.Fatal(err)
		}
		for _, args := range in.commands() {
			if declined[args[0]] {
				continue // exit 1 whatever the damage
			}
			res := runOne(t, path, nil, args)
			what := fmt.Sprintf("%s %s %v", in.kind, name, args)
			if args[0] == "get" {
				if res.code == 0 && res.stdout != want["get"] {
					t.Errorf("%s: exit 0 with another value than the intact file's", what)
				}
				continue
			}
			if res.code != 1 {
				t.Errorf("%s: exit %d, want 1: %.300s", what, res.code, res.stderr)
				continue
			}
			// A damaged rdbz file may no longer be one (a format-1 file
			// cut after its magic): then refused as such, by name.
			refused := strings.Contains(res.stderr, "not an rdbz file") || strings.Contains(res.stderr, "already rdbz-compressed")
			if !(refused && strings.Contains(res.stderr, path)) && !namesFileAndOffset(res.stderr, path) {
				t.Errorf("%s: the error names not the file and the offset: %.300s", what, res.stderr)
			}
		}
		// The same input on stdin: the message names (stdin).
		for _, args := range [][]string{{"info", "-"}, {"test", "-"}, {"copy", "-c", "-"}} {
			if !in.stdin {
				break
			}
			res := runOne(t, "", in.damage[name], args)
			if res.code != 1 || !namesFileAndOffset(res.stderr, "(stdin)") {
				t.Errorf("%s %s %v on stdin: exit %d, %.300s", in.kind, name, args, res.code, res.stderr)
			}
		}
	}
}

// commands are matrixCommands with get's key filled in.
func (in matrixInput) commands() [][]string {
	var cmds [][]string
	for _, args := range matrixCommands {
		if args[0] == "get" {
			if in.get == nil {
				continue
			}
			args = in.get
		}
		cmds = append(cmds, args)
	}
	return cmds
}

// getArgs is the get command line of the first key of the RDB at path
// that a command line can carry (no NUL, not a flag), with its db; nil if
// there is none.
func getArgs(path string) []string {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	r, err := rdbio.NewReader(f, rdbio.Options{})
	if err != nil {
		return nil
	}
	for {
		rec, err := r.Next()
		if err != nil || rec.Kind == rdbio.KindEOF {
			return nil
		}
		if rec.Kind == rdbio.KindKey && len(rec.Key) > 0 && !bytes.ContainsRune(rec.Key, 0) && rec.Key[0] != '-' {
			return []string{"get", "--db", strconv.FormatUint(rec.DB, 10), "IN", string(rec.Key)}
		}
	}
}

// declines reports whether a command's exit 1 on an intact input is its
// answer to what the input holds, not to damage: train on too few list
// nodes to train on, convert of data the target cannot hold (without
// --drop), split --db-to-0 of a key in two dbs.
func declines(cmd, stderr string) bool {
	switch cmd {
	case "train":
		return strings.Contains(stderr, "too few samples")
	case "convert":
		return strings.Contains(stderr, "cannot hold")
	case "split": // --db-to-0 of a file whose dbs share a key
		return strings.Contains(stderr, "holds it too")
	}
	return false
}

// refusal reports whether a command refuses an input of this kind by
// design: compress an rdbz file, decompress an RDB.
func refusal(cmd, kind string) bool {
	rdbz := strings.HasPrefix(kind, "rdbz")
	return cmd == "compress" && rdbz || cmd == "decompress" && !rdbz
}

// offsetText is how errors name an offset.
var offsetText = regexp.MustCompile(`(offset|byte) [0-9]+`)

func namesFileAndOffset(stderr, path string) bool {
	return strings.Contains(stderr, path) && offsetText.MatchString(stderr)
}

type runResult struct {
	code           int
	stdout, stderr string
}

// runOne runs one command line (IN, OUT, DIR filled in; stdin when given)
// in a fresh output folder, and checks what every run must: no crash, no
// exit but 0, 1, 2; the peak RSS; nothing left after a failure.
func runOne(t *testing.T, in string, stdin []byte, args []string) runResult {
	t.Helper()
	out := t.TempDir()
	var argv []string
	for _, a := range args {
		a = strings.ReplaceAll(a, "DIR", out)
		switch a {
		case "IN":
			a = in
		case "OUT":
			a = filepath.Join(out, "out")
		}
		argv = append(argv, a)
	}
	// The peak RSS is read by /usr/bin/time, which forks rdbz from its own
	// small image: a child of this test process (vfork, then exec) would
	// count this process's pages in its maximum.
	stat := filepath.Join(t.TempDir(), "rss")
	cmd := exec.Command(rdbzBin, argv...)
	if timeBin != "" {
		cmd = exec.Command(timeBin, append([]string{"-f", "%M", "-o", stat, rdbzBin}, argv...)...)
	}
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	res := runResult{stdout: so.String(), stderr: se.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		res.code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	what := strings.Join(args, " ")
	if res.code != 0 && res.code != 1 && res.code != 2 || strings.Contains(res.stderr, "goroutine ") {
		t.Errorf("%s: exit %d: %s", what, res.code, res.stderr)
	}
	if rss, ok := timeRSS(stat); ok {
		if rss > matrixRSS {
			t.Errorf("%s: peak RSS %d MiB", what, rss>>20)
		}
	}
	if res.code != 0 {
		if ents, _ := os.ReadDir(out); len(ents) > 0 {
			t.Errorf("%s: exit %d left %s", what, res.code, ents[0].Name())
		}
	}
	return res
}

// checkFlagShapes runs a command with each of its value flags missing its
// value — last on the line, or before another flag: a usage error (exit
// 2), and the input as it was.
func checkFlagShapes(t *testing.T, in string, args []string) {
	t.Helper()
	before := fileSum(t, in)
	for i, a := range args {
		if a != "-o" && a != "-t" && a != "--shards" {
			continue
		}
		rest := append(slices.Clone(args[:i]), args[i+2:]...)
		for _, shape := range [][]string{append(slices.Clone(rest), a), append(append(slices.Clone(rest), a), "-f")} {
			res := runOne(t, in, nil, shape)
			if res.code != 2 {
				t.Errorf("%v: exit %d, want 2 (the value of %s is missing): %s", shape, res.code, a, res.stderr)
			}
		}
	}
	if fileSum(t, in) != before {
		t.Fatalf("%v: the input changed", args)
	}
}

func fileSum(t *testing.T, path string) [32]byte {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

// matrixInputs makes the inputs of one base RDB, with the rdbz binary
// itself: the RDB as it is, its strings raw, in a VKCS envelope, and in
// rdbz formats 2 (small blocks: several, and an index of several
// entries) and 1.
var inputsMu sync.Mutex

func matrixInputs(t *testing.T, base string) []matrixInput {
	inputsMu.Lock()
	defer inputsMu.Unlock()
	src, err := os.ReadFile(base)
	if err != nil {
		t.Fatal(err)
	}
	made := func(args ...string) []byte {
		out, stderr, code := run(t, nil, append(args, base)...)
		if code != 0 {
			t.Fatalf("%v %s: exit %d: %s", args, base, code, stderr)
		}
		return []byte(out)
	}
	ins := []matrixInput{
		{name: base, kind: "rdb", data: src},
		{name: base, kind: "rdb-raw", data: made("decompress", "--to", "raw", "-c", "-f")},
		{name: base, kind: "vkcs", data: made("decompress", "--envelope", "lz4", "-c", "-f")},
		{name: base, kind: "rdbz2", data: made("compress", "--block-size", strconv.Itoa(blockSizeFor(len(src))), "-c")},
		{name: base, kind: "rdbz1", data: made("compress", "--format", "1", "--dict", testDict, "-c")},
	}
	get := getArgs(base)
	for i := range ins {
		ins[i].get = get
		switch ins[i].kind {
		case "rdbz2":
			ins[i].damage = format2Damage(t, ins[i].data)
		case "vkcs":
			ins[i].damage = envelopeDamage(ins[i].data)
		default:
			ins[i].damage = rdbDamage(ins[i].data)
		}
		if keep := quickDamage[ins[i].kind]; keep != nil && !rdbiotest.Long() {
			maps.DeleteFunc(ins[i].damage, func(name string, _ []byte) bool { return !slices.Contains(keep, name) })
		}
	}
	return ins
}

// quickDamage is the damage the default run gives each kind: for the
// kinds whose damaged forms reach the same checks as the RDB's, a cut, a
// flip under the CRC, the trailer; for the others, one form of each part
// their reader checks apart. RDBZ_LONG=1 gives every kind all of its
// damage.
var quickDamage = map[string][]string{
	"rdb":     {"cut-middle", "cut-last", "flip-value", "flip-trailer"},
	"rdb-raw": {"cut-last", "flip-value"},
	"rdbz1":   {"cut-last", "flip-value"},
	"vkcs":    {"cut-frame", "flip-frame"},
	// A cut inside a block and in the index, a flip in each part that
	// is read differently (header, block, index head, footer).
	"rdbz2": {"cut-block", "cut-index", "cut-last", "flip-header", "flip-block", "flip-index-head", "flip-footer"},
}

// blockSizeFor is the block size of an input's format-2 form: small
// blocks, several of them, and an index of several entries, but no more
// than about a hundred blocks.
func blockSizeFor(n int) int {
	return max(4096, min(1<<20, 1<<bits.Len(uint(n/100))))
}

// cut and flip are the two kinds of damage.
func cut(b []byte, n int) []byte { return bytes.Clone(b[:n]) }

func flip(b []byte, at int) []byte {
	c := bytes.Clone(b)
	c[at] ^= 0x10
	return c
}

// rdbDamage: an RDB cut after its magic, in its middle, before and in its
// trailer; a byte of its middle and of its trailer flipped.
func rdbDamage(b []byte) map[string][]byte {
	n := len(b)
	d := map[string][]byte{
		"cut-magic": cut(b, 9), "cut-middle": cut(b, n/2), "cut-before-trailer": cut(b, n-9), "cut-last": cut(b, n-1),
	}
	if summed(b) { // else a flipped byte is undetectable: nothing to check
		d["flip-value"], d["flip-trailer"] = flip(b, n/2), flip(b, n-3)
	}
	return d
}

// summed reports whether an RDB ends with a CRC-64 that checks it: RDB 5
// and later (every VALKEY magic), unless the trailer is 0 (rdbchecksum no).
func summed(b []byte) bool {
	if len(b) < 18 {
		return false
	}
	if string(b[:6]) != "VALKEY" {
		if v, err := strconv.Atoi(string(b[5:9])); err != nil || v < 5 {
			return false
		}
	}
	return binary.LittleEndian.Uint64(b[len(b)-8:]) != 0
}

// envelopeDamage: a VKCS file cut in its frame, a byte of its header and
// of its frame flipped.
func envelopeDamage(b []byte) map[string][]byte {
	n := len(b)
	return map[string][]byte{
		"cut-frame": cut(b, n/2), "cut-last": cut(b, n-1),
		"flip-header": flip(b, 5), "flip-frame": flip(b, n/2),
	}
}

// format2Damage: a format-2 file cut at each boundary (after its header,
// inside and after its first block, before its index and footer, its last
// byte), and a byte flipped in each part (header, a block, the index head,
// a section, the footer).
func format2Damage(t *testing.T, b []byte) map[string][]byte {
	f, err := block.OpenFile(bytes.NewReader(b), int64(len(b)), block.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	blocks := f.Blocks()
	if len(blocks) < 2 && len(b) > 8<<10 {
		t.Fatalf("want several blocks, got %d", len(blocks))
	}
	n := len(b)
	idx := n - int(f.IndexSize())
	head := int(binary.LittleEndian.Uint32(b[idx+12:]))
	b0 := int(blocks[0].Offset)
	d := map[string][]byte{
		"cut-header": cut(b, b0), "cut-block": cut(b, b0+blocks[0].Size/2), "cut-after-block": cut(b, b0+blocks[0].Size),
		"cut-index": cut(b, idx), "cut-footer": cut(b, n-16), "cut-last": cut(b, n-1),
		"flip-header": flip(b, 20), "flip-block": flip(b, b0+blocks[0].Size/2), "flip-last-block": flip(b, idx-6),
		"flip-index-head": flip(b, idx+16+1), "flip-footer": flip(b, n-10),
	}
	if sec := idx + 16 + head; sec < n-16 {
		d["flip-section"] = flip(b, sec)
	}
	return d
}
