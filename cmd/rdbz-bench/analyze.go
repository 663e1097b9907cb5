package main

// go run ./cmd/rdbz-bench analyze FILE...
//
// rdbz analyze (with and without its what-if, which trains a dictionary as
// rdbz compress does) next to hdt3213/rdb's memory report (`rdb -c memory
// -o out.csv FILE`), built from the module cache: MB/s, peak RSS, and the
// memory totals both estimate.

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// hdtBin is hdt3213/rdb's command, built once per run.
var hdtBin string

// buildHdt builds hdt3213/rdb's CLI from the module cache (the version in
// go.mod), without vendoring it.
func (b *bench) buildHdt() (string, error) {
	if hdtBin != "" {
		return hdtBin, nil
	}
	dir, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/hdt3213/rdb").Output()
	if err != nil {
		return "", fmt.Errorf("locate github.com/hdt3213/rdb in the module cache: %w", err)
	}
	bin := filepath.Join(b.dir, "hdt-rdb")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Dir = strings.TrimSpace(string(dir))
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build hdt3213/rdb: %w\n%s", err, out)
	}
	hdtBin = bin
	return bin, nil
}

// runResult is one timed run.
type runResult struct {
	secs float64
	rss  int64 // KiB
	out  []byte
}

// runTimed runs a command under /usr/bin/time -v, keeping its stdout.
func runTimed(name string, args ...string) (runResult, error) {
	start := time.Now()
	cmd := exec.Command("/usr/bin/time", append([]string{"-v", name}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	m := runResult{secs: time.Since(start).Seconds(), rss: maxRSS(stderr.String()), out: stdout.Bytes()}
	if err != nil {
		return m, fmt.Errorf("%s %s: %w\n%s", name, strings.Join(args, " "), err, lastLines(stderr.String(), 5))
	}
	return m, nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// analyze prints the rows of the analyze benchmark for one file, then a
// line comparing speed, RSS and the memory totals.
func (b *bench) analyze(in string) {
	hdt, err := b.buildHdt()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	inBytes := float64(size(in))
	row := func(tool, op string, m runResult, outBytes int64) {
		fmt.Printf("| %s | %s | %s | %.1f | %.1f | - | %.2f | %.0f | %.1f |\n", filepath.Base(in), tool, op,
			inBytes/1e6, float64(outBytes)/1e6, m.secs, inBytes/1e6/m.secs, float64(m.rss)/1024)
	}
	full, err := runTimed(b.bin, "analyze", "--json", in)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	row("rdbz", "analyze --json", full, int64(len(full.out)))
	pass, err := runTimed(b.bin, "analyze", "--json", "--sample-bytes", "0", in)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	row("rdbz", "analyze --json --sample-bytes 0 (no what-if)", pass, int64(len(pass.out)))
	csvPath := filepath.Join(b.dir, "memory.csv")
	defer os.Remove(csvPath)
	mem, err := runTimed(hdt, "-c", "memory", "-o", csvPath, in)
	if err != nil {
		fmt.Fprintln(os.Stderr, "hdt3213/rdb:", err)
		return
	}
	row("hdt3213/rdb", "-c memory", mem, size(csvPath))

	var rep struct {
		Memory struct {
			Bytes int64 `json:"bytes"`
		} `json:"memory"`
		WhatIf *struct {
			TrainSeconds float64 `json:"train_seconds"`
		} `json:"whatif"`
	}
	if err := json.Unmarshal(full.out, &rep); err != nil {
		fmt.Fprintln(os.Stderr, "analyze JSON:", err)
		return
	}
	hdtTotal, err := csvMemoryTotal(csvPath)
	if err != nil {
		fmt.Fprintln(os.Stderr, "hdt3213/rdb CSV:", err)
	}
	train := 0.0
	if rep.WhatIf != nil {
		train = rep.WhatIf.TrainSeconds
	}
	fmt.Printf("\n%s: analyze without what-if %.1f× hdt3213's speed (%.0f vs %.0f MB/s), RSS %.1f vs %.1f MiB; "+
		"with what-if %.1f× (%.1f s of it training the dictionary, RSS %.1f MiB); "+
		"memory estimate %.1f MB vs hdt3213's %.1f MB\n\n",
		filepath.Base(in), mem.secs/pass.secs, inBytes/1e6/pass.secs, inBytes/1e6/mem.secs,
		float64(pass.rss)/1024, float64(mem.rss)/1024, mem.secs/full.secs, train, float64(full.rss)/1024,
		float64(rep.Memory.Bytes)/1e6, float64(hdtTotal)/1e6)
}

// csvMemoryTotal sums the size column of hdt3213's memory report.
func csvMemoryTotal(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.FieldsPerRecord = -1
	var total int64
	col := -1
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return total, nil
		}
		if err != nil {
			return total, err
		}
		if col < 0 {
			for i, name := range rec {
				if name == "size" {
					col = i
				}
			}
			if col < 0 {
				return 0, errors.New("no size column")
			}
			continue
		}
		if col < len(rec) {
			n, _ := strconv.ParseInt(rec[col], 10, 64)
			total += n
		}
	}
}
