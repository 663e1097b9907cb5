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
		Name:      "copy",
		Usage:     "read every record and write it back unchanged (a check that rdbz reads the file), or only the keys the filters keep",
		ArgsUsage: "[IN]",
		Description: "Writes OUT (-o) or stdout (-c; the default when reading stdin: no IN, or IN -). With filters (--match,\n" +
			"--exclude, --db, --type, --expired) the output is IN less the keys they leave out, with its own CRC64.",
		Flags:  append(append(outputFlags(), capFlag()), filterFlags()...),
		Action: runCopy,
	}
}

func runCopy(c *cli.Context) error {
	keep, err := keyFilter(c)
	if err != nil {
		return err
	}
	return transcode(c, nil, "copying", func(w io.Writer, src *source, _ *progress) (summary, error) {
		start := time.Now()
		r, err := src.rdb(c.Context, decodeOptions(c))
		if err != nil {
			return summary{}, err
		}
		n, f, err := rdbio.CopyFiltered(w, r, rdbio.Options{Cap: c.Int("cap")}, keep)
		secs := time.Since(start).Seconds()
		return summary{line: fmt.Sprintf("%s : %s copied (%s)%s", displayName(src.path), size(n), displayName(src.out), filterNote(keep, f.Kept, f.LeftOut)),
			detail: fmt.Sprintf("copy: %d bytes in %.2fs (%.0f MB/s)", n, secs, float64(n)/1e6/max(secs, 1e-9))}, err
	})
}
