package main

import (
	"fmt"
	"io"

	"github.com/rdbz/rdbz/cmd/rdbz/internal/verify"
	"github.com/rdbz/rdbz/listcodec"
	"github.com/rdbz/rdbz/listcodec/node"
	"github.com/urfave/cli/v2"
)

func verifyCommand() *cli.Command {
	return &cli.Command{
		Name: "verify",
		Usage: "check that two RDB files hold the same data (per db the same keys, types, values and expiries, " +
			"whatever the encodings); compressed files are decoded on the fly. Exit 0: same; 1: different or unreadable",
		ArgsUsage: "A B (paths; one of them may be - for stdin)",
		Description: "Prints what it compared (the keys, how many compared decoded and how many as stored); with -q\n" +
			"nothing: only the exit status says.",
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "dict", Usage: "external dictionary file(s), for files compressed with --no-embed"},
			&cli.BoolFlag{Name: "ignore-checksum", Usage: "accept inputs whose CRC64 does not match"},
			&cli.IntFlag{Name: "workers", Aliases: []string{"T"}, DefaultText: "half the CPUs", Usage: "decompression workers per input (0: half the CPUs)", Action: inRange("workers", 0, 1024)},
			capFlag(),
			&cli.IntFlag{Name: "decode-cap", Value: verify.DefaultDecodeCap, Action: inRange("decode-cap", 1, maxCap),
				Usage: "stored bytes of one value decoded to be compared; larger values are compared as stored"},
		},
		Action: runVerify,
	}
}

func runVerify(c *cli.Context) error {
	if c.NArg() != 2 {
		return usagef("verify takes two inputs A and B, got %d", c.NArg())
	}
	pa, pb := c.Args().Get(0), c.Args().Get(1)
	if pa == "-" && pb == "-" {
		return usagef("only one input can be - (stdin)")
	}
	opt := verify.Options{
		Flow:      listcodec.Flow{Options: readOptions(c), Workers: c.Int("workers"), QueueBytes: verifyQueue},
		DecodeCap: c.Int("decode-cap"),
	}
	for _, p := range c.StringSlice("dict") {
		d, err := node.ReadDictFile(p)
		if err != nil {
			return err
		}
		opt.Dicts = append(opt.Dicts, d)
	}
	prog := newProgress(c, "verify")
	defer prog.done()
	sa, a, err := openVerified(c, pa, opt.Dicts, prog)
	if err != nil {
		return err
	}
	defer sa.close()
	sb, b, err := openVerified(c, pb, opt.Dicts, prog)
	if err != nil {
		return err
	}
	defer sb.close()
	prog.phase("comparing", totalSize([]string{pa, pb}))
	res, err := verify.Verify(a, b, opt)
	if err == nil {
		err = sa.finish()
	}
	if err == nil {
		err = sb.finish()
	}
	prog.done()
	if err != nil {
		for _, s := range []*source{sa, sb} {
			if s.cause(err) != err {
				return s.fail(err) // decoding this rdbz input failed
			}
		}
		return fmt.Errorf("verify %s %s: %w", pa, pb, err)
	}
	if res.Diff != nil {
		return fmt.Errorf("files differ: %s", res.Diff)
	}
	if c.Bool("quiet") {
		return nil
	}
	return report(func(w io.Writer) { printSame(w, res) })
}

// openVerified opens one input of verify: the RDB it holds.
func openVerified(c *cli.Context, path string, dicts []*node.Dict, prog *progress) (*source, io.Reader, error) {
	src, err := openSource(path, prog.reader)
	if err != nil {
		return nil, nil, err
	}
	do := decodeOptions(c)
	do.Dicts = dicts
	do.QueueBytes = verifyQueue // four pipelines run: two per side
	r, err := src.rdb(c.Context, do)
	if err != nil {
		src.close()
		return nil, nil, err
	}
	return src, r, nil
}

// printSame prints the result of two inputs found the same.
func printSame(w io.Writer, res *verify.Result) {
	fmt.Fprintf(w, "same: %d keys (%d semantic, %d byte-wise)\n", res.Keys, res.Semantic, res.ByteWise)
	for _, why := range res.ByteWiseWhy {
		fmt.Fprintf(w, "  compared as stored: %s\n", why)
	}
	if res.Unparsed {
		fmt.Fprintln(w, "  and the rest of the files from a record rdbz cannot walk is byte-identical")
	}
}

// verifyQueue is what each side's list-node pipeline holds in flight: its
// 16 MiB default, on both sides, beside a format-2 input's blocks, made
// verify of a file of 8 MiB blocks peak at 68 MiB.
const verifyQueue = 2 << 20
