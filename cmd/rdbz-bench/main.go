// Command rdbz-bench measures rdbz next to reference tools in one run, on
// the same files, and prints a Markdown table: MB/s, ratio and peak RSS
// (from /usr/bin/time -v). These machines are noisy: compare rows of one
// run, not numbers across runs.
//
//	go run ./cmd/rdbz-bench compress FILE...   rdbz compress/decompress vs zstd -3 -T2 / zstd -d
//	go run ./cmd/rdbz-bench pass FILE...       rdbz copy vs cp
//	go run ./cmd/rdbz-bench train FILE...      rdbz train vs zstd --train on the same sample
//	go run ./cmd/rdbz-bench speed FILE...      every path vs its reference, with issue 10's and 18's targets (speed.go)
//	go run ./cmd/rdbz-bench size FILE...       rdbz compress output vs zstd -3 -T2, with issue 18's size targets (size.go)
//	go run ./cmd/rdbz-bench pareto FILE...     every zstd level (and --long) beside every rdbz level: size, wall, CPU, RSS
//	go run ./cmd/rdbz-bench floor FILE...      issue 28: copy/info vs cp, 1 CPU vs 2, verify, train, small dumps, profiles (floor.go)
//	go run ./cmd/rdbz-bench rss FILE...        every command on each file and its .rdbz: the worst peak RSS per command
//	go run ./cmd/rdbz-bench lzf FILE...        rdbio/lzf vs Redis's lzf_c.c/lzf_d.c on the file's LZF strings (lzf.go)
//	go run ./cmd/rdbz-bench synth > OUT        the synthetic huge-value dump of the speed table
package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

func main() {
	if len(os.Args) == 2 && os.Args[1] == "synth" {
		check(writeSynth(os.Stdout))
		return
	}
	if len(os.Args) > 2 && os.Args[1] == "lzf" {
		lzfBench(os.Args[2:])
		return
	}
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: rdbz-bench compress|pass|analyze|train|speed|size|rss|lzf|pareto|floor FILE... | rdbz-bench synth")
		os.Exit(2)
	}
	dir, err := os.MkdirTemp("", "rdbz-bench-")
	check(err)
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "rdbz")
	out, err := exec.Command("go", "build", "-tags", "urfave_cli_no_docs", "-o", bin, "./cmd/rdbz").CombinedOutput() // as README.md builds it
	if err != nil {
		fmt.Fprintf(os.Stderr, "go build ./cmd/rdbz (run from the repository root): %v\n%s", err, out)
		os.Exit(1)
	}
	b := &bench{bin: bin, dir: dir}
	switch os.Args[1] {
	case "train":
		b.trainTable(os.Args[2:])
		return
	case "speed":
		b.speed(os.Args[2:])
		return
	case "size":
		b.sizeTable(os.Args[2:])
		return
	case "rss":
		b.rssTable(os.Args[2:])
		return
	case "pareto":
		b.pareto(os.Args[2:])
		return
	case "floor":
		b.floor(os.Args[2:])
		return
	}
	fmt.Println("| file | tool | operation | input MB | output MB | ratio | seconds | MB/s | peak RSS MiB |")
	fmt.Println("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
	for _, f := range os.Args[2:] {
		switch os.Args[1] {
		case "compress":
			b.compress(f)
		case "pass":
			b.pass(f)
		case "analyze":
			b.analyze(f)
		default:
			fmt.Fprintln(os.Stderr, "unknown benchmark", os.Args[1])
			os.Exit(2)
		}
	}
}

type bench struct{ bin, dir string }

func (b *bench) compress(in string) {
	c := filepath.Join(b.dir, "c.rdb")
	z := filepath.Join(b.dir, "c.zst")
	b.row(in, "rdbz", "compress", in, c, b.bin, "compress", "-f", "-o", c, in)
	b.row(in, "rdbz", "decompress --to original", c, filepath.Join(b.dir, "d.rdb"), b.bin, "decompress", "-f", "-o", filepath.Join(b.dir, "d.rdb"), c)
	b.row(in, "rdbz", "decompress --to lzf", c, filepath.Join(b.dir, "d.rdb"), b.bin, "decompress", "--to", "lzf", "-f", "-o", filepath.Join(b.dir, "d.rdb"), c)
	b.row(in, "zstd", "-3 -T2", in, z, "zstd", "-q", "-f", "-3", "-T2", in, "-o", z)
	b.row(in, "zstd", "-d", z, filepath.Join(b.dir, "d.raw"), "zstd", "-q", "-f", "-d", z, "-o", filepath.Join(b.dir, "d.raw"))
	for _, p := range []string{c, z, filepath.Join(b.dir, "d.rdb"), filepath.Join(b.dir, "d.raw")} {
		os.Remove(p)
	}
}

func (b *bench) pass(in string) {
	o := filepath.Join(b.dir, "p.rdb")
	b.row(in, "rdbz", "copy", in, o, b.bin, "copy", "-f", "-o", o, in)
	b.row(in, "cp", "", in, o, "cp", in, o)
	os.Remove(o)
}

// row runs a command under /usr/bin/time -v and prints its line.
func (b *bench) row(file, tool, op, in, out string, name string, args ...string) {
	inSize, outSize := size(in), int64(0)
	if out != "" {
		os.Remove(out) // as runOnce (removeOutputs): replacing it is not the command's time
	}
	start := time.Now()
	cmd := exec.Command("/usr/bin/time", append([]string{"-v", name}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	secs := time.Since(start).Seconds()
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s %s: %v\n%s", name, strings.Join(args, " "), err, stderr.String())
		return
	}
	if out != "" {
		outSize = size(out)
	}
	ratio := float64(inSize) / float64(max(outSize, 1))
	fmt.Printf("| %s | %s | %s | %.1f | %.1f | %.3f | %.2f | %.0f | %.1f |\n", filepath.Base(file), tool, op,
		mb(inSize), mb(outSize), ratio, secs, mb(inSize)/secs, float64(maxRSS(stderr.String()))/1024)
}

func size(p string) int64 {
	st, err := os.Stat(p)
	if err != nil {
		return 0
	}
	return st.Size()
}

func mb(n int64) float64 { return float64(n) / 1e6 }

// maxRSS reads "Maximum resident set size (kbytes)" from time -v.
func maxRSS(s string) int64 {
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if v, ok := strings.CutPrefix(line, "Maximum resident set size (kbytes): "); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
	}
	return 0
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
