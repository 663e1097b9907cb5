package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/rdbz/rdbz/cmd/rdbz/internal/reshape"
	"github.com/rdbz/rdbz/cmd/rdbz/internal/servers"
	"github.com/rdbz/rdbz/cmd/rdbz/internal/splitmerge"
	"github.com/urfave/cli/v2"
)

func mergeCommand() *cli.Command {
	return &cli.Command{
		Name:      "merge",
		Usage:     "merge several dumps into one (see docs/split-merge.md)",
		ArgsUsage: "IN IN...",
		Description: "Writes one RDB holding the keys of every input (files: each is read twice), with the RDB version\n" +
			"the inputs need (the highest of theirs), or the one --target reads (each input converted for it first).\n" +
			"A key two inputs hold is refused (exit 1, naming it and both inputs) unless --on-duplicate first or last.",
		Flags: append(append(outputFlags(), capFlag(),
			&cli.StringFlag{Name: "on-duplicate", Value: "error", Usage: "a key several inputs hold: `error`, first (keep the first input's value) or last"},
			&cli.StringFlag{Name: "target", Aliases: []string{"t"}, Usage: "convert every input for this server first: " + strings.Join(servers.Names(), ", ")},
			dropFlag(),
			&cli.BoolFlag{Name: "ignore-checksum", Usage: "accept inputs whose CRC64 does not match"},
		), filterFlags()...),
		Action: runMerge,
	}
}

// policies are the values of --on-duplicate.
var policies = map[string]reshape.Policy{"error": reshape.OnDuplicateError, "first": reshape.KeepFirst, "last": reshape.KeepLast}

// mergeOptions reads the flags of merge.
func mergeOptions(c *cli.Context) (splitmerge.MergeOptions, error) {
	read, keep, err := filteredRead(c)
	if err != nil {
		return splitmerge.MergeOptions{}, err
	}
	opt := splitmerge.MergeOptions{MergeOptions: reshape.MergeOptions{Options: read, Keep: keep}, Target: c.String("target")}
	p, ok := policies[c.String("on-duplicate")]
	if !ok {
		return opt, usagef("--on-duplicate %q: want error, first or last", c.String("on-duplicate"))
	}
	opt.OnDuplicate = p
	if _, ok := servers.Lookup(opt.Target); opt.Target != "" && !ok {
		return opt, usagef("--target %q: want one of %s", opt.Target, strings.Join(servers.Names(), ", "))
	}
	if opt.Drop, err = dropKinds(c); err != nil {
		return opt, err
	}
	if len(opt.Drop) > 0 && opt.Target == "" {
		return opt, usagef("--drop applies to --target (the conversion of each input)")
	}
	return opt, nil
}

// mergeInputs are the inputs: two or more files (each is read twice).
func mergeInputs(c *cli.Context) ([]string, error) {
	paths := c.Args().Slice()
	if len(paths) < 2 {
		return nil, usagef("merge takes two or more inputs, got %d", len(paths))
	}
	for _, p := range paths {
		if p == "-" {
			return nil, usagef("merge reads each input twice: name files, not - (stdin)")
		}
	}
	return paths, nil
}

func runMerge(c *cli.Context) error {
	paths, err := mergeInputs(c)
	if err != nil {
		return err
	}
	opt, err := mergeOptions(c)
	if err != nil {
		return err
	}
	outPath, err := outputPath(c, paths[0], nil)
	if err != nil {
		return err
	}
	for _, p := range paths {
		if samePath(outPath, p) {
			return fmt.Errorf("output %s is an input: refusing to overwrite it", outPath)
		}
	}
	out, err := createOutput(outPath, paths[0], outputOptions(c))
	if err != nil {
		return err
	}
	prog := newProgress(c, "merge")
	res, err := mergeInto(c, prog, out, paths, opt)
	if err == nil {
		err = out.commit()
	}
	if err != nil {
		out.abort()
		return err
	}
	if !c.Bool("quiet") {
		printMerge(os.Stderr, displayName(outPath), res)
	}
	if c.Bool("verbose") {
		fmt.Fprintf(os.Stderr, "merge: %d inputs -> %s; %s\n", len(paths), displayName(outPath), prog.timings())
	}
	return nil
}

// mergeInto merges the inputs into out, showing the progress of each pass.
func mergeInto(c *cli.Context, prog *progress, out io.Writer, paths []string, opt splitmerge.MergeOptions) (*splitmerge.MergeResult, error) {
	defer prog.done()
	size := totalSize(paths)
	opt.Phase = func(name string) { prog.rewind(); prog.phase(name, size) }
	srcs := make([]splitmerge.Source, len(paths))
	for i, p := range paths {
		srcs[i] = splitmerge.Source{Name: p, Open: func() (io.ReadCloser, error) {
			f, err := openInput(p)
			if err != nil {
				return nil, err
			}
			return readCloser{prog.reader(f), f}, nil
		}}
	}
	return splitmerge.Merge(c.Context, srcs, out, opt)
}

// printMerge prints what merge wrote: a line, then one per input.
func printMerge(w io.Writer, outPath string, res *splitmerge.MergeResult) {
	fmt.Fprintf(w, "merge: %d inputs -> %s (%s): %d keys (%d with expiry), %d bytes",
		len(res.Inputs), outPath, res.Magic, res.Keys, res.Expires, res.Bytes)
	if res.Duplicates > 0 {
		fmt.Fprintf(w, "; %d duplicate keys left out", res.Duplicates)
	}
	if res.Functions+res.SameFunctions > 0 {
		fmt.Fprintf(w, "; %d function libraries (%d identical ones left out)", res.Functions, res.SameFunctions)
	}
	fmt.Fprintln(w)
	for i, in := range res.Inputs {
		fmt.Fprintf(w, "  %s (%s): %d keys", in.Name, in.Magic, in.Keys)
		if in.Shadowed > 0 {
			fmt.Fprintf(w, ", %d left out for another input's value", in.Shadowed)
		}
		if rep := res.Converted[i]; rep != nil {
			fmt.Fprintf(w, "; %s", summaryConvert(rep))
		}
		fmt.Fprintln(w)
	}
}
