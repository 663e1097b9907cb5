package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"

	"github.com/klauspost/compress/zstd"
	"github.com/rdbz/rdbz/listcodec"
	"github.com/rdbz/rdbz/listcodec/block"
	"github.com/rdbz/rdbz/listcodec/flow"
	"github.com/rdbz/rdbz/listcodec/format2"
	"github.com/rdbz/rdbz/listcodec/node"
	"github.com/rdbz/rdbz/listcodec/v1"
	"github.com/rdbz/rdbz/train"
	"github.com/urfave/cli/v2"
)

// compressHeadroom is the heap allowed beyond the sample (or held records)
// and the queue: training on a 2 MiB sample and the workers' codecs fit in
// it (1 GB lists-events: peak RSS 46 MiB, no slower than with 56 MiB).
const compressHeadroom = 24 << 20

func flowFlags() []cli.Flag {
	return append(outputFlags(),
		&cli.IntFlag{Name: "workers", Aliases: []string{"T"}, Value: flow.DefaultWorkers(), DefaultText: "one per CPU; one for a file under 1 MiB", Usage: "worker goroutines: format 2 blocks (de)compressed at once, format 1 list nodes (0: one per CPU)", Action: inRange("workers", 0, 1024)},
		capFlag(),
		&cli.Int64Flag{Name: "queue-bytes", Value: v1.DefaultQueueBytes, Usage: "bytes in flight between reader, workers and writer", Action: atLeast[int64]("queue-bytes", 64<<10)},
		&cli.BoolFlag{Name: "ignore-checksum", Usage: "accept an input whose CRC64 does not match"},
	)
}

// envelopeFlag is --envelope of the commands that write an RDB
// (listcodec.ParseEnvelope reads it); def says what no flag means.
func envelopeFlag(def string) cli.Flag {
	return &cli.StringFlag{Name: "envelope", DefaultText: def,
		Usage: "lz4: write the RDB in a VKCS LZ4 envelope, as Valkey 9.2+ saves with rdbcompression lz4; none: a plain RDB"}
}

func flowFrom(c *cli.Context) listcodec.Flow {
	workers := c.Int("workers")
	if !c.IsSet("workers") && c.NArg() == 1 {
		if fi, err := os.Stat(c.Args().First()); err == nil && fi.Mode().IsRegular() {
			workers = flow.WorkersFor(fi.Size()) // a small file: one
			if workers == 1 && os.Getenv("GOMAXPROCS") == "" {
				// And one thread: the pipeline's goroutines (reader, LZF
				// worker, block worker, writer) still handed work to each
				// other across two, each handoff a wakeup of the other
				// thread, costly on a VM. Paired, on two cores: compress
				// of the corpus's Dragonfly seed 61.8 -> 51.7 ms (CPU 76
				// -> 53 ms), of the same at 3 times its size (2.2 MB) 88
				// -> 77 ms, decompress 51.5 -> 47.1 ms.
				runtime.GOMAXPROCS(1)
			}
		}
	}
	return listcodec.Flow{Options: readOptions(c), Workers: workers, QueueBytes: c.Int64("queue-bytes")}
}

func compressCommand() *cli.Command {
	cmd := &cli.Command{
		Name:      "compress",
		Usage:     "compress a dump: every record in zstd blocks with a dictionary trained on the dump (format 2; --format 1: list nodes only)",
		ArgsUsage: "[IN]",
		Description: "Writes IN.rdbz (IN is kept unless --rm), or OUT with -o, or stdout with -c. With no IN, or IN -,\n" +
			"reads stdin and writes stdout.",
		Flags: append(append(flowFlags(), rmFlags()...),
			&cli.StringFlag{Name: "dict", Usage: "zstd dictionary `FILE` (rdbz train or zstd --train) for format 2.1's zstd blocks, or format 1's nodes (format 2.2's column segments take none)"},
			&cli.BoolFlag{Name: "no-embed", Usage: "with --dict: store only its ID (AUX rdbz-dict-id), not the dictionary"},
			&cli.IntFlag{Name: "level", DefaultText: fmt.Sprintf("format 2: %d for a dump saved with rdbcompression yes, else %d; format 1: %d",
				format2.ZstdLevel(format2.LZFLevel), format2.ZstdLevel(format2.DefaultLevel), format2.ZstdLevel(v1.DefaultLevel)),
				Usage: "zstd level, or -N as zstd's: 1 fastest, 3 (2-5), 7 better (6-10), 11 best (11-22; column segments: better, in larger segments); from 6 on one block worker, and no dictionary from 11, to stay within 64 MiB", Action: inRange("level", 1, 22)},
			&cli.Float64Flag{Name: "min-saving", Value: v1.DefaultMinSaving, Usage: "share of a node's stored size compression must save", Action: inRange("min-saving", 0, 0.99)},
			&cli.BoolFlag{Name: "verify", Usage: "decode each compressed node and compare before writing it"},
			&cli.IntFlag{Name: "dict-size", DefaultText: fmt.Sprintf("format 2: %d; format 1: %d", format2.DefaultDictSize, v1.DefaultDictSize), Usage: "largest size of a trained dictionary (at most a tenth of the data)", Action: dictSizeRange},
			&cli.Int64Flag{Name: "sample-bytes", Value: format2.DefaultSampleBytes, Usage: "bytes sampled to train on (format 2: of the held records; format 1: list nodes, over a file or the held nodes of a stream)", Action: atLeast[int64]("sample-bytes", 1)},
			&cli.Int64Flag{Name: "train-bytes", DefaultText: fmt.Sprintf("format 2: %d, from a file or a stream; format 1: %d, on a stream", format2.DefaultTrainBytes, v1.DefaultTrainBytes), Usage: "bytes held to train on before compressing", Action: atLeast[int64]("train-bytes", 1)},
			&cli.Int64Flag{Name: "seed", Value: train.DefaultSeed, Usage: "training seed"},
			&cli.IntFlag{Name: "tries", Value: v1.DefaultTries, Usage: "shuffle seeds tried in training (as rdbz train --tries)", Action: inRange("tries", 1, 100)},
			&cli.BoolFlag{Name: "stream", Usage: "format 1: train from the first nodes even when IN is a file (format 2 always does)"},
			&cli.IntFlag{Name: "format", Value: 2, Usage: "2: every record, by role in column segments (2.2; with --dict: zstd blocks, 2.1); 1: list nodes only (for rdbz releases before format 2)", Action: inRange("format", 1, 2)},
			&cli.IntFlag{Name: "block-size", Value: format2.ColumnsBlockSize, DefaultText: fmt.Sprintf("%d, %d from level %d; %d with --dict", format2.ColumnsBlockSize, format2.ColumnsBestBlockSize, format2.ZstdLevel(format2.BestLevel), format2.DefaultBlockSize), Usage: "format 2: the most bytes of records in one block", Action: inRange("block-size", block.MinBlockSize, block.MaxBlockSize)},
		),
		Action: runCompress,
	}
	cmd.Flags = append(cmd.Flags, filterFlags()...)
	return cmd
}

// given sets *dst from the flag name when the command line gives it, and
// leaves it alone otherwise: a zero field takes the library's default.
func given[T any](c *cli.Context, name string, dst *T, value func(name string) T) {
	if c.IsSet(name) {
		*dst = value(name)
	}
}

// levelFlag reads --level (zstd's numbers) as an encoder level.
func levelFlag(c *cli.Context) func(string) zstd.EncoderLevel {
	return func(name string) zstd.EncoderLevel { return zstd.EncoderLevelFromZstd(c.Int(name)) }
}

// compressOptions reads the flags of format 2, compress's default, into
// listcodec's options: a field only from a flag given, so that format 2's
// defaults fill the rest.
func compressOptions(c *cli.Context) listcodec.CompressOptions {
	opt := listcodec.CompressOptions{Flow: flowFrom(c)}
	given(c, "level", &opt.Level, levelFlag(c))
	given(c, "block-size", &opt.BlockSize, c.Int)
	given(c, "dict-size", &opt.DictSize, c.Int)
	given(c, "sample-bytes", &opt.SampleBytes, c.Int64)
	given(c, "train-bytes", &opt.TrainBytes, c.Int64)
	given(c, "seed", &opt.Seed, c.Int64)
	return opt
}

// compressOptions1 reads the flags of --format 1 into package v1's
// options, as compressOptions does.
func compressOptions1(c *cli.Context) v1.CompressOptions {
	opt := v1.CompressOptions{Flow: flowFrom(c), NoEmbed: c.Bool("no-embed"), Verify: c.Bool("verify")}
	given(c, "level", &opt.Level, levelFlag(c))
	given(c, "min-saving", &opt.MinSaving, func(name string) float64 {
		if v := c.Float64(name); v > 0 {
			return v
		}
		return v1.NoMinSaving // --min-saving 0: any saving
	})
	t := &opt.Train
	given(c, "dict-size", &t.DictSize, c.Int)
	given(c, "sample-bytes", &t.SampleBytes, c.Int64)
	given(c, "train-bytes", &t.TrainBytes, c.Int64)
	given(c, "seed", &t.Seed, func(name string) *int64 { seed := c.Int64(name); return &seed })
	given(c, "tries", &t.Tries, c.Int)
	t.Stream = c.Bool("stream")
	return opt
}

// compressMemory is the heap compress allows itself: the training sample
// (and, on a stream, the records held), the trainer's tables, and the
// queue. Format 2 holds its T the same way from a file and a stream, with
// the limit of a file: the stream's larger one let the heap grow to 65.5
// MiB of RSS on the 197 MB lists-events dump (56.9 from the file).
func compressMemory(c *cli.Context, opt1 *v1.CompressOptions) int64 {
	held, queue := c.Int64("sample-bytes"), c.Int64("queue-bytes")
	if opt1 != nil {
		o := opt1.WithDefaults()
		held, queue = o.Train.SampleBytes, o.QueueBytes
		if o.Train.Stream || c.NArg() == 0 || c.Args().First() == "-" {
			held += o.Train.TrainBytes
		}
	}
	return held + queue + compressHeadroom
}

func runCompress(c *cli.Context) error {
	var opt1 *v1.CompressOptions // --format 1
	if c.Int("format") == 1 {
		o := compressOptions1(c)
		opt1 = &o
	}
	keep, err := keyFilter(c)
	if err != nil {
		return err
	}
	if keep != nil && c.Bool("rm") {
		return usagef("--rm with filters: the output lacks the keys they leave out; remove IN yourself")
	}
	limitMemory(compressMemory(c, opt1))
	var dict *node.Dict
	if p := c.String("dict"); p != "" {
		if dict, err = node.ReadDictFile(p); err != nil {
			return err
		}
	} else if c.Bool("no-embed") {
		return fmt.Errorf("--no-embed needs --dict")
	}
	if c.Bool("no-embed") && opt1 == nil {
		return &usageError{fmt.Errorf("--no-embed needs --format 1: a format-2 header embeds its dictionary")}
	}
	return transcode(c, compressedName, "", func(w io.Writer, src *source, prog *progress) (summary, error) {
		if src.kind != listcodec.KindRDB {
			return summary{}, fmt.Errorf("%w (%s): decompress it first, or keep it as it is", v1.ErrAlreadyCompressed, src.kind)
		}
		size := inputSize(c.Args().First())
		phase := func(name string) {
			if name == "training" {
				prog.phase(name, noBytes)
			} else {
				prog.phase(name, size)
			}
		}
		if opt1 != nil {
			opt1.Keep, opt1.Dict, opt1.Phase = keep, dict, phase
			return compress1(c, w, src, *opt1)
		}
		opt := compressOptions(c)
		opt.Keep, opt.Dict, opt.Phase = keep, dict, phase
		st, err := listcodec.CompressContext(c.Context, w, src.r, opt)
		return transcodeSummary("compress", src.path, src.out, st, filterNote(keep, st.Format2.T.Keys, st.Format2.T.LeftOut)), err
	})
}

// compress1 is compress --format 1 (package v1), which trains on a sample
// of the whole file, in a pass of its own, when given the file itself
// (from its start).
func compress1(c *cli.Context, w io.Writer, src *source, opt v1.CompressOptions) (summary, error) {
	var r io.Reader = src.r
	if f, ok := src.file.(*os.File); ok && inputSize(src.path) > 0 {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return summary{}, err
		}
		r = f
	}
	st, err := v1.CompressContext(c.Context, w, r, opt)
	sum := &listcodec.Stats{BytesIn: st.BytesIn, BytesOut: st.BytesOut, Elapsed: st.Elapsed, InputEnvelope: st.InputEnvelope, Format1: st}
	return transcodeSummary("compress", src.path, src.out, sum, filterNote(opt.Keep, st.Keys, st.LeftOut)), err
}

// errNotRdbz: decompress of an input that is not an rdbz file, refused as
// zstd -d refuses an unknown format (-c -f passes it through, as zstd
// -dcf does).
var errNotRdbz = errors.New("not an rdbz file (an RDB needs no decompress; -c -f passes it through as --to says)")

func decompressCommand() *cli.Command {
	return &cli.Command{
		Name:      "decompress",
		Usage:     "turn a .rdbz back into an RDB a server loads: the source byte for byte, or its strings raw or LZF",
		ArgsUsage: "[IN]",
		Description: "Writes IN without its .rdbz suffix (IN.rdb when it has another; IN is kept unless --rm), or OUT with -o,\n" +
			"or stdout with -c. With no IN, or IN -, reads stdin and writes stdout.",
		Flags: append(append(flowFlags(), rmFlags()...),
			&cli.StringFlag{Name: "to", Value: listcodec.ToOriginal.String(), Usage: "original (byte-identical to the source), lzf (as Redis saves), raw"},
			&cli.StringSliceFlag{Name: "dict", Usage: "external dictionary file(s) for files compressed with --no-embed"},
			envelopeFlag("the source's envelope with --to original, recorded by compress; else none"),
			&cli.BoolFlag{Name: "test", Aliases: []string{"t"}, Usage: "check IN... whole and write nothing (as rdbz test)"},
		),
		Action: runDecompress,
	}
}

func runDecompress(c *cli.Context) error {
	if c.Bool("test") {
		return runTest(c)
	}
	to, err := listcodec.ParseForm(c.String("to"))
	if err != nil {
		return &usageError{err}
	}
	env, err := listcodec.ParseEnvelope(c.String("envelope"))
	if err != nil {
		return &usageError{err}
	}
	opt := listcodec.DecompressOptions{Flow: flowFrom(c), To: to, Envelope: env}
	for _, p := range c.StringSlice("dict") {
		d, err := node.ReadDictFile(p)
		if err != nil {
			return err
		}
		opt.Dicts = append(opt.Dicts, d)
	}
	return transcode(c, decompressedName, "decompressing", func(w io.Writer, src *source, _ *progress) (summary, error) {
		if src.kind == listcodec.KindRDB && !(c.Bool("force") && (c.Bool("stdout") || c.String("output") == "-")) {
			return summary{}, errNotRdbz
		}
		st, err := listcodec.DecompressContext(c.Context, w, src.r, opt)
		return transcodeSummary("decompress", src.path, src.out, st, ""), err
	})
}

// transcode runs fn from IN to OUT, both found by the conventions of
// paths.go (name: the default output name), with the safe-output rules;
// it shows progress on a terminal from the phase first ("": fn starts its
// own phases), prints the summary line fn returns unless -q and, with --rm,
// removes IN once OUT is in place. fn reads the input as it is (src.r) or
// the RDB it holds (src.rdb), which transcode checks to its end
// (src.finish) before OUT is put in place. An error names IN.
func transcode(c *cli.Context, name namer, first string, fn func(w io.Writer, src *source, prog *progress) (summary, error)) error {
	inPath, err := inputPath(c)
	if err != nil {
		return err
	}
	outPath, err := outputPath(c, inPath, name)
	if err != nil {
		return err
	}
	prog := newProgress(c, c.Command.Name)
	src, err := openSource(inPath, prog.reader)
	if err != nil {
		return err
	}
	defer src.close()
	src.out = outPath
	out, err := createOutput(outPath, inPath, outputOptions(c))
	if err != nil {
		return err
	}
	if c.Bool("rm") && !out.regular() {
		out.abort()
		return usagef("--rm: %s is not a regular file; IN is kept only that way", outPath)
	}
	if first != "" {
		prog.phase(first, inputSize(inPath))
	}
	sum, err := fn(out, src, prog)
	if err == nil {
		err = src.finish()
	}
	prog.done()
	if err != nil {
		out.abort()
		return src.fail(err)
	}
	if err := out.commit(); err != nil {
		return err
	}
	if c.Bool("rm") {
		src.close()
		if err := os.Remove(inPath); err != nil {
			return fmt.Errorf("--rm: %w", err)
		}
	}
	if !c.Bool("quiet") {
		fmt.Fprintln(os.Stderr, sum.line)
	}
	if c.Bool("verbose") {
		if sum.detail != "" {
			fmt.Fprintln(os.Stderr, sum.detail)
		}
		fmt.Fprintf(os.Stderr, "%s: %s -> %s; %s\n", c.Command.Name, displayName(inPath), displayName(outPath), prog.timings())
	}
	return nil
}

// displayName is a path as messages show it ("-": stdin or stdout).
func displayName(path string) string {
	if path == "-" {
		return "(stdio)"
	}
	return path
}
