package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"time"
)

// trainTable trains, for each file, a dictionary with rdbz train and one
// of the same size with zstd --train on exactly the same dumped sample, compresses the file
// with each (rdbz compress --dict) and prints the list-node bytes.
func (b *bench) trainTable(files []string) {
	fmt.Println("| dataset | sample nodes | dict bytes | rdbz train s | zstd --train s | list nodes stored | with rdbz dict | with zstd dict | rdbz / zstd |")
	fmt.Println("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
	for _, f := range files {
		b.trainRow(f)
	}
}

func (b *bench) trainRow(in string) {
	samples := filepath.Join(b.dir, "samples")
	os.RemoveAll(samples)
	rd, zd := filepath.Join(b.dir, "rdbz.dict"), filepath.Join(b.dir, "zstd.dict")
	rdbzSecs, err := timed(b.bin, "train", "-f", "-o", rd, "--dump-samples", samples, in)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: rdbz train: %v\n", in, err)
		return
	}
	ents, _ := os.ReadDir(samples)
	// The same size as rdbz's dictionary, which the trainer may have
	// shrunk below 64 KiB.
	args := []string{"--train", "-q", "-f", "-o", zd, fmt.Sprintf("--maxdict=%d", size(rd))}
	for _, e := range ents {
		args = append(args, filepath.Join(samples, e.Name()))
	}
	zstdSecs, err := timed("zstd", args...)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: zstd --train: %v\n", in, err)
		return
	}
	stored, withR := b.nodeBytes(in, rd)
	_, withZ := b.nodeBytes(in, zd)
	fmt.Printf("| %s | %d | %d | %.2f | %.2f | %d | %d | %d | %.4f |\n", filepath.Base(in), len(ents), size(rd),
		rdbzSecs, zstdSecs, stored, withR, withZ, float64(withR)/float64(max(withZ, 1)))
}

var nodeLine = regexp.MustCompile(`list nodes (\d+) -> (\d+) bytes`)

// nodeBytes compresses in with dict and returns list node bytes before
// and after, from the summary line.
func (b *bench) nodeBytes(in, dict string) (int64, int64) {
	out := filepath.Join(b.dir, "c.rdb")
	defer os.Remove(out)
	msg, err := exec.Command(b.bin, "compress", "--dict", dict, "-f", "-o", out, in).CombinedOutput()
	m := nodeLine.FindSubmatch(msg)
	if err != nil || m == nil {
		fmt.Fprintf(os.Stderr, "compress --dict %s %s: %v %s\n", dict, in, err, msg)
		return 0, 0
	}
	before, _ := strconv.ParseInt(string(m[1]), 10, 64)
	after, _ := strconv.ParseInt(string(m[2]), 10, 64)
	return before, after
}

func timed(name string, args ...string) (float64, error) {
	start := time.Now()
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("%v: %s", err, out)
	}
	return time.Since(start).Seconds(), nil
}
