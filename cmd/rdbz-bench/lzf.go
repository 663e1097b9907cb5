package main

// go run ./cmd/rdbz-bench lzf [-rounds N] [-cflags FLAGS] FILE...
//
// rdbio/lzf next to Redis's own lzf_c.c and lzf_d.c on the same strings:
// every LZF string of each file (internal/redislzf.LZFStrings) encoded
// with Redis's budget and decoded, a pass over all of them at a time, Go
// and C taking turns, the least of N passes, one thread each, timed in the
// thread's CPU time (redislzf.ThreadCPU: on a machine shared with other
// work, wall time also counts the waits for a core). MB/s is of the
// decoded bytes in both directions; Go/C is the ratio of speeds (above 1:
// Go is faster). The C code is built from $RDBZ_REDIS_SRC with gcc (Redis
// 7.0's flags, -O2, unless -cflags says otherwise); without either the C
// columns are dashes and a line says why.

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/rdbz/rdbz/rdbio/lzf"
	"github.com/rdbz/rdbz/rdbio/rdbiotest/redislzf"
)

// lzfBench runs the lzf mode; it builds nothing of rdbz's but the C
// harness, in a directory of its own.
func lzfBench(args []string) {
	fs := flag.NewFlagSet("lzf", flag.ExitOnError)
	rounds := fs.Int("rounds", 3, "passes over the strings in each direction; the least time counts")
	cflags := fs.String("cflags", strings.Join(redislzf.DefaultCFlags, " "), "gcc flags for Redis's LZF code")
	fs.Parse(args)
	dir, err := os.MkdirTemp("", "rdbz-bench-lzf-")
	check(err)
	defer os.RemoveAll(dir)
	c, err := redislzf.Build(dir, strings.Fields(*cflags))
	if err != nil {
		fmt.Printf("C columns skipped: %v\n\n", err)
	} else {
		fmt.Printf("C: Redis's lzf_c.c, lzf_d.c from %s, gcc %s\n\n", c.Source, strings.Join(c.CFlags, " "))
	}
	fmt.Println("| file | LZF strings | MB | Go encode MB/s | C encode MB/s | Go/C | Go decode MB/s | C decode MB/s | Go/C |")
	fmt.Println("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
	for _, f := range fs.Args() {
		if err := lzfRow(f, c, dir, *rounds); err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
	}
}

// lzfRow measures one file and prints its line.
func lzfRow(in string, c *redislzf.Harness, dir string, rounds int) error {
	d, err := redislzf.LZFStrings(in)
	if err != nil {
		return err
	}
	if len(d.Items) == 0 {
		fmt.Printf("| %s | 0 | - | - | - | - | - | - | - |\n", filepath.Base(in))
		return nil
	}
	t, err := timeLZF(d.Items, c, dir, rounds)
	if err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	var raw int64
	for _, it := range d.Items {
		raw += int64(len(it.Raw))
	}
	mbps := func(t time.Duration) string { return fmt.Sprintf("%.0f", mb(raw)/t.Seconds()) }
	cEnc, cDec, ratioEnc, ratioDec := "-", "-", "-", "-"
	if c != nil {
		cEnc, cDec = mbps(t.cEnc), mbps(t.cDec)
		ratioEnc = fmt.Sprintf("%.2f", t.cEnc.Seconds()/t.goEnc.Seconds())
		ratioDec = fmt.Sprintf("%.2f", t.cDec.Seconds()/t.goDec.Seconds())
	}
	count := fmt.Sprint(len(d.Items))
	if d.Unfaithful > 0 {
		count += fmt.Sprintf(" (+%d not reproduced, left out)", d.Unfaithful)
	}
	fmt.Printf("| %s | %s | %.1f | %s | %s | %s | %s | %s | %s |\n", filepath.Base(in), count, mb(raw),
		mbps(t.goEnc), cEnc, ratioEnc, mbps(t.goDec), cDec, ratioDec)
	return nil
}

// lzfTimes are the least times of a pass over a file's strings.
type lzfTimes struct{ goEnc, goDec, cEnc, cDec time.Duration }

// timeLZF checks that rdbio/lzf gives back every item's stream and bytes,
// then times passes of Encoder.Encode and lzf.Decode over the items and
// of the C code (when c is not nil), Go and C taking turns so that both
// see the same load on the machine.
func timeLZF(items []redislzf.Item, c *redislzf.Harness, dir string, rounds int) (lzfTimes, error) {
	items = packed(items)
	var e lzf.Encoder
	buf := make([]byte, maxOut(items))
	for i, it := range items {
		if z, ok := e.Encode(buf, it.Raw, it.Budget); !ok || !bytes.Equal(z, it.Comp) {
			return lzfTimes{}, fmt.Errorf("string %d: Encode does not give back its stream", i)
		}
		if raw, err := lzf.Decode(buf, it.Comp, len(it.Raw)); err != nil || !bytes.Equal(raw, it.Raw) {
			return lzfTimes{}, fmt.Errorf("string %d: Decode does not give back its bytes (%v)", i, err)
		}
	}
	var set *redislzf.Set
	if c != nil {
		var err error
		if set, err = c.Load(dir, items); err != nil {
			return lzfTimes{}, err
		}
		defer set.Close()
	}
	t := lzfTimes{goEnc: math.MaxInt64, goDec: math.MaxInt64, cEnc: math.MaxInt64, cDec: math.MaxInt64}
	for range rounds {
		runtime.GC()
		t.goEnc = min(t.goEnc, timed1(func() {
			for _, it := range items {
				e.Encode(buf, it.Raw, it.Budget)
			}
		}))
		t.goDec = min(t.goDec, timed1(func() {
			for _, it := range items {
				lzf.Decode(buf, it.Comp, len(it.Raw))
			}
		}))
		if set == nil {
			continue
		}
		ce, cd, err := set.Time(1)
		if err != nil {
			return lzfTimes{}, err
		}
		t.cEnc, t.cDec = min(t.cEnc, ce), min(t.cDec, cd)
	}
	return t, nil
}

// packed returns items with their strings laid out one after the other,
// each string's bytes then its stream, in one buffer: as the C harness
// holds them (read from one file). Each in its own allocation, as the
// dump's walk left them, they were scattered over the heap, and the first
// load of each short string missed the caches where C's, in order, came
// prefetched: a tenth of Go's encode time on app-cache's strings.
func packed(items []redislzf.Item) []redislzf.Item {
	n := 0
	for _, it := range items {
		n += len(it.Raw) + len(it.Comp)
	}
	buf := make([]byte, 0, n)
	out := make([]redislzf.Item, len(items))
	for i, it := range items {
		at := len(buf)
		buf = append(append(buf, it.Raw...), it.Comp...)
		out[i] = redislzf.Item{Raw: buf[at : at+len(it.Raw)], Comp: buf[at+len(it.Raw):], Budget: it.Budget}
	}
	return out
}

// timed1 is the CPU time of one call of pass, on the calling thread.
func timed1(pass func()) time.Duration {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start := redislzf.ThreadCPU()
	pass()
	return redislzf.ThreadCPU() - start
}

// maxOut is the largest budget or decoded length of the items.
func maxOut(items []redislzf.Item) int {
	n := 1
	for _, it := range items {
		n = max(n, it.Budget, len(it.Raw))
	}
	return n
}
