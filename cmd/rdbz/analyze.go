package main

import (
	"fmt"
	"io"

	"github.com/rdbz/rdbz/listcodec"
	"github.com/rdbz/rdbz/rdbio"
	"github.com/rdbz/rdbz/rdbio/analyze"
	"github.com/urfave/cli/v2"
)

func analyzeCommand() *cli.Command {
	return &cli.Command{
		Name: "analyze",
		Usage: "pre-migration report: producer, keys, bytes, elements and memory per type, biggest keys, prefixes, TTLs, " +
			"list nodes, what rdbz compress would save, which servers load the file",
		ArgsUsage: "IN (a path, or - for stdin)",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print JSON"},
			&cli.IntFlag{Name: "top", Value: analyze.DefaultTop, Usage: "keys and prefixes in each ranking", Action: inRange("top", 1, 10000)},
			&cli.Int64Flag{Name: "sample-bytes", Value: listcodec.DefaultSampleBytes,
				Usage: "node bytes sampled to train the what-if dictionary (as rdbz compress --sample-bytes; 0: no what-if)", Action: atLeast[int64]("sample-bytes", 0)},
			&cli.StringFlag{Name: "prefix-sep", Value: analyze.DefaultPrefixSep, Usage: "characters that end a key prefix"},
			&cli.IntFlag{Name: "mem-cap", Value: analyze.DefaultMemCap, Usage: "largest value (serialized bytes) run through hdt3213/rdb's memory profiler", Action: atLeast("mem-cap", 0)},
			&cli.IntFlag{Name: "mem-every", Value: analyze.DefaultMemEvery, Usage: "after the first 256 values of a type, profile one in N (1: every value up to --mem-cap)", Action: atLeast("mem-every", 1)},
			capFlag(),
		},
		Action: runAnalyze,
	}
}

// analyzeReport is the JSON of rdbz analyze: the analysis (whose fields
// include those of rdbz info --json) and the what-if.
type analyzeReport struct {
	*analyze.Analysis
	WhatIf *listcodec.WhatIfReport `json:"whatif"`
}

func runAnalyze(c *cli.Context) error {
	if c.NArg() > 1 {
		return fmt.Errorf("one input expected, got %d", c.NArg())
	}
	in, err := openInput(c.Args().First())
	if err != nil {
		return err
	}
	defer in.Close()
	var wi *listcodec.WhatIf
	opt := analyze.Options{Top: c.Int("top"), PrefixSep: c.String("prefix-sep"),
		MemCap: c.Int("mem-cap"), MemEvery: c.Int("mem-every")}
	if sb := c.Int64("sample-bytes"); sb > 0 {
		co := listcodec.DefaultCompressOptions()
		co.Train.SampleBytes = sb
		co.Cap = c.Int("cap")
		wi = listcodec.NewWhatIf(co)
		opt.Node = wi.Node
		limitMemory(2*sb + whatIfHeadroom)
	}
	if opt.MemCap == 0 {
		opt.MemCap = -1 // --mem-cap 0: no profiling
	}
	prog := newProgress(c, "analyze")
	defer prog.done()
	prog.phase("reading", inputSize(c.Args().First()))
	r, err := rdbio.NewReader(prog.reader(in), rdbio.Options{Cap: c.Int("cap")})
	if err != nil {
		return err
	}
	a, err := analyze.Analyze(r, opt)
	if a.Checksum == rdbio.ChecksumMismatch && err == nil {
		err = fmt.Errorf("checksum mismatch")
	}
	rep := analyzeReport{Analysis: a}
	if wi != nil && err == nil {
		prog.phase("training the what-if dictionary", noBytes)
		rep.WhatIf, err = wi.Estimate(listcodec.EstimateInput{Bytes: a.Bytes + a.TrailingBytes, Compressed: a.Rdbz.Compressed,
			ChecksumDisabled: a.Checksum == rdbio.ChecksumDisabled})
	}
	prog.done()
	var rerr error
	if c.Bool("json") {
		rerr = reportJSON(rep)
	} else {
		rerr = report(func(w io.Writer) { printAnalysis(w, c.Args().First(), &rep) })
	}
	if err == nil {
		err = rerr
	}
	return err
}

// whatIfHeadroom is the heap allowed beyond the what-if's two samples:
// training a dictionary on them (listcodec.BuildDict) holds up to about
// 30 MiB (the d-mer hashes, tables and two encoders).
const whatIfHeadroom = 40 << 20
