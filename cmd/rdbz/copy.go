package main

import (
	"fmt"
	"io"
	"time"

	"github.com/rdbz/rdbz/rdbio"
	"github.com/urfave/cli/v2"
)

func copyCommand() *cli.Command {
	return &cli.Command{
		Name:        "copy",
		Usage:       "read every record and write it back unchanged (a check that rdbz reads the file)",
		ArgsUsage:   "[IN]",
		Description: "Writes OUT (-o) or stdout (-c; the default when reading stdin: no IN, or IN -).",
		Flags:       append(outputFlags(), capFlag()),
		Action:      runCopy,
	}
}

func runCopy(c *cli.Context) error {
	return transcode(c, nil, "copying", func(w io.Writer, r io.Reader, _ *progress) (string, error) {
		start := time.Now()
		n, err := rdbio.Copy(w, r, rdbio.Options{Cap: c.Int("cap")})
		secs := time.Since(start).Seconds()
		return fmt.Sprintf("copy: %d bytes in %.2fs (%.0f MB/s)", n, secs, float64(n)/1e6/secs), err
	})
}
