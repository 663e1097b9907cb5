// Command rdbz transcodes Redis RDB snapshots: it compresses the quicklist
// nodes of list values with a shared zstd dictionary, turns them back into
// what a stock redis-server loads, and reports what a dump holds.
//
// This package is the command-line wiring only; the format lives in rdbio,
// the node codecs in listcodec and the dictionary trainer in train.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/rdbz/rdbz/cmd/rdbz/internal/outfile"
	"github.com/urfave/cli/v2"
)

// interruptGrace is how long a command has, after SIGINT, SIGTERM, SIGHUP
// or SIGQUIT, to stop by itself (its library calls watch the context) before
// the process removes its partial outputs and exits anyway (a read from a
// pipe cannot be interrupted).
const interruptGrace = time.Second

func main() {
	guardStdio()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	defer stop()
	go func() {
		<-ctx.Done()
		time.Sleep(interruptGrace)
		exitInterrupted()
	}()
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
		OnUsageError:   onUsageError,
	}
	for _, c := range app.Commands {
		c.OnUsageError = onUsageError
	}
	stopProfile := startProfile()
	err := app.RunContext(ctx, os.Args)
	stopProfile()
	if ctx.Err() != nil {
		exitInterrupted()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "rdbz:", err)
		if isUsage(err) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

// exitInterrupted removes the partial outputs and exits with 130, as a
// shell reports SIGINT.
func exitInterrupted() {
	outfile.AbortAll()
	fmt.Fprintln(os.Stderr, "rdbz: interrupted; removed the partial output")
	os.Exit(130)
}

// limitMemory sets the Go runtime's soft memory limit, unless GOMEMLIMIT
// sets one: without it the heap grows to twice what is live while the
// dictionary trains, and the process's peak RSS with it.
func limitMemory(n int64) {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(n)
	}
}
