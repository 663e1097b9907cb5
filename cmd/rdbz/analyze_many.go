package main

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/rdbz/rdbz/cmd/rdbz/internal/analyze"
	"github.com/rdbz/rdbz/rdbio"
	"github.com/urfave/cli/v2"
)

// runAnalyzeMany analyzes several inputs (the shard dumps of a cluster)
// one after the other and reports them as one data set, with a row per
// file. The what-if is left out (it runs on one input). An input that
// fails is reported as far as it was read, and the command exits 1.
func runAnalyzeMany(c *cli.Context, ro rdbio.Options, keep func(*rdbio.Record) bool) error {
	names := c.Args().Slice()
	keys, err := openKeys(c, "", true)
	if err != nil {
		return err
	}
	defer keys.abort()
	opt := analyze.Options{Top: c.Int("top"), PrefixSep: c.String("prefix-sep"), PrefixDepth: c.Int("prefix-depth"), Keep: keep}
	if keys != nil {
		opt.Keys = keys.csv
	}
	comb := analyze.NewCombiner(opt.Top)
	var errs []error
	for _, name := range names {
		if keys != nil {
			keys.csv.File = name
		}
		a, err := analyzeOne(c, name, opt, ro)
		if a != nil {
			comb.Add(a, name) // and a is dropped: any number of files in bounded memory
		}
		if err != nil {
			errs = append(errs, withPath(err, name))
		}
	}
	err = errors.Join(errs...)
	if kerr := keys.finish(err); err == nil {
		err = kerr
	}
	res := comb.Result()
	var rerr error
	switch {
	case c.String("keys") == "-":
	case c.Bool("json"):
		rerr = reportJSON(res)
	default:
		rerr = report(func(w io.Writer) { printCombined(w, res) })
	}
	if err == nil {
		err = rerr
	}
	return err
}

// analyzeOne analyzes one input; the analysis is nil when the input could
// not be opened or is not an RDB file.
func analyzeOne(c *cli.Context, name string, opt analyze.Options, ro rdbio.Options) (*analyze.Analysis, error) {
	prog := newProgress(c, "analyze "+name)
	defer prog.done()
	src, err := openWalked(name, prog.reader)
	if err != nil {
		return nil, err
	}
	defer src.close()
	prog.phase("reading", inputSize(name))
	in, err := src.rdb(c.Context, decodeOptions(c))
	if err != nil {
		return nil, err
	}
	r, err := rdbio.NewReader(in, ro)
	if err != nil {
		return nil, src.fail(err)
	}
	a, err := analyze.Analyze(r, opt)
	if a.Checksum == rdbio.ChecksumMismatch && err == nil {
		err = errors.New("checksum mismatch")
	}
	if err == nil {
		err = src.finish()
		setContainer(a, src)
	}
	return a, src.fail(err)
}

// printCombined writes the report of several inputs for people.
func printCombined(w io.Writer, comb *analyze.Combined) {
	section(w, fmt.Sprintf("files (%d, taken as one data set)", len(comb.Files)))
	table(w, []string{"file", "keys", "bytes", "memory", "dataset", "checksum"}, func(row func(...any)) {
		for _, f := range comb.Files {
			row(filepath.Base(f.File), f.Keys, size(f.Bytes), size(f.Memory), size(f.Dataset), f.Checksum)
		}
		row("all", comb.Keys, size(comb.Bytes), size(comb.Memory.Bytes), size(comb.Memory.Dataset), "")
	})
	fmt.Fprintf(w, "  memory: Σ MEMORY USAGE in redis 7.0; dataset: its used_memory_dataset\n")
	if comb.LeftOut > 0 {
		fmt.Fprintf(w, "  %d keys left out by the filters are not counted\n", comb.LeftOut)
	}

	section(w, "types")
	printTypes(w, comb.TypeStats)
	now := time.Now().UnixMilli() // ttls: the files' ctimes differ
	printKeys(w, "biggest keys by memory (estimated MEMORY USAGE)", comb.TopMemory, now)
	printKeys(w, "biggest keys by serialized bytes", comb.TopBytes, now)
	printKeys(w, "biggest keys by element count", comb.TopElements, now)
	printBiggest(w, comb.Biggest)
	printPrefixes(w, comb.Prefixes)
	section(w, "lists")
	if comb.Lists.Keys == 0 {
		fmt.Fprintln(w, "  none")
	} else {
		printLists(w, comb.Lists)
	}
	section(w, "what-if: not run (it runs on one input)")
	printCompat(w, comb.Compat)
	var all []string
	for _, v := range comb.Compat {
		if v.Loads {
			all = append(all, v.Server)
		}
	}
	fmt.Fprintf(w, "  (a server loads the set when it loads every file: %s)\n", orNone(strings.Join(all, ", ")))
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
