package main

// go run ./cmd/rdbz-bench speed [-runs N] [-bin RDBZ] [-synth=false] FILE...
//
// Every rdbz path next to the tool a user would reach for instead, in one
// run on the same files, with the targets of issue 10 (issue 18's for
// format 2's compress and decompress rows, which depend on whether the dump
// holds LZF strings: compressFile): wall seconds (the least of N runs, rdbz
// and the reference taking turns), MB/s (of the input, or of the output for
// decompression), peak RSS (the most of the N runs), for compress rows the
// output bytes of rdbz and of the reference and their ratio, and whether the
// target holds. A last row streams a synthetic dump (a 1 GiB string and a
// 512 MiB list, synth.go) through `rdbz compress -o - -`.

import (
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/rdbz/rdbz/rdbio"
)

// rssTarget is the peak RSS every rdbz command must stay within by default.
const rssTarget = 64 << 10 // KiB

// cmdSpec is one command to time: its stdin is a file (or the synthetic
// stream when synth is set), its stdout goes to the file stdout or, when
// that is empty, is discarded.
type cmdSpec struct {
	name   string
	args   []string
	stdin  string
	stdout string
	synth  bool
	env    []string // added to the environment
	out    string   // a file it writes without -o (cp's target)
}

// removeOutputs removes what a run of c is about to write (its -o path
// and out), so that each run writes a new file as a user's first run
// does: replacing the last run's output made the kernel free that file's
// pages inside the timed run (0.1-0.3 s for 150-270 MB on the 2-core VM,
// on one core however many the command used).
func removeOutputs(c cmdSpec) {
	for i, a := range c.args {
		if a == "-o" && i+1 < len(c.args) {
			os.Remove(c.args[i+1])
		}
	}
	if c.out != "" {
		os.Remove(c.out)
	}
}

// timing is the best of several runs.
type timing struct {
	secs   float64 // least wall time
	cpu    float64 // CPU seconds (user + system) of the run with the least wall time
	rss    int64   // largest peak RSS, KiB
	stderr string  // the command's stderr (of runOnce's one run)
	err    error
}

// speedRow is one line of the table.
type speedRow struct {
	file, op  string
	rdbz, ref timing
	refName   string
	mbytes    float64 // the bytes MB/s is counted on, in MB
	maxRatio  float64 // rdbz/ref wall target (0: none)
	minMBps   float64 // rdbz MB/s target (0: none)
	maxSecs   float64 // rdbz wall target (0: none)
	hasRef    bool
	checkRSS  bool
	// rdbzOut and refOut are the files a compress row's output sizes are
	// read from (rdbzOut empty: not a compress row; refOut empty: no
	// reference output), rdbzBytes and refBytes their sizes.
	rdbzOut, refOut     string
	rdbzBytes, refBytes int64
}

func (b *bench) speed(args []string) {
	fs := flag.NewFlagSet("speed", flag.ExitOnError)
	runs := fs.Int("runs", 3, "runs of each command; the least wall time counts")
	bin := fs.String("bin", "", "an rdbz binary to measure instead of this checkout's (another revision)")
	synth := fs.Bool("synth", true, "end with the synthetic 1.6 GB stream's row")
	fs.Parse(args)
	if *bin != "" {
		b.bin = *bin
	}
	hdt, err := b.buildHdt()
	if err != nil {
		fmt.Fprintln(os.Stderr, "hdt3213/rdb reference left out:", err)
	}
	fmt.Println("| file | operation | rdbz s | rdbz MB/s | rdbz RSS MiB | reference | ref s | ref MB/s | ref RSS MiB | rdbz/ref | rdbz bytes | ref bytes | size ratio | target | met |")
	fmt.Println("| --- | --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |")
	for _, f := range fs.Args() {
		for _, r := range b.speedFile(f, hdt, *runs) {
			printSpeedRow(r)
		}
	}
	if !*synth {
		return
	}
	out := filepath.Join(b.dir, "synth.rdbz")
	defer os.Remove(out)
	r := speedRow{file: "synthetic 1 GiB string + 512 MiB list", op: "compress -o - - (stdin)", checkRSS: true,
		mbytes: float64(synthSize()) / 1e6, rdbzOut: out}
	r.rdbz = timeRuns(1, cmdSpec{name: b.bin, args: []string{"compress", "-o", "-", "-"}, synth: true, stdout: out})
	r.rdbzBytes = size(out)
	printSpeedRow(r)
}

// speedFile measures every operation on one file.
func (b *bench) speedFile(in, hdt string, runs int) []speedRow {
	t := func(name string) string { return filepath.Join(b.dir, name) }
	c, z, d := t("c.rdbz"), t("c.zst"), t("d.dict")
	defer func() {
		for _, p := range []string{c, z, d, t("c2.rdbz"), t("o.rdb"), t("o.raw"), t("z.dict"), t("s.rdbz"), t("s.zst")} {
			os.Remove(p)
		}
		os.RemoveAll(t("samples"))
	}()
	inMB := float64(size(in)) / 1e6
	name := filepath.Base(in)
	var rows []speedRow
	add := func(r speedRow, rdbz cmdSpec, ref *cmdSpec) {
		r.file, r.checkRSS = name, true
		if ref != nil {
			r.hasRef, r.refName = true, refLabel(*ref)
			r.rdbz, r.ref = timePair(runs, rdbz, *ref)
		} else {
			r.rdbz = timeRuns(runs, rdbz)
		}
		r.rdbzBytes, r.refBytes = size(r.rdbzOut), size(r.refOut)
		rows = append(rows, r)
	}
	// Issue 18: where LZF strings must be decoded (compress) or encoded
	// again (decompress), rdbz may take 1.5× the reference's wall time.
	lzf, err := b.compressFile(in, c)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%v; targets as for a dump without LZF strings\n", err)
	}
	lzfRatio := map[bool]float64{true: 1.5, false: 1.0}[lzf > 0]
	zstdC := cmdSpec{name: "zstd", args: []string{"-q", "-f", "-3", "-T2", in, "-o", z}}
	// Format 2 trains on the first 8 MiB of T, the stream it compresses:
	// no sampling pass.
	add(speedRow{op: "compress (own training)", mbytes: inMB, maxRatio: lzfRatio, rdbzOut: c, refOut: z},
		cmdSpec{name: b.bin, args: []string{"compress", "-f", "-o", c, in}}, &zstdC)
	zstdD := cmdSpec{name: "zstd", args: []string{"-q", "-f", "-d", z, "-o", t("o.raw")}}
	for _, to := range []struct {
		mode  string
		ratio float64
	}{{"original", lzfRatio}, {"raw", 1.0}, {"lzf", 1.5}} {
		add(speedRow{op: "decompress --to " + to.mode, mbytes: inMB, maxRatio: to.ratio},
			cmdSpec{name: b.bin, args: []string{"decompress", "--to", to.mode, "-f", "-o", t("o.rdb"), c}}, &zstdD)
	}
	// A dictionary and the samples it was trained on, for the two rows
	// below; rdbz train needs list nodes, which a dump of strings may lack.
	if err := exec.Command(b.bin, "train", "-f", "-o", d, "--dump-samples", t("samples"), in).Run(); err != nil {
		fmt.Fprintf(os.Stderr, "%s: rdbz train: %v (its two rows left out)\n", in, err)
	} else {
		// The dictionary is trained on list nodes (format 1's unit); format
		// 2 embeds it and skips its own training. No target: issue 18 sets
		// none (issue 10's 0.8× was format 1's).
		add(speedRow{op: "compress --dict (rdbz train's list-node dictionary, no training)", mbytes: inMB,
			rdbzOut: t("c2.rdbz"), refOut: z},
			cmdSpec{name: b.bin, args: []string{"compress", "--dict", d, "-f", "-o", t("c2.rdbz"), in}}, &zstdC)
		samples, _ := filepath.Glob(filepath.Join(t("samples"), "*"))
		zstdT := cmdSpec{name: "zstd", args: append([]string{"--train", "-q", "-f", "-o", t("z.dict"), "--maxdict=65536"}, samples...)}
		add(speedRow{op: fmt.Sprintf("train (reference: the same %d samples)", len(samples)), mbytes: inMB, maxRatio: 1.0},
			cmdSpec{name: b.bin, args: []string{"train", "-f", "-o", d, in}}, &zstdT)
	}
	add(speedRow{op: "info", mbytes: inMB, minMBps: 1500}, cmdSpec{name: b.bin, args: []string{"info", in}}, nil)
	var hdtSpec *cmdSpec
	if hdt != "" {
		hdtSpec = &cmdSpec{name: hdt, args: []string{"-c", "memory", "-o", t("memory.csv"), in}}
	}
	add(speedRow{op: "analyze --sample-bytes 0", mbytes: inMB, minMBps: 1500},
		cmdSpec{name: b.bin, args: []string{"analyze", "--sample-bytes", "0", in}}, hdtSpec)
	wi := speedRow{op: "analyze (with what-if)", mbytes: inMB}
	if size(in) < 250e6 { // the target is set for the 197 MB dump
		wi.maxSecs = 2
	}
	add(wi, cmdSpec{name: b.bin, args: []string{"analyze", in}}, nil)
	add(speedRow{op: "verify IN IN.rdbz", mbytes: inMB}, cmdSpec{name: b.bin, args: []string{"verify", in, c}}, nil)
	add(speedRow{op: "compress -o - - (stdin)", mbytes: inMB, rdbzOut: t("s.rdbz"), refOut: t("s.zst")},
		cmdSpec{name: b.bin, args: []string{"compress", "-o", "-", "-"}, stdin: in, stdout: t("s.rdbz")},
		&cmdSpec{name: "zstd", args: []string{"-q", "-3", "-T2", "-c"}, stdin: in, stdout: t("s.zst")})
	add(speedRow{op: "copy", mbytes: inMB},
		cmdSpec{name: b.bin, args: []string{"copy", "-f", "-o", t("o.rdb"), in}},
		&cmdSpec{name: "cp", args: []string{in, t("o.rdb")}})
	// Issue 12: every listpack of a list-heavy dump re-encoded as a
	// ziplist, beside copy (which passes the records through).
	add(speedRow{op: "convert --target redis-6.2", mbytes: inMB},
		cmdSpec{name: b.bin, args: []string{"convert", "--target", "redis-6.2", "-q", "-f", "-o", t("o.rdb"), in}},
		&cmdSpec{name: b.bin, args: []string{"copy", "-f", "-o", t("o.rdb"), in}})
	b.exportRows(in, c, hdt, add)
	return rows
}

// exportRows adds the rows of export (beside copy, which passes the records through,
// and hdt3213/rdb's JSON when built) and get of one key through the
// format-2 file c's index (target: 50 ms).
func (b *bench) exportRows(in, c, hdt string, add func(speedRow, cmdSpec, *cmdSpec)) {
	t := func(name string) string { return filepath.Join(b.dir, name) }
	defer os.Remove(t("o.out"))
	inMB := float64(size(in)) / 1e6
	copySpec := cmdSpec{name: b.bin, args: []string{"copy", "-f", "-o", t("o.rdb"), in}}
	add(speedRow{op: "export (RESP plain commands)", mbytes: inMB},
		cmdSpec{name: b.bin, args: []string{"export", "-q", "-f", "-o", t("o.out"), in}}, &copySpec)
	add(speedRow{op: "export --restore", mbytes: inMB},
		cmdSpec{name: b.bin, args: []string{"export", "--restore", "-q", "-f", "-o", t("o.out"), in}}, &copySpec)
	var hdtJSON *cmdSpec
	if hdt != "" {
		hdtJSON = &cmdSpec{name: hdt, args: []string{"-c", "json", "-o", t("o.json"), in}}
		defer os.Remove(t("o.json"))
	}
	add(speedRow{op: "export --format json", mbytes: inMB},
		cmdSpec{name: b.bin, args: []string{"export", "--format", "json", "-q", "-f", "-o", t("o.out"), in}}, hdtJSON)
	if key, ok := middleKey(in); ok {
		add(speedRow{op: "get KEY (format 2, through the index)", mbytes: inMB, maxSecs: 0.05},
			cmdSpec{name: b.bin, args: []string{"get", c, key}}, nil)
	}
}

// middleKey is the key halfway through the file's keys of db 0 (two
// passes: a count, then the key).
func middleKey(in string) (string, bool) {
	n, key := 0, ""
	each := func(fn func(rec *rdbio.Record)) error {
		f, err := os.Open(in)
		if err != nil {
			return err
		}
		defer f.Close()
		return rdbio.ForEachKey(f, rdbio.Options{}, func(_ *rdbio.Reader, rec *rdbio.Record) error {
			if rec.DB == 0 {
				fn(rec)
			}
			return nil
		})
	}
	if err := each(func(*rdbio.Record) { n++ }); err != nil || n == 0 {
		return "", false
	}
	i := 0
	err := each(func(rec *rdbio.Record) {
		if i == n/2 {
			key = string(rec.Key)
		}
		i++
	})
	return key, err == nil
}

func refLabel(c cmdSpec) string {
	label := filepath.Base(c.name)
	if strings.HasPrefix(label, "hdt") {
		return "hdt3213/rdb -c " + c.args[1]
	}
	if label == "rdbz" && len(c.args) > 0 {
		return "rdbz " + c.args[0]
	}
	var flags []string
	for _, a := range c.args {
		if strings.HasPrefix(a, "-") && a != "-q" && a != "-f" && a != "-o" {
			flags = append(flags, a)
		}
	}
	return strings.TrimSpace(label + " " + strings.Join(flags, " "))
}

// timePair runs a and b in turns, runs times each.
func timePair(runs int, a, b cmdSpec) (timing, timing) {
	ta, tb := timing{secs: math.Inf(1)}, timing{secs: math.Inf(1)}
	for range runs {
		ta = better(ta, runOnce(a))
		tb = better(tb, runOnce(b))
	}
	return ta, tb
}

func timeRuns(runs int, a cmdSpec) timing {
	t := timing{secs: math.Inf(1)}
	for range runs {
		t = better(t, runOnce(a))
	}
	return t
}

func better(t, u timing) timing {
	if u.err != nil {
		t.err = u.err
		return t
	}
	if u.secs < t.secs {
		t.secs, t.cpu = u.secs, u.cpu
	}
	t.rss = max(t.rss, u.rss)
	return t
}

// runOnce runs a command under /usr/bin/time, which writes the peak RSS
// to a file of its own (the command's stderr is kept for errors).
func runOnce(c cmdSpec) timing {
	stat, err := os.CreateTemp("", "rdbz-bench-time-")
	if err != nil {
		return timing{err: err}
	}
	stat.Close()
	defer os.Remove(stat.Name())
	cmd := exec.Command("/usr/bin/time", append([]string{"-o", stat.Name(), "-f", "%U %S %M", c.name}, c.args...)...)
	if len(c.env) > 0 {
		cmd.Env = append(os.Environ(), c.env...)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out := os.DevNull
	if c.stdout != "" {
		out = c.stdout
	}
	// Write-only: rdbz takes a read-write /dev/null on fd 1 for a closed
	// stdout (cmd/rdbz/stdio_unix.go).
	stdout, err := os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
	if err != nil {
		return timing{err: err}
	}
	defer stdout.Close()
	cmd.Stdout = stdout
	var stop func()
	switch {
	case c.synth:
		r, w := io.Pipe()
		cmd.Stdin = r
		go func() { w.CloseWithError(writeSynth(w)) }()
		stop = func() { r.Close() }
	case c.stdin != "":
		f, err := os.Open(c.stdin)
		if err != nil {
			return timing{err: err}
		}
		cmd.Stdin = f
		stop = func() { f.Close() }
	}
	removeOutputs(c)
	start := time.Now()
	err = cmd.Run()
	secs := time.Since(start).Seconds()
	if stop != nil {
		stop()
	}
	b, _ := os.ReadFile(stat.Name())
	f := strings.Fields(string(b))
	var rss int64
	var cpu float64
	if n := len(f); n >= 3 {
		rss, _ = strconv.ParseInt(f[n-1], 10, 64)
		u, _ := strconv.ParseFloat(f[n-3], 64)
		sy, _ := strconv.ParseFloat(f[n-2], 64)
		cpu = u + sy
	}
	if err != nil {
		// The figures stand: the rss table measures get of a missing key.
		err = fmt.Errorf("%s %s: %w: %s", c.name, strings.Join(c.args, " "), err, lastLines(stderr.String(), 3))
	}
	return timing{secs: secs, cpu: cpu, rss: rss, stderr: stderr.String(), err: err}
}

func printSpeedRow(r speedRow) {
	if r.rdbz.err != nil {
		fmt.Fprintln(os.Stderr, r.rdbz.err)
	}
	if r.ref.err != nil {
		fmt.Fprintln(os.Stderr, r.ref.err)
	}
	ref := "| - | - | - | - | -"
	if r.hasRef {
		ref = fmt.Sprintf("| %s | %.2f | %.0f | %.1f | %.2f", r.refName, r.ref.secs, r.mbytes/r.ref.secs,
			float64(r.ref.rss)/1024, r.rdbz.secs/r.ref.secs)
	}
	ref += sizeCells(r)
	var want []string
	met := r.rdbz.err == nil && r.ref.err == nil
	if r.maxRatio > 0 && r.hasRef {
		want = append(want, fmt.Sprintf("≤ %.1f× wall", r.maxRatio))
		met = met && r.rdbz.secs <= r.maxRatio*r.ref.secs
	}
	if r.minMBps > 0 {
		want = append(want, fmt.Sprintf("≥ %.1f GB/s", r.minMBps/1000))
		met = met && r.mbytes/r.rdbz.secs >= r.minMBps
	}
	if r.maxSecs > 0 {
		want = append(want, fmt.Sprintf("≤ %g s", r.maxSecs))
		met = met && r.rdbz.secs <= r.maxSecs
	}
	if r.checkRSS {
		want = append(want, "≤ 64 MiB")
		met = met && r.rdbz.rss <= rssTarget
	}
	fmt.Printf("| %s | %s | %.2f | %.0f | %.1f %s | %s | %s |\n", r.file, r.op, r.rdbz.secs, r.mbytes/r.rdbz.secs,
		float64(r.rdbz.rss)/1024, ref, strings.Join(want, ", "), verdict(met))
}

// sizeCells are the size columns of a row (rdbz bytes, ref bytes, size
// ratio), dashes where the row has none.
func sizeCells(r speedRow) string {
	switch {
	case r.rdbzOut == "":
		return " | - | - | -"
	case r.refOut == "":
		return fmt.Sprintf(" | %d | - | -", r.rdbzBytes)
	}
	return fmt.Sprintf(" | %d | %d | %.3f", r.rdbzBytes, r.refBytes, float64(r.rdbzBytes)/float64(max(r.refBytes, 1)))
}

// verdict is a met column's cell.
func verdict(met bool) string {
	return map[bool]string{true: "yes", false: "**no**"}[met]
}
