package main

import (
	"fmt"
	"os"
	"time"

	"github.com/rdbz/rdbz/rdbio"
	"github.com/urfave/cli/v2"
)

func copyCommand() *cli.Command {
	return &cli.Command{
		Name:      "copy",
		Usage:     "read every record and write it back unchanged (a check that rdbz reads the file)",
		ArgsUsage: "IN",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "OUT (a path, or - for stdout)"},
			&cli.BoolFlag{Name: "force", Aliases: []string{"f"}, Usage: "overwrite OUT"},
			capFlag(),
		},
		Action: runCopy,
	}
}

func runCopy(c *cli.Context) error {
	inPath := c.Args().First()
	in, err := openInput(inPath)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := createOutput(c.String("output"), inPath, c.Bool("force"))
	if err != nil {
		return err
	}
	start := time.Now()
	n, err := rdbio.Copy(out, in, rdbio.Options{Cap: c.Int("cap")})
	if err != nil {
		out.abort()
		return err
	}
	if err := out.commit(); err != nil {
		return err
	}
	secs := time.Since(start).Seconds()
	fmt.Fprintf(os.Stderr, "copy: %d bytes in %.2fs (%.0f MB/s)\n", n, secs, float64(n)/1e6/secs)
	return nil
}
