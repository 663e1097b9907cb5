// Command rdbz transcodes Redis RDB snapshots: it compresses a dump by its
// structure (rdbz format 2.2: its records split into streams by role,
// FORMAT.md), turns it back into what a stock redis-server loads or into
// the source byte for byte, reports what a dump holds, converts it for
// another server and gets keys and data out of it.
//
// This package is the command-line wiring (flags → options → call →
// print), with every input opened one way (source.go: listcodec.Open, the
// RDB an rdbz file holds, checked to its end). The RDB grammar is rdbio;
// the rdbz formats, compress and decompress are listcodec (format 2 in
// listcodec/format2, its container in listcodec/block, its column
// segments in listcodec/columns, format 1 in listcodec/v1); the
// dictionary trainer is train; the tools above both libraries are under
// cmd/rdbz/internal (analyze, convert, export, reshape, splitmerge, verify,
// ...).
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/rdbz/rdbz/cmd/rdbz/internal/outfile"
	"github.com/urfave/cli/v2"
)

func main() {
	guardStdio()
	// On SIGINT, SIGTERM, SIGHUP or SIGQUIT the process removes its
	// partial outputs and exits at once: every temporary file rdbz makes is
	// unlinked when created, an output not yet committed can no longer be
	// (outfile.AbortAll), and a command stopping by itself could take as
	// long as its current read from a pipe or its current block.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-sigs
		cancel()
		exitInterrupted()
	}()
	limitMemory(defaultMemory)
	app := newApp()
	args, command, err := reorderArgs(app, os.Args)
	if err != nil {
		exit(err, command)
	}
	hugeHeap = heapPolicyOf(command)
	if hugeHeap == hugeAlways {
		expectBigHeap()
	}
	// urfave's short option handling (-qc) crashes on the partial flag a
	// shell completion asks about (a nil flag set): off while completing.
	app.UseShortOptionHandling = args[len(args)-1] != completionFlag
	stopProfile := startProfile()
	err = app.RunContext(ctx, args)
	stopProfile()
	if err != nil {
		exit(err, command)
	}
}

// init sets what urfave/cli keeps in package variables: -V for the
// version (-v is --verbose), how it is printed, and help without
// "(default: false)" after every switch.
func init() {
	cli.VersionFlag = &cli.BoolFlag{Name: "version", Aliases: []string{"V"}, Usage: "print the version and VCS revision"}
	cli.VersionPrinter = func(c *cli.Context) { fmt.Fprintln(c.App.Writer, "rdbz", c.App.Version) }
	stringify := cli.FlagStringer
	cli.FlagStringer = func(f cli.Flag) string { return strings.TrimSuffix(stringify(f), " (default: false)") }
}

// newApp is the command line: its commands, the flags they share, and how
// usage errors are reported.
func newApp() *cli.App {
	app := &cli.App{
		Name:  "rdbz",
		Usage: "transcode Redis RDB snapshots (zstd-dictionary list compression, analysis)",
		Description: "IN and OUT are paths, or - for stdin and stdout. As with zstd and gzip, compress FILE writes FILE.rdbz,\n" +
			"decompress FILE.rdbz writes FILE, and the input is kept unless --rm; -c writes to stdout; with no file\n" +
			"named a command reads stdin and writes stdout; binary data goes to a terminal only with -f. Flags may\n" +
			"come before or after the arguments (-- ends them). On a terminal, long commands show their progress on\n" +
			"stderr (-q: none). Exit status: 0 success, 1 failure, 2 usage error, 130 interrupted.",
		Version: version(),
		Commands: []*cli.Command{
			infoCommand(),
			copyCommand(),
			compressCommand(),
			decompressCommand(),
			testCommand(),
			convertCommand(),
			splitCommand(),
			mergeCommand(),
			exportCommand(),
			getCommand(),
			analyzeCommand(),
			trainCommand(),
			verifyCommand(),
			completionCommand(),
			manCommand(),
		},
		Action:               unknownCommand,
		Suggest:              true,
		EnableBashCompletion: true,
		ExitErrHandler:       func(*cli.Context, error) {},
		OnUsageError:         onUsageError,
	}
	for _, c := range app.Commands {
		c.OnUsageError = onUsageError
		c.Flags = append(c.Flags, commonFlags()...)
		if slices.ContainsFunc(c.Flags, func(f cli.Flag) bool { return slices.Contains(f.Names(), "expired") }) {
			c.BashComplete = completeValues(c)
		}
	}
	return app
}

// exit prints err on one line and exits: 2 for a usage error (with where
// to read the usage), else 1.
func exit(err error, command string) {
	if !isUsage(err) {
		fmt.Fprintln(os.Stderr, "rdbz:", err)
		os.Exit(1)
	}
	help := "rdbz --help"
	prefix := "rdbz"
	if command != "" {
		help = "rdbz " + command + " --help"
		prefix += " " + command
	}
	fmt.Fprintf(os.Stderr, "%s: %v (see '%s')\n", prefix, err, help)
	os.Exit(2)
}

// exitInterrupted removes the partial outputs and exits with 130, as a
// shell reports SIGINT.
func exitInterrupted() {
	outfile.AbortAll()
	if isTerminal(os.Stderr) {
		fmt.Fprint(os.Stderr, "\r\033[K") // a progress line
	}
	fmt.Fprintln(os.Stderr, "rdbz: interrupted; removed the partial output")
	os.Exit(130)
}

// version is the module version and the VCS revision of this build, from
// its build info.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(no build info)"
	}
	rev, when, modified := "", "", ""
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			when = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = ", modified"
			}
		}
	}
	if rev == "" {
		return fmt.Sprintf("%s (no VCS revision recorded; %s)", bi.Main.Version, bi.GoVersion)
	}
	return fmt.Sprintf("%s (revision %s, %s%s; %s)", bi.Main.Version, rev, when, modified, bi.GoVersion)
}

// defaultMemory is the Go runtime's soft memory limit for every command:
// rdbz promises a peak RSS within 64 MiB, of which the binary's pages,
// stacks and the heap's fragmentation take some 10 MiB beside the heap.
// Without a limit the heap of a command reading an rdbz file (its blocks
// decoded on other goroutines) grew to twice what was live (split of
// app-cache-nocompress's .rdbz peaked at 90 MiB). A limit below what a
// command holds live costs time and saves nothing: at 40 MiB, compress of
// a 60 MB dump of source files (56 MB live at its peak) collected 331
// times and took 9.3 s, at 52 MiB 5.6 s, both peaking at 65-66 MiB of RSS;
// verify of app-cache at scale 4 took 43 s at 40 MiB and 15 s at 52.
// GOGC stays at its default: on a large input the limit sets when the
// collector runs, and on small ones GOGC=200, 400 and off changed neither
// the CPU time of compress and decompress (of dumps from 300 KB to 166 MB)
// beyond the noise of 10 ms nor their peak RSS.
const defaultMemory = 52 << 20

// heapPolicy says when a command asks for huge pages (adviseHugePages).
type heapPolicy uint8

const (
	// hugeNever: split and merge hold a writer's buffer per part, each
	// barely touched when the parts are small; as huge pages each holds
	// 2 MiB (split of a 1.5 MB dump into 64 parts: 31 -> 46 MiB, of a
	// 14 KB one 27 -> 50 MiB).
	hugeNever heapPolicy = iota
	// hugeCompressed: info, copy, test and get walk an RDB one record at
	// a time in a 4 MiB heap, which the advice would make some 5 ms
	// slower to start; a compressed input fills a heap (source.rdb).
	hugeCompressed
	// hugeAlways: the others fill a heap whatever their input's size.
	// (train too, since it makes its working memory once per build:
	// app-cache x4 0.49 -> 0.43 s, 12,000 -> 2,400 page faults, 51 MiB
	// peak RSS; before that, 61.6 MiB with huge pages.)
	hugeAlways
)

// hugeHeap is the policy of the command running (main sets it).
var hugeHeap heapPolicy

// heapPolicyOf is a command's heapPolicy.
func heapPolicyOf(name string) heapPolicy {
	switch name {
	case "split", "merge":
		return hugeNever
	case "", "info", "copy", "test", "get", "completion", "help", "h":
		return hugeCompressed
	}
	return hugeAlways
}

// expectBigHeap advises huge pages for the heap a command is about to
// fill (adviseHugePages), once per process, unless GODEBUG=disablethp=1
// asks the Go runtime to keep its heap off them.
var expectBigHeap = sync.OnceFunc(func() {
	if !slices.Contains(strings.Split(os.Getenv("GODEBUG"), ","), "disablethp=1") {
		_, _, _ = adviseHugePages(defaultMemory)
	}
})

// limitMemory sets the Go runtime's soft memory limit to n or
// defaultMemory, whichever is larger (a command that holds more, as its
// flags ask, sets its own), unless GOMEMLIMIT sets one.
func limitMemory(n int64) {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(max(n, defaultMemory))
	}
}
