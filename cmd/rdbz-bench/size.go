package main

// go run ./cmd/rdbz-bench size FILE...
//
// Output sizes with issue 18's targets: for each file its bytes,
// `rdbz compress` (file mode), whole-file `zstd -3 -T2` of the same input in
// the same run, their ratio, the target for that kind of dump, and
// `rdbz compress -o - -` from stdin against file mode. Sizes are exact; the
// machine's load does not matter.

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// lzfLine is the count of LZF strings in format 2's summary line.
var lzfLine = regexp.MustCompile(`(\d+) LZF strings decoded`)

// compressFile runs `rdbz compress -v -f -o out in` once and returns how many
// LZF strings its detail line (-v) says it decoded: more than none means a
// dump saved with rdbcompression yes (or with list-compress-depth, whose
// LZF nodes cost the same to decode and encode again). This counts every
// string, where `rdbz info` counts only LZF list nodes.
func (b *bench) compressFile(in, out string) (int64, error) {
	t := runOnce(cmdSpec{name: b.bin, args: []string{"compress", "-v", "-f", "-o", out, in}}) // -v: the detail line
	if t.err != nil {
		return 0, t.err
	}
	m := lzfLine.FindStringSubmatch(t.stderr)
	if m == nil {
		return 0, fmt.Errorf("%s: no LZF count in rdbz compress's summary (not format 2?): %s", in, lastLines(t.stderr, 1))
	}
	return strconv.ParseInt(m[1], 10, 64)
}

// sizeTarget is issue 18's bound on one file's rdbz output: a share of
// whole-file zstd -3, or (maxBytes) a size.
type sizeTarget struct {
	maxRatio float64
	maxBytes int64
}

// targetFor is the size target of the dump named name (a corpus file's
// base name) holding lzf LZF strings.
func targetFor(name string, lzf int64) sizeTarget {
	switch strings.TrimSuffix(name, filepath.Ext(name)) {
	case "dfly-seed-synthetic":
		return sizeTarget{maxBytes: 16 << 10}
	case "lists-ints-small", "lists-plain-nodes":
		// The named exceptions: tiny lists and PLAIN nodes, whose
		// LZF gives zstd less to gain on.
		return sizeTarget{maxRatio: 0.95}
	}
	if lzf > 0 {
		return sizeTarget{maxRatio: 0.90}
	}
	return sizeTarget{maxRatio: 1.00}
}

// met says whether rdbz's out bytes hold the target against zstd's ref
// bytes and the input's in bytes (never larger than the input).
func (t sizeTarget) met(out, ref, in int64) bool {
	switch {
	case out > in:
		return false
	case t.maxBytes > 0:
		return out <= t.maxBytes
	}
	return float64(out) <= t.maxRatio*float64(ref)
}

func (t sizeTarget) String() string {
	if t.maxBytes > 0 {
		return fmt.Sprintf("≤ %d KiB, ≤ input", t.maxBytes>>10)
	}
	return fmt.Sprintf("≤ %.2f× zstd, ≤ input", t.maxRatio)
}

// maxStdinRatio bounds stdin's output against file mode's.
const maxStdinRatio = 1.03

// sizeTable prints the size table of files.
func (b *bench) sizeTable(files []string) {
	fmt.Println("| file | LZF strings | input bytes | rdbz bytes | zstd -3 -T2 bytes | rdbz/zstd | target | met | stdin bytes | stdin/file | met (≤ 1.03×) |")
	fmt.Println("| --- | ---: | ---: | ---: | ---: | ---: | --- | --- | ---: | ---: | --- |")
	for _, f := range files {
		if err := b.sizeRow(f); err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
	}
}

// sizeRow compresses in three ways and prints its line.
func (b *bench) sizeRow(in string) error {
	c, z, s := filepath.Join(b.dir, "c.rdbz"), filepath.Join(b.dir, "c.zst"), filepath.Join(b.dir, "s.rdbz")
	defer func() {
		for _, p := range []string{c, z, s} {
			os.Remove(p)
		}
	}()
	lzf, err := b.compressFile(in, c)
	if err != nil {
		return err
	}
	for _, spec := range []cmdSpec{
		{name: "zstd", args: []string{"-q", "-f", "-3", "-T2", in, "-o", z}},
		{name: b.bin, args: []string{"compress", "-o", "-", "-"}, stdin: in, stdout: s},
	} {
		if t := runOnce(spec); t.err != nil {
			return t.err
		}
	}
	name := filepath.Base(in)
	inBytes, out, ref, stdin := size(in), size(c), size(z), size(s)
	target := targetFor(name, lzf)
	fmt.Printf("| %s | %d | %d | %d | %d | %.3f | %s | %s | %d | %.4f | %s |\n", name, lzf, inBytes, out, ref,
		float64(out)/float64(max(ref, 1)), target, verdict(target.met(out, ref, inBytes)),
		stdin, float64(stdin)/float64(max(out, 1)), verdict(float64(stdin) <= maxStdinRatio*float64(out)))
	return nil
}
