package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/rdbz/rdbz/cmd/rdbz/internal/cluster"
	"github.com/rdbz/rdbz/cmd/rdbz/internal/reshape"
	"github.com/rdbz/rdbz/cmd/rdbz/internal/splitmerge"
	"github.com/rdbz/rdbz/listcodec"
	"github.com/urfave/cli/v2"
)

func splitCommand() *cli.Command {
	return &cli.Command{
		Name:      "split",
		Usage:     "split a dump into one per cluster node, by hash slot (see docs/split-merge.md)",
		ArgsUsage: "IN",
		Description: "Writes one RDB per part: PREFIX + the node id with --nodes, PREFIX + the part's number (from 0,\n" +
			"in the order of --slots) otherwise, + .rdb (.rdbz for the parts of an rdbz input, unless --to rdb). The\n" +
			"parts appear all or none. Keys of dbs other than 0 are refused unless --db-to-0.",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "(required) the parts' names start with `PREFIX` (a folder ends with /)"},
			&cli.StringFlag{Name: "nodes", Usage: "one part per master of `FILE`: CLUSTER NODES output, or a node's nodes.conf"},
			&cli.GenericFlag{Name: "slots", Value: &repeated{}, Usage: "one part per flag, holding the slots `A-B[,C-D]...`"},
			&cli.IntFlag{Name: "shards", Usage: "`N` parts of even slot ranges, as redis-cli --cluster create makes them",
				Action: inRange("shards", 1, cluster.Slots)},
			&cli.BoolFlag{Name: "db-to-0", Usage: "move the keys of every db into db 0 (a cluster has db 0 only)"},
			&cli.StringFlag{Name: "to", Usage: "the parts' format: rdb, or rdbz (the default for an rdbz input)"},
			&cli.BoolFlag{Name: "force", Aliases: []string{"f"}, Usage: "overwrite existing parts"},
			&cli.BoolFlag{Name: "sync", Usage: "flush the parts to the disk before they appear (as gzip --synchronous)"},
			&cli.BoolFlag{Name: "ignore-checksum", Usage: "accept an input whose CRC64 does not match"},
			capFlag(),
		}, filterFlags()...),
		Action: runSplit,
	}
}

// repeated is a flag given several times, each value whole (a
// StringSliceFlag would cut "0-100,200-300" at its comma).
type repeated []string

func (r *repeated) Set(v string) error { *r = append(*r, v); return nil }
func (r *repeated) String() string     { return strings.Join(*r, " ") }

// splitPlan is what the flags ask of split: the parts' slots and names.
type splitPlan struct {
	ranges []cluster.Ranges
	names  []string // the parts' paths
	table  *cluster.Table
}

func runSplit(c *cli.Context) error {
	inPath, err := inputPath(c)
	if err != nil {
		return err
	}
	plan, err := planSplit(c)
	if err != nil {
		return err
	}
	src, kind, err := splitSource(inPath)
	if err != nil {
		return err
	}
	defer src.close()
	opt, err := splitOptions(c, kind)
	if err != nil {
		return err
	}
	if !opt.ToRDB && kind != listcodec.KindRDB {
		plan.renameParts(compressedExt)
	}
	return writeParts(c, inPath, src, plan, opt)
}

// splitOptions reads the flags of split.
func splitOptions(c *cli.Context, kind listcodec.Kind) (splitmerge.SplitOptions, error) {
	read, keep, err := filteredRead(c)
	if err != nil {
		return splitmerge.SplitOptions{}, err
	}
	opt := splitmerge.SplitOptions{SplitOptions: reshape.SplitOptions{Options: read, Keep: keep, DBTo0: c.Bool("db-to-0")}}
	switch c.String("to") {
	case "", "rdbz":
	case "rdb":
		opt.ToRDB = true
	default:
		return opt, usagef("--to %q: want rdb or rdbz", c.String("to"))
	}
	if c.String("to") == "rdbz" && kind == listcodec.KindRDB {
		return opt, usagef("--to rdbz: the input is an RDB; compress the parts with rdbz compress")
	}
	return opt, nil
}

// input is split's input: a file, opened for each pass, or stdin, read
// once (sniffed to name the parts before it is read).
type input struct {
	path  string
	stdin io.Reader
	cl    io.Closer
}

// splitSource opens the input and tells what it holds.
func splitSource(path string) (*input, listcodec.Kind, error) {
	src, err := openSource(path, nil)
	if err != nil {
		return nil, 0, err
	}
	if path != "-" {
		src.close()
		return &input{path: path}, src.kind, nil
	}
	return &input{path: path, stdin: src.r, cl: src.file}, src.kind, nil
}

func (in *input) close() {
	if in.cl != nil {
		in.cl.Close()
	}
}

// source is the input for splitmerge, counted by prog.
func (in *input) source(prog *progress) splitmerge.Source {
	if in.stdin != nil {
		r := prog.reader(in.stdin)
		return splitmerge.Source{Name: "(stdin)", Once: true, Open: func() (io.ReadCloser, error) {
			return io.NopCloser(r), nil
		}}
	}
	return splitmerge.Source{Name: in.path, Open: func() (io.ReadCloser, error) {
		f, err := openInput(in.path)
		if err != nil {
			return nil, err
		}
		return readCloser{prog.reader(f), f}, nil
	}}
}

// planSplit reads --nodes, --slots or --shards (exactly one) and -o.
func planSplit(c *cli.Context) (*splitPlan, error) {
	prefix := c.String("output")
	if prefix == "" || prefix == "-" {
		return nil, usagef("missing -o PREFIX: the parts are named PREFIX + the node or part (not stdout)")
	}
	if fi, err := os.Stat(prefix); err == nil && !fi.IsDir() {
		// -o /dev/full or -o dump.rdb: a file, where a name to extend
		// was meant; the parts would go beside it (/dev/full0.rdb).
		return nil, usagef("-o %s: that is a file; split writes several, named PREFIX + the node or part: give a prefix (out/part-)", prefix)
	}
	given := 0
	for _, f := range []string{"nodes", "slots", "shards"} {
		if c.IsSet(f) {
			given++
		}
	}
	if given != 1 {
		return nil, usagef("name the parts with one of --nodes FILE, --slots A-B (one per part) or --shards N")
	}
	plan := &splitPlan{}
	var err error
	switch {
	case c.IsSet("nodes"):
		err = plan.fromNodes(c.String("nodes"), prefix)
	case c.IsSet("slots"):
		err = plan.fromSlots(*c.Generic("slots").(*repeated), prefix)
	default:
		plan.ranges, err = cluster.Even(c.Int("shards"))
		plan.numbered(prefix)
	}
	if err == nil {
		plan.table, err = cluster.NewTable(plan.ranges)
	}
	return plan, err
}

// fromNodes is a part per master of a CLUSTER NODES listing, named by its
// id. A file that cannot be read is a failure (exit 1), not a usage error.
func (p *splitPlan) fromNodes(path, prefix string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("--nodes: %w", err)
	}
	defer f.Close()
	nodes, err := cluster.ParseNodes(f)
	if err != nil {
		return fmt.Errorf("--nodes %s: %w", path, err)
	}
	for _, n := range nodes {
		p.ranges = append(p.ranges, n.Ranges)
		p.names = append(p.names, prefix+n.ID+".rdb")
	}
	return nil
}

// fromSlots is a part per --slots flag, numbered.
func (p *splitPlan) fromSlots(flags []string, prefix string) error {
	for _, s := range flags {
		rs, err := cluster.ParseRanges(s)
		if err != nil {
			return usagef("--slots %s: %v", s, err)
		}
		p.ranges = append(p.ranges, rs)
	}
	if _, err := cluster.NewTable(p.ranges); err != nil {
		return usagef("--slots: %v", err)
	}
	p.numbered(prefix)
	return nil
}

// numbered names the parts PREFIX0.rdb, PREFIX1.rdb, ... (zero-padded to
// one width, so that they sort in order).
func (p *splitPlan) numbered(prefix string) {
	width := len(fmt.Sprint(len(p.ranges) - 1))
	for i := range p.ranges {
		p.names = append(p.names, fmt.Sprintf("%s%0*d.rdb", prefix, width, i))
	}
}

// renameParts gives the parts another extension.
func (p *splitPlan) renameParts(ext string) {
	for i, n := range p.names {
		p.names[i] = strings.TrimSuffix(n, ".rdb") + ext
	}
}

// writeParts runs the split into the parts' outputs, which appear all or
// none, and prints the report.
func writeParts(c *cli.Context, inPath string, in *input, plan *splitPlan, opt splitmerge.SplitOptions) error {
	outs, err := createParts(c, inPath, plan.names)
	if err != nil {
		return err
	}
	prog := newProgress(c, "split")
	size := inputSize(inPath)
	opt.Phase = func(name string) { prog.rewind(); prog.phase(name, size) }
	src := in.source(prog)
	ws := make([]io.Writer, len(outs))
	for i, o := range outs {
		ws[i] = o
	}
	res, err := splitmerge.Split(c.Context, src, ws, plan.table, opt)
	prog.done()
	if err == nil {
		err = commitAll(outs)
	}
	if err != nil {
		abortAll(outs)
		return err
	}
	if !c.Bool("quiet") {
		printSplit(os.Stderr, inPath, plan, res)
	}
	if c.Bool("verbose") {
		fmt.Fprintf(os.Stderr, "split: %s -> %s...; %s\n", displayName(inPath), c.String("output"), prog.timings())
	}
	return nil
}

// createParts creates every part's output before anything is read, so
// that one that exists (without -f) stops split at once.
func createParts(c *cli.Context, inPath string, names []string) ([]*output, error) {
	outs := make([]*output, 0, len(names))
	for _, n := range names {
		if dir := filepath.Dir(n); strings.HasSuffix(c.String("output"), "/") {
			if err := os.MkdirAll(dir, 0o777); err != nil {
				abortAll(outs)
				return nil, fmt.Errorf("output folder: %w", err)
			}
		}
		o, err := createOutput(n, inPath, outputOptions(c))
		if err != nil {
			abortAll(outs)
			return nil, err
		}
		outs = append(outs, o)
	}
	return outs, nil
}

// commitAll puts every output in place; when one fails, those already in
// place are removed again (all or none).
func commitAll(outs []*output) error {
	for i, o := range outs {
		if err := o.commit(); err != nil {
			for _, done := range outs[:i] {
				if done.regular() {
					os.Remove(done.file.Path())
				}
			}
			return err
		}
	}
	return nil
}

func abortAll(outs []*output) {
	for _, o := range outs {
		o.abort()
	}
}

// printSplit prints what split wrote: a line, then one per part.
func printSplit(w io.Writer, inPath string, plan *splitPlan, res *splitmerge.SplitResult) {
	var keys int64
	for _, p := range res.Parts {
		keys += p.Keys
	}
	fmt.Fprintf(w, "split: %s (%s) -> %d parts, %d keys", displayName(inPath), res.Magic, len(res.Parts), keys)
	if res.Shared > 0 {
		fmt.Fprintf(w, "; %d AUX, function and module records in every part", res.Shared)
	}
	if !res.Sized {
		fmt.Fprint(w, "; no RESIZEDB (the input was read once)")
	}
	fmt.Fprintln(w)
	for db, n := range res.Moved {
		fmt.Fprintf(w, "  moved %d key%s of db %d into db 0\n", n, plural(n), db)
	}
	for i, p := range res.Parts {
		fmt.Fprintf(w, "  %s: slots %s: %d keys (%d with expiry), %d bytes", plan.names[i], plan.ranges[i], p.Keys, p.Expires, p.Bytes)
		if res.Compressed {
			fmt.Fprintf(w, " of RDB in %d bytes of rdbz", res.Out[i])
		}
		fmt.Fprintln(w)
	}
}

// plural is "s" but for one.
func plural(n int64) string {
	if n == 1 {
		return ""
	}
	return "s"
}
