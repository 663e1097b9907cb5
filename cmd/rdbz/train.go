package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/rdbz/rdbz/cmd/rdbz/internal/outfile"
	"github.com/rdbz/rdbz/listcodec"
	"github.com/rdbz/rdbz/listcodec/format2"
	"github.com/rdbz/rdbz/listcodec/node"
	"github.com/rdbz/rdbz/listcodec/v1"
	"github.com/rdbz/rdbz/rdbio"
	"github.com/rdbz/rdbz/train"
	"github.com/urfave/cli/v2"
)

func trainCommand() *cli.Command {
	d := v1.DefaultTrainOptions()
	return &cli.Command{
		Name:      "train",
		Usage:     "train a zstd dictionary from the list nodes of RDB files (as compress --format 1 does; format 2 trains on whole records itself)",
		ArgsUsage: "[IN...]",
		Description: "Writes a standard zstd dictionary to OUT (-o FILE.dict) or stdout (-c; the default when reading\n" +
			"stdin: no IN, or IN -). The samples are drawn from all the INs.",
		Flags: append(outputFlags(),
			&cli.IntFlag{Name: "dict-size", Value: d.DictSize, Usage: "largest dictionary size in bytes (at most a tenth of the list data)", Action: dictSizeRange},
			&cli.Int64Flag{Name: "sample-bytes", Value: d.SampleBytes, Usage: "node bytes sampled (uniformly over files; the first ones from stdin)", Action: atLeast[int64]("sample-bytes", 1)},
			&cli.Int64Flag{Name: "seed", Value: train.DefaultSeed, Usage: "same input and seed, same dictionary"},
			&cli.UintFlag{Name: "dict-id", Usage: "dictionary ID, 32768-65535, or 0", DefaultText: "0, derived from the seed", Action: dictIDRange},
			&cli.IntFlag{Name: "level", Value: format2.ZstdLevel(v1.DefaultLevel), Usage: "zstd level the dictionary is tuned for", Action: inRange("level", 1, 22)},
			&cli.IntFlag{Name: "tries", Value: d.Tries, Usage: "shuffle seeds tried; the dictionary with which the sample costs least is kept", Action: inRange("tries", 1, 100)},
			&cli.BoolFlag{Name: "held-out", Usage: "also train on nine tenths of the sample and report on the other tenth (a second training)"},
			&cli.StringFlag{Name: "dump-samples", Usage: "also write each sampled node to a file in this `FOLDER` (for zstd --train)"},
			capFlag(),
		),
		Action: runTrain,
	}
}

// trainHeadroom is the heap allowed beyond the sample: the trainer's
// d-mer hashes (up to 12 MiB), tables and two encoders. On a 197 MB list
// dump: 0.84 s and 43 MiB peak RSS; with 24 MiB the collector ran so often
// that it took 1.10 s.
const trainHeadroom = 38 << 20

func runTrain(c *cli.Context) error {
	paths, err := inputPaths(c)
	if err != nil {
		return err
	}
	in := "" // no default output name: -o or -c, or stdout from stdin
	if len(paths) == 1 && paths[0] == "-" {
		in = "-"
	}
	outPath, err := outputPath(c, in, nil)
	if err != nil {
		return err
	}
	start := time.Now()
	opt := v1.DefaultTrainOptions()
	opt.DictSize, opt.SampleBytes = c.Int("dict-size"), c.Int64("sample-bytes")
	limitMemory(opt.SampleBytes + trainHeadroom)
	seed := c.Int64("seed")
	opt.Seed, opt.Tries, opt.ID = &seed, c.Int("tries"), uint32(c.Uint("dict-id"))
	s := v1.NewNodeSampler(opt)
	prog := newProgress(c, "train")
	defer prog.done()
	prog.phase("sampling", totalSize(paths))
	for _, p := range paths {
		if err := sampleInput(c.Context, p, s, c.Int("cap"), prog); err != nil {
			return err // it names p
		}
	}
	samples := s.Samples()
	if dir := c.String("dump-samples"); dir != "" {
		if err := dumpSamples(dir, samples); err != nil {
			return err
		}
	}
	level := zstd.EncoderLevelFromZstd(c.Int("level"))
	prog.phase("training", noBytes)
	dict, err := s.Dict(samples, level)
	if err != nil {
		return fmt.Errorf("train: %w", err)
	}
	secs := time.Since(start).Seconds()
	wopt := outputOptions(c)
	wopt.Sync = true // a dictionary is small, and files depend on it
	if err := writeFile(outPath, wopt, dict.Bytes); err != nil {
		return err
	}
	evalName, evalSet, evalDict := "sample (trained on; --held-out for a fair figure)", samples, dict
	if c.Bool("held-out") {
		// An honest figure costs a second training: a dictionary trained
		// on nine tenths of the sample, judged on the other tenth.
		prog.phase("training on nine tenths (--held-out)", noBytes)
		if evalDict, evalSet, err = s.HeldOutDict(samples, level); err != nil {
			return fmt.Errorf("train: %w", err)
		}
		evalName = "held-out"
	}
	prog.done()
	if c.Bool("quiet") {
		return nil
	}
	fmt.Fprintf(os.Stderr, "train: %d samples; dictionary %d, %d bytes, %.2fs\n", len(samples), dict.ID, len(dict.Bytes), secs)
	if c.Bool("verbose") {
		fmt.Fprintf(os.Stderr, "train: %s -> %s; %s\n", strings.Join(paths, " "), displayName(outPath), prog.timings())
	}
	return reportTrain(evalName, evalSet, evalDict, level)
}

// sampleInput adds the list nodes of one input to s: all of a file, or
// from stdin only until the sample is full.
func sampleInput(ctx context.Context, path string, s *v1.NodeSampler, capBytes int, prog *progress) error {
	src, err := openWalked(path, prog.reader)
	if err != nil {
		return err
	}
	defer src.close()
	in, err := src.rdb(ctx, listcodec.DecompressOptions{Flow: listcodec.Flow{Options: rdbio.Options{Cap: capBytes}}})
	if err != nil {
		return err
	}
	if err := s.AddAll(ctx, in, rdbio.Options{Cap: capBytes}, path == "-"); err != nil {
		return src.fail(err)
	}
	if path == "-" {
		return nil // stdin is read until the sample is full, not to its end
	}
	return src.finish()
}

// dumpSamples writes each sample to DIR/node-NNNNNN. A file there is
// replaced; a symbolic link (or anything but a regular file) is not
// followed but refused.
func dumpSamples(dir string, samples []v1.NodeSample) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for i, b := range samples {
		if err := writeNew(filepath.Join(dir, fmt.Sprintf("node-%06d", i)), b.Data); err != nil {
			return fmt.Errorf("dump samples: %w", err)
		}
	}
	return nil
}

// writeNew creates path (O_EXCL: never through a link) and writes b; an
// existing regular file is removed first.
func writeNew(path string, b []byte) error {
	if fi, err := os.Lstat(path); err == nil {
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("%s exists and is not a regular file: not written", path)
		}
		if err := os.Remove(path); err != nil {
			return err
		}
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// writeFile writes b to path (complete or not at all) or stdout ("-").
func writeFile(path string, opt outfile.Options, b []byte) error {
	out, err := createOutput(path, "", opt)
	if err != nil {
		return err
	}
	if _, err := out.Write(b); err != nil {
		out.abort()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return out.commit()
}

func reportTrain(what string, evalSet []v1.NodeSample, dict *node.Dict, level zstd.EncoderLevel) error {
	st, err := v1.EvaluateDict(dict, evalSet, level)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "%s, %d nodes: raw %d, lzf %d, zstd %d, zstd+dict %d bytes (%.2fx over raw, %.2fx over lzf)\n",
		what, st.Samples, st.Raw, st.LZF, st.NoDict, st.WithDict,
		float64(st.Raw)/float64(max(st.WithDict, 1)), float64(st.LZF)/float64(max(st.WithDict, 1)))
	return nil
}
