package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rdbz/rdbz/cmd/rdbz/internal/convert"
	"github.com/rdbz/rdbz/cmd/rdbz/internal/servers"
	"github.com/rdbz/rdbz/listcodec"
	"github.com/rdbz/rdbz/rdbio/envelope"
	"github.com/urfave/cli/v2"
)

func convertCommand() *cli.Command {
	cmd := &cli.Command{
		Name:      "convert",
		Usage:     "rewrite a dump so that another server version loads it (see docs/convert.md)",
		ArgsUsage: "[IN]",
		Description: "Writes IN less .rdb plus .TARGET.rdb (dump.rdb -> dump.redis-6.2.rdb), or OUT with -o, or stdout with -c.\n" +
			"With no IN, or IN -, reads stdin and writes stdout. What the target cannot hold is refused (exit 1,\n" +
			"naming the key or record and its offset) unless --drop names its kind; the report says what was\n" +
			"dropped and re-encoded (stderr; stdout with --dry-run or --json).",
		Flags: append(append(outputFlags(), capFlag()),
			&cli.StringFlag{Name: "target", Aliases: []string{"t"}, Usage: "(required) the server to load the output: " + strings.Join(servers.Names(), ", ")},
			dropFlag(),
			&cli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}, Usage: "report what would be converted, dropped and refused; write nothing"},
			&cli.BoolFlag{Name: "json", Usage: "print the report as JSON on stdout"},
			&cli.BoolFlag{Name: "ignore-checksum", Usage: "accept an input whose CRC64 does not match"},
			envelopeFlag("none"),
		),
		Action: runConvert,
	}
	cmd.Flags = append(cmd.Flags, filterFlags()...)
	return cmd
}

// convertOptions reads the convert flags; bad values are usage errors.
func convertOptions(c *cli.Context) (convert.Options, error) {
	opt := convert.Options{Options: readOptions(c), Target: c.String("target"), DryRun: c.Bool("dry-run"),
		Drop: map[string]bool{}}
	if opt.Target == "" {
		return opt, usagef("--target is required: one of %s", strings.Join(servers.Names(), ", "))
	}
	t, ok := servers.Lookup(opt.Target)
	if !ok {
		return opt, usagef("--target %q: want one of %s", opt.Target, strings.Join(servers.Names(), ", "))
	}
	keep, err := keyFilter(c)
	if err != nil {
		return opt, err
	}
	opt.Keep = keep
	env, err := listcodec.ParseEnvelope(c.String("envelope"))
	if err != nil {
		return opt, &usageError{err}
	}
	if env == listcodec.EnvelopeLZ4 {
		if !t.ReadsEnvelope() {
			return opt, usagef("--envelope lz4: %s does not load a VKCS envelope (valkey 9.2 and later do: --target valkey-9)", t.Name())
		}
		opt.Envelope = envelope.LZ4()
	}
	opt.Drop, err = dropKinds(c)
	return opt, err
}

// dropKinds reads --drop of convert and merge: the kinds the conversion
// may leave out, or re-encode with a loss, instead of refusing.
func dropKinds(c *cli.Context) (map[string]bool, error) {
	kinds, drop := convert.Kinds(), map[string]bool{}
	for _, k := range c.StringSlice("drop") {
		if !slices.Contains(kinds, k) {
			return nil, usagef("--drop %q: want one of %s", k, strings.Join(kinds, ", "))
		}
		drop[k] = true
	}
	return drop, nil
}

// dropFlag is --drop of convert and merge.
func dropFlag() cli.Flag {
	return &cli.StringSliceFlag{Name: "drop", Usage: "leave out (or re-encode with its loss) what the target cannot hold of `KIND` instead of refusing: " + strings.Join(convert.Kinds(), ", ")}
}

// convertedName: dump.rdb → dump.TARGET.rdb (any other name: NAME.TARGET.rdb).
func convertedName(target string) namer {
	return func(in string) (string, error) {
		return strings.TrimSuffix(in, filepath.Ext(in)) + "." + target + ".rdb", nil
	}
}

func runConvert(c *cli.Context) error {
	opt, err := convertOptions(c)
	if err != nil {
		return err
	}
	if opt.DryRun {
		return dryRunConvert(c, opt)
	}
	if c.Bool("json") && (c.Bool("stdout") || c.String("output") == "-" || c.NArg() == 0 || c.Args().First() == "-") {
		return usagef("--json prints the report on stdout: write the data to a file (-o OUT), or use --dry-run")
	}
	var rep *convert.Report
	err = transcode(c, convertedName(opt.Target), "converting", func(w io.Writer, src *source, _ *progress) (summary, error) {
		r, err := src.rdb(c.Context, decodeOptions(c))
		if err != nil {
			return summary{}, err
		}
		rep, err = convert.Convert(c.Context, w, r, opt)
		if rep == nil {
			return summary{}, err
		}
		return summary{line: summaryConvert(rep)}, err
	})
	if err != nil || rep == nil {
		return err
	}
	return printConvert(c, rep, os.Stderr)
}

// dryRunConvert reads IN and prints the report; exit 1 when something
// would be refused.
func dryRunConvert(c *cli.Context, opt convert.Options) error {
	var rep *convert.Report
	err := readRDB(c, "reading", func(r io.Reader) (err error) {
		rep, err = convert.Convert(c.Context, io.Discard, r, opt)
		return err
	})
	if rep != nil && (err == nil || errors.Is(err, convert.ErrRefused)) {
		if perr := printConvert(c, rep, os.Stdout); perr != nil {
			return perr
		}
	}
	return err
}

// printConvert prints the report: JSON on stdout with --json, else text on
// w unless -q.
func printConvert(c *cli.Context, rep *convert.Report, w io.Writer) error {
	if c.Bool("json") {
		return reportJSON(rep)
	}
	if c.Bool("quiet") {
		return nil
	}
	if w == os.Stdout {
		return report(func(w io.Writer) {
			printConvertHead(w, rep)
			printConvertItems(w, rep)
		})
	}
	printConvertItems(w, rep) // after the summary line
	return nil
}

// summaryConvert is the one-line summary of a conversion.
func summaryConvert(rep *convert.Report) string {
	var dropped, reencoded int64
	for _, it := range rep.Items {
		switch it.Action {
		case convert.Dropped:
			dropped += it.Count
		case convert.Reencoded:
			if it.FirstKey != nil {
				reencoded += it.Count
			}
		}
	}
	line := fmt.Sprintf("convert: %s -> %s for %s: %d keys kept (%d re-encoded), %d keys or records dropped",
		rep.From, rep.To, rep.Target, rep.Keys, reencoded, dropped)
	if rep.LeftOut > 0 {
		line += fmt.Sprintf("; %d keys left out by the filters", rep.LeftOut)
	}
	if rep.FromEnvelope != "" {
		line += fmt.Sprintf("; read from a VKCS %s envelope", rep.FromEnvelope)
	}
	if rep.ToEnvelope != "" {
		line += fmt.Sprintf("; written in a VKCS %s envelope", rep.ToEnvelope)
	}
	return line
}

// printConvertHead prints the first line of the text report (the dry
// run's; a conversion prints its summary line instead).
func printConvertHead(w io.Writer, rep *convert.Report) {
	fmt.Fprintf(w, "target %s: magic %s -> %s; %d keys kept", rep.Target, rep.From, rep.To, rep.Keys)
	if rep.LeftOut > 0 {
		fmt.Fprintf(w, "; %d keys left out by the filters", rep.LeftOut)
	}
	fmt.Fprintln(w)
}

// printConvertItems prints a line per kind and action.
func printConvertItems(w io.Writer, rep *convert.Report) {
	for _, it := range rep.Items {
		fmt.Fprintf(w, "  %s %s: %d", it.Action, it.Kind, it.Count)
		if it.FirstKey != nil {
			fmt.Fprintf(w, ", first key %q", *it.FirstKey)
		}
		fmt.Fprintf(w, " at offset %d: %s", it.FirstOffset, it.Why)
		if it.Lost != "" {
			fmt.Fprintf(w, "; lost: %s", it.Lost)
		}
		fmt.Fprintln(w)
	}
}
