package main

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"
)

// The conventions of zstd and gzip for where a command reads and writes,
// in one place.

// compressedExt is the name compress adds and decompress removes.
const compressedExt = ".rdbz"

// namer gives the output name for an input file when no -o or -c says
// where to write; nil for a command that has no such name (copy).
type namer func(in string) (string, error)

// compressedName: FILE → FILE.rdbz.
func compressedName(in string) (string, error) { return in + compressedExt, nil }

// decompressedName: FILE.rdbz → FILE; any other FILE.ext → FILE.rdb, refused
// when that is the input itself.
func decompressedName(in string) (string, error) {
	if out, ok := strings.CutSuffix(in, compressedExt); ok && out != "" && !os.IsPathSeparator(out[len(out)-1]) {
		return out, nil
	}
	out := strings.TrimSuffix(in, filepath.Ext(in)) + ".rdb"
	if out == in {
		return "", usagef("%s has no %s suffix to remove: name the output with -o OUT, or -c for stdout", in, compressedExt)
	}
	return out, nil
}

// inputPath is the single input of a command: its argument, or stdin when
// none is named and stdin is not a terminal.
func inputPath(c *cli.Context) (string, error) {
	switch c.NArg() {
	case 0:
		if isTerminal(os.Stdin) {
			return "", usagef("no input: name a file, or pipe one into stdin")
		}
		return "-", nil
	case 1:
		return c.Args().First(), nil
	}
	return "", usagef("%s takes one input, got %d: run it once per file", c.Command.Name, c.NArg())
}

// inputPaths are the inputs of a command that reads several in turn: its
// arguments, or stdin when none is named and stdin is not a terminal.
func inputPaths(c *cli.Context) ([]string, error) {
	if c.NArg() > 0 {
		return c.Args().Slice(), nil
	}
	p, err := inputPath(c)
	if err != nil {
		return nil, err
	}
	return []string{p}, nil
}

// outputPath is where a command that writes binary data writes: -o OUT,
// stdout with -c or when reading stdin, else the name the input gives
// (name). Binary data goes to a terminal only with -f.
func outputPath(c *cli.Context, in string, name namer) (string, error) {
	out := c.String("output")
	switch {
	case c.Bool("stdout") && out != "" && out != "-":
		return "", usagef("-c (stdout) and -o %s: choose one", out)
	case c.Bool("stdout"), out == "" && in == "-":
		out = "-"
	case out == "" && name == nil:
		return "", usagef("missing -o OUT (a path, or - for stdout), or -c for stdout")
	case out == "":
		var err error
		if out, err = name(in); err != nil {
			return "", err
		}
	}
	if out == "-" && isTerminal(os.Stdout) && !c.Bool("force") && !writesText(c) {
		return "", usagef("stdout is a terminal: not writing binary data to it (redirect stdout, use -o OUT, or -f to force)")
	}
	if c.Bool("rm") && c.Bool("keep") {
		return "", usagef("--rm and -k (--keep): choose one")
	}
	if c.Bool("rm") && (in == "-" || out == "-") {
		return "", usagef("--rm needs an input file and an output file (not stdin or stdout)")
	}
	return out, nil
}

// writesText reports whether a command writes text, which may go to a
// terminal: export's JSON.
func writesText(c *cli.Context) bool {
	return c.Command.Name == "export" && c.String("format") != "resp"
}
