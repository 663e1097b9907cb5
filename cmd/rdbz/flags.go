package main

import (
	"github.com/rdbz/rdbz/rdbio"
	"github.com/urfave/cli/v2"
)

// commonFlags are the flags of every command.
func commonFlags() []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no progress and no summary line"},
		&cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "more detail (file names, the time of each phase)"},
	}
}

// capFlag is --cap of every command that reads RDB files.
func capFlag() cli.Flag {
	return &cli.IntFlag{Name: "cap", Value: rdbio.DefaultCap, Usage: "bytes of one string held in memory at most",
		Action: inRange("cap", minCap, maxCap)}
}

// The range of --cap: a cap under 4 KiB refuses ordinary keys; one over
// 1 GiB lets a single value take more memory than Redis allows a string
// (512 MB).
const (
	minCap = 4 << 10
	maxCap = 1 << 30
)

// readOptions are --cap and --ignore-checksum (false where a command has
// no such flag) as rdbio reads them.
func readOptions(c *cli.Context) rdbio.Options {
	return rdbio.Options{Cap: c.Int("cap"), IgnoreChecksum: c.Bool("ignore-checksum")}
}
