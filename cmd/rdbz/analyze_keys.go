package main

import (
	"strings"

	"github.com/rdbz/rdbz/cmd/rdbz/internal/analyze"
	"github.com/rdbz/rdbz/cmd/rdbz/internal/escape"
	"github.com/rdbz/rdbz/cmd/rdbz/internal/outfile"
	"github.com/urfave/cli/v2"
)

// keysFlags are analyze's per-key export and its own row filter (the key
// filters, filterFlags, select the keys of the whole analysis).
func keysFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "keys", Usage: "write one CSV row per key (" + strings.Join(analyze.KeyCSVHeader, ",") + "; first file with several inputs) to `FILE.csv` (- for stdout)"},
		&cli.Int64Flag{Name: "min-bytes", Usage: "--keys: only keys of at least `N` serialized bytes", Action: atLeast[int64]("min-bytes", 0)},
		&cli.StringFlag{Name: "escape", Value: "raw", Usage: "--keys: write keys raw (their bytes), utf8 (valid UTF-8 kept, other bytes as \\xNN, \\ as \\\\) or base64"},
	}
}

// keysOut is the --keys export being written.
type keysOut struct {
	out *output
	csv *analyze.KeyCSV
}

// openKeys starts the --keys export (nil without --keys). The file is
// replaced if it exists, as a report is; it appears only complete.
func openKeys(c *cli.Context, inPath string, withFile bool) (*keysOut, error) {
	path := c.String("keys")
	if path == "" {
		if c.IsSet("min-bytes") || c.IsSet("escape") {
			return nil, usagef("--min-bytes and --escape shape the rows of --keys: give --keys FILE.csv")
		}
		return nil, nil
	}
	esc, err := escape.Parse(c.String("escape"))
	if err != nil {
		return nil, usagef("--%v", err)
	}
	f := analyze.KeyFilter{MinBytes: c.Int64("min-bytes")}
	out, err := createOutput(path, inPath, outfile.Options{Force: true})
	if err != nil {
		return nil, err
	}
	w, err := analyze.NewKeyCSV(out, f, withFile)
	if err != nil {
		out.abort()
		return nil, err
	}
	w.Escape = esc
	return &keysOut{out: out, csv: w}, nil
}

// finish completes the export when the analysis succeeded (walkErr nil)
// and discards it otherwise.
func (k *keysOut) finish(walkErr error) error {
	if k == nil {
		return nil
	}
	if walkErr != nil {
		k.out.abort()
		return nil
	}
	if err := k.csv.Flush(); err != nil {
		k.out.abort()
		return err
	}
	return k.out.commit()
}

func (k *keysOut) abort() {
	if k != nil {
		k.out.abort()
	}
}
