package main

import (
	"fmt"
	"io"
	"sort"
	"text/tabwriter"

	"github.com/rdbz/rdbz/rdbio"
	"github.com/rdbz/rdbz/rdbio/analyze"
	"github.com/urfave/cli/v2"
)

func infoCommand() *cli.Command {
	return &cli.Command{
		Name:      "info",
		Usage:     "describe an RDB file: version, aux fields, checksum, keys per db and type, list nodes",
		ArgsUsage: "IN (a path, or - for stdin)",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print JSON"},
			capFlag(),
		},
		Action: runInfo,
	}
}

func capFlag() cli.Flag {
	return &cli.IntFlag{Name: "cap", Value: rdbio.DefaultCap, Usage: "bytes of one string held in memory at most"}
}

func runInfo(c *cli.Context) error {
	in, err := openInput(c.Args().First())
	if err != nil {
		return err
	}
	defer in.Close()
	r, err := rdbio.NewReader(in, rdbio.Options{Cap: c.Int("cap")})
	if err != nil {
		return err
	}
	s, err := analyze.Summarize(r, newProgress("info").offset)
	if s.Checksum == rdbio.ChecksumMismatch && err == nil {
		err = fmt.Errorf("checksum mismatch")
	}
	var rerr error
	if c.Bool("json") {
		rerr = reportJSON(s)
	} else {
		rerr = report(func(w io.Writer) { printInfo(w, s) })
	}
	if err == nil {
		err = rerr
	}
	return err
}

func printInfo(w io.Writer, s *analyze.Summary) {
	fmt.Fprintf(w, "magic     %s (RDB version %d)\n", s.Magic, s.Version)
	fmt.Fprintf(w, "bytes     %d\n", s.Bytes)
	fmt.Fprintf(w, "checksum  %s\n", s.Checksum)
	for _, a := range s.Aux {
		v := a.Value
		if len(v) > 80 {
			v = fmt.Sprintf("%.60q... (%d bytes)", v, len(v))
		} else {
			v = fmt.Sprintf("%q", v)
		}
		fmt.Fprintf(w, "aux       %s = %s\n", a.Name, v)
	}
	if u := s.Unwalked; u != nil {
		fmt.Fprintf(w, "unwalked  from offset %d: %s (the rest was only checked for a valid trailer)\n", u.Offset, u.Reason)
	}
	fmt.Fprintf(w, "keys      %d (%d with expiry)\n", s.Keys, s.Expires)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "db\tkeys\texpires\t")
	for _, d := range s.DBs {
		fmt.Fprintf(tw, "%d\t%d\t%d\t\n", d.DB, d.Keys, d.Expires)
	}
	tw.Flush()
	names := make([]string, 0, len(s.Types))
	for n := range s.Types {
		names = append(names, n)
	}
	sort.Strings(names)
	fmt.Fprintln(tw, "type\tkeys\tbytes\t")
	for _, n := range names {
		fmt.Fprintf(tw, "%s\t%d\t%d\t\n", n, s.Types[n].Keys, s.Types[n].Bytes)
	}
	tw.Flush()
	n := s.ListNodes
	fmt.Fprintf(w, "list nodes %d: raw %d, lzf %d, zstd %d, int %d; plain %d; %d bytes stored, %d decoded\n",
		n.Nodes, n.Raw, n.LZF, n.Zstd, n.Int, n.Plain, n.StoredBytes, n.RawBytes)
}
