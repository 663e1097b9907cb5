package main

import (
	"strconv"
	"strings"

	"github.com/rdbz/rdbz/cmd/rdbz/internal/outfile"
	"github.com/rdbz/rdbz/rdbio/analyze"
	"github.com/rdbz/rdbz/rdbio/escape"
	"github.com/urfave/cli/v2"
)

// keysFlags are analyze's per-key export and its filters.
func keysFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "keys", Usage: "write one CSV row per key (" + strings.Join(analyze.KeyCSVHeader, ",") + "; first file with several inputs) to `FILE.csv` (- for stdout)"},
		&cli.StringFlag{Name: "match", Usage: "--keys: only keys matching `GLOB` (as SCAN MATCH)"},
		&cli.StringSliceFlag{Name: "type", Usage: "--keys: only keys of this `FAMILY` (string, list, set, zset, hash, stream, module...; repeatable)"},
		&cli.StringSliceFlag{Name: "db", Usage: "--keys: only keys of db `N` (repeatable)"},
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
		if c.IsSet("match") || c.IsSet("type") || c.IsSet("db") || c.IsSet("min-bytes") || c.IsSet("escape") {
			return nil, usagef("--match, --type, --db, --min-bytes and --escape shape the rows of --keys: give --keys FILE.csv")
		}
		return nil, nil
	}
	esc, err := escape.Parse(c.String("escape"))
	if err != nil {
		return nil, usagef("--%v", err)
	}
	f := analyze.KeyFilter{Match: c.String("match"), Types: c.StringSlice("type"), MinBytes: c.Int64("min-bytes")}
	for _, d := range c.StringSlice("db") {
		n, err := strconv.ParseUint(d, 10, 64)
		if err != nil {
			return nil, usagef("--db takes a db number, not %q", d)
		}
		f.DBs = append(f.DBs, n)
	}
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
