package main

// go run ./cmd/rdbz-bench floor [-runs N] [-profile=false] FILE...
//
// Issue 28's rows: every path beside its physical floor, in one run on the
// same files, wall and CPU seconds (the least wall time of N runs, rdbz and
// the reference in turns) and peak RSS (the most of the N runs):
//
//   - copy and info beside cp of the same file (≤ 2.0×);
//   - compress and decompress on every CPU beside the same with
//     GOMAXPROCS=1 (the speedup, ≥ 1.7× on two cores);
//   - verify IN IN.rdbz beside decompress + analyze --no-whatif (≤ 2.0×);
//   - train beside zstd --train of a dictionary of the same size on the
//     samples rdbz trains on (≤ 2.0×);
//   - for a file under 1 MB, compress, decompress and info alone (≤ 50 ms,
//     ≤ 24 MiB), its copy, info, compress and decompress ratios shown but
//     not judged;
//   - every rdbz run within 64 MiB of peak RSS.
//
// Then, unless -profile=false, a CPU profile of compress and of decompress
// of each file (RDBZ_CPUPROFILE, from as many runs as hold 3 CPU-seconds of
// samples, at most 10): the top entries by own time and the share
// of runtime.memmove, memclrNoHeapPointers, madvise and growslice, the
// work of moving, clearing and returning memory rather than of parsing,
// LZF or zstd (≤ 10% together).

import (
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// floorRow is one line of the floor table: rdbz against a reference, with
// the target the ratio (rdbz/ref wall, or ref/rdbz for a speedup) must meet.
type floorRow struct {
	file, op, refName string
	rdbz, ref         timing
	hasRef            bool
	speedup           bool    // the ratio is ref/rdbz and must be at least want
	want              float64 // the ratio's bound (0: none)
	maxSecs           float64 // rdbz wall bound (0: none)
	maxRSS            int64   // rdbz peak RSS bound, KiB
}

func (b *bench) floor(args []string) {
	fs := flag.NewFlagSet("floor", flag.ExitOnError)
	runs := fs.Int("runs", 3, "runs of each command; the least wall time counts")
	profile := fs.Bool("profile", true, "profile compress and decompress of each file")
	fs.Parse(args)
	fmt.Println("| file | operation | rdbz s | rdbz CPU s | rdbz RSS MiB | reference | ref s | ref CPU s | ratio | target | met |")
	fmt.Println("| --- | --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | --- | --- |")
	for _, f := range fs.Args() {
		for _, r := range b.floorFile(f, *runs) {
			printFloorRow(r)
		}
	}
	if !*profile {
		return
	}
	for _, f := range fs.Args() {
		b.profileFile(f)
	}
}

// floorFile measures one file's rows.
func (b *bench) floorFile(in string, runs int) []floorRow {
	t := func(name string) string { return filepath.Join(b.dir, name) }
	c, o := t("f.rdbz"), t("f.rdb")
	defer func() {
		for _, p := range []string{c, o, t("f.dict"), t("z.dict")} {
			os.Remove(p)
		}
		os.RemoveAll(t("fsamples"))
	}()
	name := filepath.Base(in)
	rdbz := func(args ...string) cmdSpec { return cmdSpec{name: b.bin, args: args} }
	one := func(s cmdSpec) cmdSpec { s.env = []string{"GOMAXPROCS=1"}; return s }
	var rows []floorRow
	pair := func(r floorRow, a, ref cmdSpec) {
		r.file, r.hasRef, r.maxRSS = name, true, rssTarget
		r.rdbz, r.ref = timePair(runs, a, ref)
		rows = append(rows, r)
	}
	// A dump under 1 MB is judged by its own rows (at the end): its
	// copy, info, compress and decompress ratios are shown, not judged,
	// as the start of a process is most of either time and rdbz runs one
	// worker on it by design (flow.SmallInput).
	small := size(in) < 1e6
	large := func(r floorRow) floorRow {
		if small {
			r.want = 0
		}
		return r
	}
	cp := cmdSpec{name: "cp", args: []string{in, o}, out: o}
	pair(large(floorRow{op: "copy", refName: "cp", want: 2}), rdbz("copy", "-q", "-f", "-o", o, in), cp)
	pair(large(floorRow{op: "info", refName: "cp", want: 2}), rdbz("info", in), cp)
	comp := rdbz("compress", "-q", "-f", "-o", c, in)
	pair(large(floorRow{op: "compress", refName: "GOMAXPROCS=1", want: 1.7, speedup: true}), comp, one(comp))
	dec := rdbz("decompress", "-q", "-f", "-o", o, c)
	pair(large(floorRow{op: "decompress", refName: "GOMAXPROCS=1", want: 1.7, speedup: true}), dec, one(dec))
	// verify against the sum of the two passes it stands for.
	v := floorRow{op: "verify IN IN.rdbz", refName: "decompress + analyze --no-whatif", want: 2}
	v.file, v.hasRef, v.maxRSS = name, true, rssTarget
	v.rdbz = timeRuns(runs, rdbz("verify", "-q", in, c))
	d, a := timeRuns(runs, dec), timeRuns(runs, rdbz("analyze", "--no-whatif", in))
	v.ref = timing{secs: d.secs + a.secs, cpu: d.cpu + a.cpu, rss: max(d.rss, a.rss), err: firstErr(d.err, a.err)}
	rows = append(rows, v)
	if err := exec.Command(b.bin, "train", "-q", "-f", "-o", t("f.dict"), "--dump-samples", t("fsamples"), in).Run(); err != nil {
		fmt.Fprintf(os.Stderr, "%s: rdbz train: %v (no train row: it trains on list nodes)\n", in, err)
	} else {
		samples, _ := filepath.Glob(filepath.Join(t("fsamples"), "*"))
		zt := cmdSpec{name: "zstd", args: append([]string{"--train", "-q", "-f", "-o", t("z.dict"), "--maxdict=65536"}, samples...)}
		pair(floorRow{op: fmt.Sprintf("train (%d samples)", len(samples)), refName: "zstd --train", want: 2},
			rdbz("train", "-q", "-f", "-o", t("f.dict"), in), zt)
	}
	if small {
		for _, s := range []struct {
			op   string
			spec cmdSpec
		}{{"compress (under 1 MB)", comp}, {"decompress (under 1 MB)", dec}, {"info (under 1 MB)", rdbz("info", in)}} {
			rows = append(rows, floorRow{file: name, op: s.op, rdbz: timeRuns(runs, s.spec), maxSecs: 0.05, maxRSS: 24 << 10})
		}
	}
	return rows
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func printFloorRow(r floorRow) {
	for _, err := range []error{r.rdbz.err, r.ref.err} {
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
	}
	fmt.Println(floorLine(r))
}

// floorLine is a row of the floor table: the times, the ratio, the
// targets and whether they are met.
func floorLine(r floorRow) string {
	met := r.rdbz.err == nil && r.ref.err == nil && r.rdbz.rss <= r.maxRSS
	want := []string{fmt.Sprintf("≤ %d MiB", r.maxRSS>>10)}
	ref, ratio := "- | - | -", "-"
	if r.hasRef {
		ref = fmt.Sprintf("%s | %.3f | %.3f", r.refName, r.ref.secs, r.ref.cpu)
		x := r.rdbz.secs / r.ref.secs
		switch {
		case r.speedup:
			x = 1 / x
			if r.want > 0 {
				want = append(want, fmt.Sprintf("≥ %.1f× faster", r.want))
				met = met && x >= r.want
			}
		case r.want > 0:
			want = append(want, fmt.Sprintf("≤ %.1f×", r.want))
			met = met && x <= r.want
		}
		ratio = fmt.Sprintf("%.2f", x)
	}
	if r.maxSecs > 0 {
		want = append(want, fmt.Sprintf("≤ %g ms", r.maxSecs*1000))
		met = met && r.rdbz.secs <= r.maxSecs
	}
	return fmt.Sprintf("| %s | %s | %.3f | %.3f | %.1f | %s | %s | %s | %s |", r.file, r.op, r.rdbz.secs, r.rdbz.cpu,
		float64(r.rdbz.rss)/1024, ref, ratio, strings.Join(want, ", "), verdict(met))
}

// moving are the runtime functions whose own time is memory moved,
// cleared or handed back rather than work of rdbz's.
var moving = []string{"runtime.memmove", "runtime.memclrNoHeapPointers", "runtime.madvise", "runtime.growslice"}

// The profile of a stage gathers profileSamples of CPU time at least
// (the runtime samples at 100 Hz: one run of a short command holds too few
// samples for a share of a few percent to mean anything), from at most
// profileRuns runs; below profileMinSamples the share is not judged.
const (
	profileSamples    = 3.0 // CPU seconds
	profileRuns       = 10
	profileMinSamples = 1.0 // CPU seconds
)

// profileFile profiles compress and decompress of one file and prints the
// top entries and the share of moving.
func (b *bench) profileFile(in string) {
	c, o := filepath.Join(b.dir, "p.rdbz"), filepath.Join(b.dir, "p.rdb")
	defer os.Remove(c)
	defer os.Remove(o)
	for _, stage := range [][]string{{"compress", "-q", "-f", "-o", c, in}, {"decompress", "-q", "-f", "-o", o, c}} {
		out, profs, err := b.profileStage(stage)
		for _, p := range profs {
			os.Remove(p)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s %s: %v\n", in, stage[0], err)
			continue
		}
		top, shares := parseTop(out)
		secs := sampledSecs(out)
		sum := 0.0
		var parts []string
		for _, f := range moving {
			sum += shares[f]
			parts = append(parts, fmt.Sprintf("%s %.1f%%", strings.TrimPrefix(f, "runtime."), shares[f]))
		}
		met := verdict(sum <= 10)
		if secs < profileMinSamples {
			met = "too few samples to tell"
		}
		fmt.Printf("\n%s, %s (%d runs, %.2f CPU-s sampled): %s; together %.1f%% (target ≤ 10%%: %s)\n\n", filepath.Base(in), stage[0],
			len(profs), secs, strings.Join(parts, ", "), sum, met)
		for i, l := range top {
			if i == 8 {
				break
			}
			fmt.Println("    " + l)
		}
	}
}

// profileStage runs an rdbz command with a CPU profile until the profiles
// hold profileSamples (or profileRuns runs), and returns `go tool pprof
// -top` of them merged and the profiles' paths.
func (b *bench) profileStage(args []string) (string, []string, error) {
	var profs []string
	var out string
	for len(profs) < profileRuns {
		prof := filepath.Join(b.dir, fmt.Sprintf("cpu%d.prof", len(profs)))
		cmd := exec.Command(b.bin, args...)
		cmd.Env = append(os.Environ(), "RDBZ_CPUPROFILE="+prof)
		if msg, err := cmd.CombinedOutput(); err != nil {
			return "", profs, fmt.Errorf("%v: %s", err, msg)
		}
		profs = append(profs, prof)
		top, err := exec.Command("go", append([]string{"tool", "pprof", "-top", "-nodecount=200", b.bin}, profs...)...).Output()
		if err != nil {
			return "", profs, fmt.Errorf("go tool pprof: %w", err)
		}
		if out = string(top); sampledSecs(out) >= profileSamples {
			break
		}
	}
	return out, profs, nil
}

// sampledSecs is the CPU time the samples of `go tool pprof -top` stand
// for ("Total samples = 2.75s"), 0 when it does not say.
func sampledSecs(top string) float64 {
	_, rest, ok := strings.Cut(top, "Total samples = ")
	if !ok {
		return 0
	}
	f := strings.Fields(rest)
	if len(f) == 0 {
		return 0
	}
	d, err := time.ParseDuration(f[0])
	if err != nil {
		return 0
	}
	return d.Seconds()
}

// parseTop reads `go tool pprof -top`: its entry lines, and each
// function's own share of the samples (the flat% column).
func parseTop(s string) ([]string, map[string]float64) {
	var lines []string
	shares := map[string]float64{}
	seen := false
	for _, l := range strings.Split(s, "\n") {
		f := strings.Fields(l)
		if len(f) >= 5 && f[0] == "flat" {
			seen = true
			continue
		}
		if !seen || len(f) < 6 {
			continue
		}
		pct, err := strconv.ParseFloat(strings.TrimSuffix(f[1], "%"), 64)
		if err != nil || math.IsNaN(pct) {
			continue
		}
		shares[f[5]] += pct
		lines = append(lines, strings.TrimSpace(l))
	}
	return lines, shares
}
