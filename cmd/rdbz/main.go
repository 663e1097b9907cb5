// Command rdbz transcodes Redis RDB snapshots: it compresses the quicklist
// nodes of list values with a shared zstd dictionary, turns them back into
// what a stock redis-server loads, and reports what a dump holds.
//
// This package is the command-line wiring only; the format lives in rdbio,
// the node codecs in listcodec and the dictionary trainer in train.
package main

import (
	"fmt"
	"os"

	"github.com/urfave/cli/v2"
)

func main() {
	app := &cli.App{
		Name:  "rdbz",
		Usage: "transcode Redis RDB snapshots (zstd-dictionary list compression, analysis)",
		Commands: []*cli.Command{
			infoCommand(),
			copyCommand(),
			compressCommand(),
			decompressCommand(),
			analyzeCommand(),
			trainCommand(),
			verifyCommand(),
		},
		ExitErrHandler: func(*cli.Context, error) {},
	}
	if err := app.Run(os.Args); err != nil {
		fmt.Fprintln(os.Stderr, "rdbz:", err)
		os.Exit(1)
	}
}
