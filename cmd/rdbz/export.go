package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/rdbz/rdbz/cmd/rdbz/internal/convert"
	"github.com/rdbz/rdbz/cmd/rdbz/internal/export"
	"github.com/rdbz/rdbz/cmd/rdbz/internal/servers"
	"github.com/urfave/cli/v2"
)

func exportCommand() *cli.Command {
	return &cli.Command{
		Name:      "export",
		Usage:     "write every key as commands that redis-cli --pipe loads, or as JSON (see docs/export.md)",
		ArgsUsage: "[IN]",
		Description: "Writes stdout, or OUT with -o. --format resp (the default): plain commands (SET, RPUSH, HSET,\n" +
			"SADD, ZADD, XADD..., PEXPIREAT, SELECT) that any server loads with redis-cli --pipe, or with --restore\n" +
			"RESTORE ... REPLACE ABSTTL commands carrying each value as DUMP does; --target makes both fit a server.\n" +
			"--format json: one array of key objects; jsonl: one object per line. IN may be an RDB or an .rdbz file.",
		Flags: append(append(append(outputFlags(), filterFlags()...), capFlag(),
			&cli.StringFlag{Name: "format", Value: "resp", Usage: "resp (commands), json (one array) or jsonl (an object per line)"}),
			exportFlags()...),
		Action: runExport,
	}
}

// exportFlags are the flags export and get share.
func exportFlags() []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: "plain", Usage: "RESP: plain commands (the default for export)"},
		&cli.BoolFlag{Name: "restore", Usage: "RESP: RESTORE commands with DUMP payloads (exact encodings; the target must read the RDB version)"},
		&cli.StringFlag{Name: "target", Aliases: []string{"t"}, Usage: "the server that loads the output: " + strings.Join(servers.Names(), ", ")},
		&cli.StringSliceFlag{Name: "drop", Usage: "leave out what the output cannot carry of `KIND` instead of refusing: " + strings.Join(export.DropKinds(), ", ") + "; with --restore --target: " + strings.Join(convert.Kinds(), ", ")},
		&cli.StringFlag{Name: "escape", Value: "auto", Usage: "JSON strings: auto (UTF-8 as strings, else {\"base64\":...}), utf8 (\\xNN escapes), base64"},
		&cli.BoolFlag{Name: "ignore-checksum", Usage: "accept an input whose CRC64 does not match"},
	}
}

// exportOptions reads the flags export and get share; formats lists the
// --format values the command takes.
func exportOptions(c *cli.Context, formats []string, restore bool) (export.Options, error) {
	read, keep, err := filteredRead(c)
	if err != nil {
		return export.Options{}, err
	}
	opt := export.Options{Read: read, Keep: keep, Target: c.String("target"), Drop: map[string]bool{}}
	f := c.String("format")
	if !slices.Contains(formats, f) {
		return opt, usagef("--format %q: want one of %s", f, strings.Join(formats, ", "))
	}
	opt.Format, _ = export.ParseFormat(f)
	if c.Bool("plain") && c.Bool("restore") {
		return opt, usagef("--plain and --restore: choose one")
	}
	opt.Restore = (restore || c.Bool("restore")) && !c.Bool("plain")
	if (c.IsSet("plain") || c.IsSet("restore")) && opt.Format != export.RESP {
		return opt, usagef("--plain and --restore choose how --format resp writes keys")
	}
	if opt.Target != "" {
		if _, ok := servers.Lookup(opt.Target); !ok {
			return opt, usagef("--target %q: want one of %s", opt.Target, strings.Join(servers.Names(), ", "))
		}
	}
	for _, k := range c.StringSlice("drop") {
		plain, converted := slices.Contains(export.DropKinds(), k), slices.Contains(convert.Kinds(), k)
		switch {
		case !plain && !converted:
			return opt, usagef("--drop %q: want one of %s (commands, JSON) or %s (--restore --target)", k,
				strings.Join(export.DropKinds(), ", "), strings.Join(convert.Kinds(), ", "))
		case !plain && (!opt.Restore || opt.Target == ""):
			return opt, usagef("--drop %s applies to --restore with --target; plain commands and JSON drop %s", k, strings.Join(export.DropKinds(), ", "))
		}
		opt.Drop[k] = true
	}
	i := slices.Index(export.JSONEscapeNames, c.String("escape"))
	if i < 0 {
		return opt, usagef("--escape %q: want one of %s", c.String("escape"), strings.Join(export.JSONEscapeNames, ", "))
	}
	opt.Escape = export.JSONEscape(i)
	return opt, nil
}

// stdoutName is the output of the commands that write stdout unless -o.
func stdoutName(string) (string, error) { return "-", nil }

func runExport(c *cli.Context) error {
	opt, err := exportOptions(c, []string{"resp", "json", "jsonl"}, false)
	if err != nil {
		return err
	}
	var rep *export.Report
	err = transcode(c, stdoutName, "exporting", func(w io.Writer, src *source, _ *progress) (summary, error) {
		start := time.Now()
		r, err := src.rdb(c.Context, decodeOptions(c))
		if err != nil {
			return summary{}, err
		}
		rep, err = export.Export(c.Context, w, r, opt)
		return summary{line: summaryExport(rep, time.Since(start))}, err
	})
	if err == nil && !c.Bool("quiet") {
		printSkipped(os.Stderr, rep)
	}
	return err
}

// summaryExport is the one-line summary of an export.
func summaryExport(rep *export.Report, d time.Duration) string {
	if rep == nil {
		return ""
	}
	secs := d.Seconds()
	line := fmt.Sprintf("export: %d keys", rep.Keys)
	if rep.Commands > 0 {
		line += fmt.Sprintf(", %d commands", rep.Commands)
	}
	line += fmt.Sprintf(", %d bytes in %.2fs (%.0f MB/s)", rep.Bytes, secs, float64(rep.Bytes)/1e6/max(secs, 1e-9))
	if n := len(rep.Skipped); n > 0 {
		line += fmt.Sprintf("; %d kinds left out (below)", n)
	}
	return line
}

// printSkipped prints a line per kind of thing left out.
func printSkipped(w io.Writer, rep *export.Report) {
	if rep == nil {
		return
	}
	for _, it := range rep.Skipped {
		fmt.Fprintf(w, "  left out %s: %d", it.What, it.Count)
		if it.FirstKey != "" {
			fmt.Fprintf(w, ", first key %q", it.FirstKey)
		}
		fmt.Fprintf(w, " at offset %d: %s\n", it.FirstOffset, it.Why)
	}
}
