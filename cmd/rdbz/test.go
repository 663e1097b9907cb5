package main

import (
	"fmt"
	"os"

	"github.com/rdbz/rdbz/listcodec"
	"github.com/rdbz/rdbz/rdbio"
	"github.com/urfave/cli/v2"
)

func testCommand() *cli.Command {
	return &cli.Command{
		Name:      "test",
		Usage:     "check files whole without writing anything, as zstd -t and gzip -t do (also decompress -t)",
		ArgsUsage: "[IN...]",
		Description: "Reads each IN to its end: an rdbz file's every block, its index and footer and the CRC-64 of the RDB it\n" +
			"holds; an RDB's every record and its CRC-64 (a VKCS envelope's checksums too). Prints a line per file\n" +
			"unless -q; exit 0 when every file is sound, 1 when one is not.",
		Flags:  []cli.Flag{capFlag()},
		Action: runTest,
	}
}

func runTest(c *cli.Context) error {
	paths, err := inputPaths(c)
	if err != nil {
		return err
	}
	failed := 0
	var last error
	for _, p := range paths {
		line, err := testFile(c, p)
		if err != nil {
			failed, last = failed+1, err
			if len(paths) > 1 {
				fmt.Fprintf(os.Stderr, "rdbz: %v\n", err)
			}
			continue
		}
		if !c.Bool("quiet") {
			fmt.Fprintln(os.Stderr, line)
		}
	}
	if len(paths) > 1 && failed > 0 {
		return fmt.Errorf("%d of %d files failed the test", failed, len(paths))
	}
	return last
}

// testFile reads one input whole and says what it is.
func testFile(c *cli.Context, path string) (string, error) {
	prog := newProgress(c, "test")
	defer prog.done()
	src, err := openWalked(path, prog.reader)
	if err != nil {
		return "", err
	}
	defer src.close()
	prog.phase("reading", inputSize(path))
	r, err := src.rdb(c.Context, decodeOptions(c))
	if err != nil {
		return "", err
	}
	n, err := rdbio.Check(r, rdbio.Options{Cap: c.Int("cap")})
	if err == nil {
		err = src.finish()
	}
	if err != nil {
		return "", src.fail(err)
	}
	what := "RDB"
	if k := src.in.Container(); k != nil {
		what = fmt.Sprintf("rdbz format %s, %s => %s", k.Format, size(k.FileBytes), size(n))
	} else if src.kind == listcodec.KindRDB {
		what = fmt.Sprintf("RDB, %s", size(n))
	}
	return fmt.Sprintf("%s : OK (%s)", displayName(path), what), nil
}
