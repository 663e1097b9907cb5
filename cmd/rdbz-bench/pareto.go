package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// pareto prints, for each file, the size and time of every zstd level
// asked for (and --long) beside every rdbz compress level, and the
// decompression of rdbz's default output beside zstd -d: issue 27's
// Pareto table, one run, the least wall time of -runs runs (one run for
// the slow levels, zstd -19 and rdbz's best).
//
//	go run ./cmd/rdbz-bench pareto [-runs N] [-zstd 1,3,9,19,19L] [-rdbz 1,3,7,19] FILE...
func (b *bench) pareto(args []string) {
	fs := flag.NewFlagSet("pareto", flag.ExitOnError)
	runs := fs.Int("runs", 3, "runs of each fast command; the least wall time counts")
	zl := fs.String("zstd", "1,3,9,19,19L", "zstd levels (L: with --long=27), each with -T2")
	rl := fs.String("rdbz", "1,3,7,19", "rdbz compress levels")
	check(fs.Parse(args))
	for _, f := range fs.Args() {
		b.paretoFile(f, *runs, strings.Split(*zl, ","), strings.Split(*rl, ","))
	}
}

// slowRuns is how many runs a slow level gets.
func slowRuns(level string, runs int) int {
	if n, _ := strconv.Atoi(strings.TrimSuffix(level, "L")); n >= 11 {
		return 1
	}
	return runs
}

func (b *bench) paretoFile(in string, runs int, zls, rls []string) {
	st, err := os.Stat(in)
	check(err)
	mb := float64(st.Size()) / 1e6
	out := filepath.Join(b.dir, "p.out")
	fmt.Printf("\n%s (%.1f MB)\n\n", filepath.Base(in), mb)
	fmt.Println("| tool | bytes | × zstd -3 | wall s | CPU s | MB/s | peak RSS MiB |")
	fmt.Println("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
	var ref3 int64
	row := func(name string, t timing) {
		if t.err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", name, t.err)
			return
		}
		fi, err := os.Stat(out)
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
			return
		}
		ratio := "-"
		if ref3 > 0 {
			ratio = fmt.Sprintf("%.3f", float64(fi.Size())/float64(ref3))
		}
		fmt.Printf("| %s | %d | %s | %.2f | %.2f | %.0f | %.1f |\n", name, fi.Size(), ratio, t.secs, t.cpu, mb/t.secs, float64(t.rss)/1024)
	}
	levels := append([]string{"3"}, zls...) // -3 first: the reference
	seen := map[string]bool{}
	for _, l := range levels {
		if seen[l] {
			continue
		}
		seen[l] = true
		args := []string{"-q", "-f", "-T2", "-o", out}
		name := "zstd -" + l
		if lvl, long := strings.CutSuffix(l, "L"); long {
			args = append(args, "-"+lvl, "--long=27")
			name = "zstd -" + lvl + " --long=27"
		} else {
			args = append(args, "-"+l)
		}
		if n, _ := strconv.Atoi(strings.TrimSuffix(l, "L")); n > 19 {
			args = append([]string{"--ultra"}, args...)
		}
		t := timeRuns(slowRuns(l, runs), cmdSpec{name: "zstd", args: append(args, in)})
		if l == "3" {
			if fi, err := os.Stat(out); err == nil {
				ref3 = fi.Size()
			}
		}
		row(name+" -T2", t)
	}
	zd := timeRuns(runs, cmdSpec{name: "zstd", args: []string{"-d", "-q", "-f", "-o", out + ".d", out}})
	for _, l := range rls {
		t := timeRuns(slowRuns(l, runs), cmdSpec{name: b.bin, args: []string{"compress", "-q", "-f", "-" + l, "-o", out, in}})
		row("rdbz compress -"+l, t)
	}
	// rdbz's default output, decompressed to the source and to raw strings,
	// beside zstd -d of the last zstd level's output (decompression does
	// not depend much on the level).
	def := filepath.Join(b.dir, "p.rdbz")
	check(runOnce(cmdSpec{name: b.bin, args: []string{"compress", "-q", "-f", "-o", def, in}}).err)
	for _, to := range []string{"original", "raw"} {
		t := timeRuns(runs, cmdSpec{name: b.bin, args: []string{"decompress", "-q", "-f", "--to", to, "-o", out + ".d", def}})
		fmt.Printf("| rdbz decompress --to %s (default output) | | | %.2f | %.2f | %.0f | %.1f |\n", to, t.secs, t.cpu, mb/t.secs, float64(t.rss)/1024)
	}
	fmt.Printf("| zstd -d (of zstd -%s) | | | %.2f | %.2f | %.0f | %.1f |\n", zls[len(zls)-1], zd.secs, zd.cpu, mb/zd.secs, float64(zd.rss)/1024)
	os.Remove(out + ".d")
}
