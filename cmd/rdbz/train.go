package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/rdbz/rdbz/listcodec"
	"github.com/rdbz/rdbz/rdbio"
	"github.com/rdbz/rdbz/train"
	"github.com/urfave/cli/v2"
)

func trainCommand() *cli.Command {
	return &cli.Command{
		Name:      "train",
		Usage:     "train a zstd dictionary from the list nodes of RDB files",
		ArgsUsage: "IN... (paths, or - for stdin)",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "FILE.dict (a standard zstd dictionary)"},
			&cli.BoolFlag{Name: "force", Aliases: []string{"f"}, Usage: "overwrite the output"},
			&cli.IntFlag{Name: "dict-size", Value: train.DefaultDictSize, Usage: "dictionary size in bytes"},
			&cli.Int64Flag{Name: "sample-bytes", Value: 8 << 20, Usage: "node bytes sampled (uniformly over files; the first ones from stdin)"},
			&cli.Int64Flag{Name: "seed", Value: 1, Usage: "same input and seed, same dictionary"},
			&cli.UintFlag{Name: "dict-id", Usage: "dictionary ID (32768-65535; default derived from the seed)"},
			&cli.IntFlag{Name: "level", Value: 1, Usage: "zstd level the dictionary is tuned for"},
			&cli.IntFlag{Name: "tries", Value: 3, Usage: "shuffle seeds tried; the best on a held-out tenth is kept"},
			&cli.StringFlag{Name: "dump-samples", Usage: "also write each sampled node to a file in this folder (for zstd --train)"},
			capFlag(),
		},
		Action: runTrain,
	}
}

func runTrain(c *cli.Context) error {
	if c.NArg() == 0 {
		return errors.New("train needs at least one input")
	}
	start := time.Now()
	seed := c.Int64("seed")
	s := train.NewSampler(c.Int64("sample-bytes"), seed)
	for _, p := range c.Args().Slice() {
		if err := sampleInput(p, s, c.Int64("sample-bytes"), c.Int("cap")); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
	}
	samples := s.Samples()
	if dir := c.String("dump-samples"); dir != "" {
		if err := dumpSamples(dir, samples); err != nil {
			return err
		}
	}
	level := zstd.EncoderLevelFromZstd(c.Int("level"))
	_, evalSet := train.HeldOut(samples, 0.9, seed)
	p := train.Params{DictSize: c.Int("dict-size"), Seed: seed, ID: uint32(c.Uint("dict-id")), Level: level}
	dict, probe, err := train.BuildBest(samples, p, c.Int("tries"))
	if err != nil {
		return fmt.Errorf("train: %w", err)
	}
	secs := time.Since(start).Seconds()
	if err := writeFile(c.String("output"), c.Bool("force"), dict); err != nil {
		return err
	}
	return reportTrain(samples, evalSet, probe, dict, level, secs)
}

// sampleInput adds the decoded list nodes of one input to s: all of a
// file, or from stdin only until the sample is full.
func sampleInput(path string, s *train.Sampler, limit int64, capBytes int) error {
	in, err := openInput(path)
	if err != nil {
		return err
	}
	defer in.Close()
	var scratch []byte
	return rdbio.ForEachNode(in, rdbio.Options{Cap: capBytes}, func(_ []byte, n *rdbio.Node) (bool, error) {
		if n.Data == nil {
			return true, nil // over the cap
		}
		raw, err := listcodec.DecodeNode(scratch, n)
		if n.Enc == rdbio.EncLZF {
			scratch = raw
		}
		if err != nil || raw == nil {
			return err == nil, err
		}
		s.Add(raw)
		_, seen := s.Seen()
		return path != "-" || seen < limit, nil
	})
}

func dumpSamples(dir string, samples [][]byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for i, b := range samples {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("node-%06d", i)), b, 0o644); err != nil {
			return fmt.Errorf("dump samples: %w", err)
		}
	}
	return nil
}

// writeFile writes b to path through a temp file renamed into place.
func writeFile(path string, force bool, b []byte) error {
	out, err := createOutput(path, "", force)
	if err != nil {
		return err
	}
	if _, err := out.Write(b); err != nil {
		out.abort()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return out.commit()
}

func reportTrain(samples, evalSet [][]byte, probe, dict []byte, level zstd.EncoderLevel, secs float64) error {
	st, err := train.Evaluate(probe, evalSet, level)
	if err != nil {
		return err
	}
	var lzf rdbio.LZFEncoder
	var buf []byte
	var lzfBytes int64
	for _, b := range evalSet {
		var ok bool
		if buf, ok = lzf.RedisSave(buf, b); ok {
			lzfBytes += int64(len(buf))
		} else {
			lzfBytes += int64(len(b))
		}
	}
	d, _ := listcodec.ParseDict(dict)
	fmt.Fprintf(os.Stderr, "train: %d samples; dictionary %d, %d bytes, %.2fs\n", len(samples), d.ID, len(dict), secs)
	fmt.Fprintf(os.Stderr, "held-out %d nodes: raw %d, lzf %d, zstd %d, zstd+dict %d bytes (%.2fx over raw, %.2fx over lzf)\n",
		st.Samples, st.Raw, lzfBytes, st.NoDict, st.WithDict,
		float64(st.Raw)/float64(max(st.WithDict, 1)), float64(lzfBytes)/float64(max(st.WithDict, 1)))
	return nil
}
