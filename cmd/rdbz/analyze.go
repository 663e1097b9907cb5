package main

import (
	"fmt"
	"io"

	"github.com/rdbz/rdbz/cmd/rdbz/internal/analyze"
	"github.com/rdbz/rdbz/listcodec"
	"github.com/rdbz/rdbz/listcodec/v1"
	"github.com/rdbz/rdbz/rdbio"
	"github.com/urfave/cli/v2"
)

func analyzeCommand() *cli.Command {
	cmd := &cli.Command{
		Name: "analyze",
		Usage: "pre-migration report: producer, keys, bytes, elements and memory per type, biggest keys, prefixes, TTLs, " +
			"list nodes, what rdbz compress would save, which servers load the file",
		ArgsUsage: "IN... (paths, or - for stdin; several: one combined report with a row per file)",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print JSON"},
			&cli.IntFlag{Name: "top", Value: analyze.DefaultTop, Usage: "keys and prefixes in each ranking", Action: inRange("top", 1, 10000)},
			&cli.Int64Flag{Name: "sample-bytes", Value: v1.DefaultSampleBytes,
				Usage: "node bytes sampled to train the what-if dictionary (as rdbz compress --sample-bytes; 0: no what-if)", Action: atLeast[int64]("sample-bytes", 0)},
			&cli.BoolFlag{Name: "no-whatif", Usage: "skip the what-if (what rdbz compress would save; trains a dictionary)"},
			&cli.StringFlag{Name: "prefix-sep", Value: analyze.DefaultPrefixSep, Usage: "characters that end a key prefix"},
			&cli.IntFlag{Name: "prefix-depth", Value: analyze.DefaultPrefixDepth, Usage: "rank prefixes up to the Nth separator (events, events:user, ...)", Action: inRange("prefix-depth", 1, 16)},
			capFlag(),
		},
		Action: runAnalyze,
	}
	cmd.Flags = append(append(cmd.Flags, keysFlags()...), filterFlags()...)
	return cmd
}

func runAnalyze(c *cli.Context) error {
	ro, keep, err := analyzeRead(c)
	if err != nil {
		return err
	}
	if c.NArg() > 1 {
		return runAnalyzeMany(c, ro, keep)
	}
	path := c.Args().First()
	prog := newProgress(c, "analyze")
	defer prog.done()
	in, err := openWalked(path, prog.reader)
	if err != nil {
		return err
	}
	defer in.close()
	opt := analyze.Options{Top: c.Int("top"), PrefixSep: c.String("prefix-sep"), PrefixDepth: c.Int("prefix-depth"), Keep: keep}
	keys, err := openKeys(c, c.Args().First(), false)
	if err != nil {
		return err
	}
	defer keys.abort()
	if keys != nil {
		opt.Keys = keys.csv
	}
	// An rdbz input is compressed already: its report says how much, and
	// a what-if beside its decoding would pass 64 MiB.
	if sb := c.Int64("sample-bytes"); sb > 0 && !c.Bool("no-whatif") && in.kind == listcodec.KindRDB {
		opt.WhatIf = &v1.CompressOptions{Train: v1.TrainOptions{SampleBytes: sb},
			Phase: func(string) { prog.phase("training the what-if dictionary", noBytes) }}
		opt.WhatIf.Cap = c.Int("cap")
		opt.WhatIf.Keep = keep // a compress with the same filters
		limitMemory(2*sb + whatIfHeadroom)
	}
	src, err := in.rdb(c.Context, decodeOptions(c))
	if err != nil {
		return err
	}
	if opt.WhatIf != nil {
		// Format 2's estimate, with the what-if's cap and filters.
		opt.Format2 = listcodec.NewFormat2Estimate(c.Context, listcodec.CompressOptions{Flow: opt.WhatIf.Flow})
		src = opt.Format2.Tee(src)
	}
	prog.phase("reading", inputSize(path))
	r, err := rdbio.NewReader(src, ro)
	if err != nil {
		return in.fail(err)
	}
	rep, err := analyze.Analyze(r, opt)
	if rep.Checksum == rdbio.ChecksumMismatch && err == nil {
		err = fmt.Errorf("checksum mismatch")
	}
	if err == nil {
		err = in.finish()
		setContainer(rep, in)
	}
	err = in.fail(err)
	prog.done()
	if kerr := keys.finish(err); err == nil {
		err = kerr
	}
	var rerr error
	switch {
	case c.String("keys") == "-": // stdout holds the CSV alone
	case c.Bool("json"):
		rerr = reportJSON(rep)
	default:
		rerr = report(func(w io.Writer) { printAnalysis(w, path, rep) })
	}
	if err == nil {
		err = rerr
	}
	return err
}

// analyzeRead is how analyze reads its inputs: --cap, and the key filter.
func analyzeRead(c *cli.Context) (rdbio.Options, func(*rdbio.Record) bool, error) {
	keep, err := keyFilter(c)
	return rdbio.Options{Cap: c.Int("cap")}, keep, err
}

// whatIfHeadroom is the heap allowed beyond the what-if's two samples:
// training a dictionary on them (v1.BuildDict) holds up to about
// 30 MiB (the d-mer hashes, tables and two encoders).
const whatIfHeadroom = 40 << 20

// setContainer puts what an rdbz input is, once read and checked, in its
// analysis; an RDB's analysis keeps what its AUX fields said.
func setContainer(a *analyze.Analysis, src *source) {
	k := src.in.Container()
	if k == nil {
		return
	}
	a.Rdbz = analyze.RdbzInfo{Compressed: true, Format: k.Format, Dicts: []analyze.DictInfo{},
		FileBytes: k.FileBytes, Blocks: k.Blocks, IndexBytes: k.IndexBytes}
	if k.DictID != 0 {
		a.Rdbz.Dicts = append(a.Rdbz.Dicts, analyze.DictInfo{ID: k.DictID, Bytes: k.DictBytes})
	}
}
