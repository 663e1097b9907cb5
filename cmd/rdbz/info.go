package main

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/rdbz/rdbz/cmd/rdbz/internal/analyze"
	"github.com/rdbz/rdbz/listcodec"
	"github.com/rdbz/rdbz/rdbio"
	"github.com/urfave/cli/v2"
)

func infoCommand() *cli.Command {
	return &cli.Command{
		Name:      "info",
		Usage:     "describe RDB files: version, size, aux fields, checksum, keys per db and type, list nodes",
		ArgsUsage: "[IN...]",
		Description: "Reports on each IN in turn (stdin with no IN, or IN -). --json prints one object for one IN,\n" +
			"an array of objects (each with its \"file\") for several.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print JSON"},
			capFlag(),
		},
		Action: runInfo,
	}
}

// infoReport is what rdbz info reports on one file: the summary, the bytes
// after the EOF trailer (redis-cli --rdb appends some), and the file.
type infoReport struct {
	File string `json:"file"`
	*analyze.Summary
	TrailingBytes int64 `json:"trailing_bytes"`
	// Container is the rdbz file the RDB was read from (nil for an RDB).
	Container *listcodec.Container `json:"rdbz,omitempty"`
	// stopped says why the checksum was not checked, when it was not.
	stopped string
}

// checksumUnchecked is the checksum status of a file whose trailer was not
// reached.
const checksumUnchecked rdbio.ChecksumStatus = "unchecked"

// runInfo reports on each input in turn: text, or JSON (one object for one
// input, an array for several). A file that fails is reported as far as
// it was read, the error printed, and the others still read.
func runInfo(c *cli.Context) error {
	paths, err := inputPaths(c)
	if err != nil {
		return err
	}
	var reps []*infoReport
	failed := 0
	var last error
	for i, p := range paths {
		rep, err := infoFile(c, p)
		if err != nil {
			failed, last = failed+1, err
			if len(paths) > 1 {
				fmt.Fprintln(os.Stderr, "rdbz:", withPath(err, p))
			}
		}
		if rep == nil {
			continue
		}
		reps = append(reps, rep)
		if c.Bool("json") {
			continue
		}
		if err := report(func(w io.Writer) {
			if len(paths) > 1 {
				if i > 0 {
					fmt.Fprintln(w)
				}
				fmt.Fprintf(w, "==> %s <==\n", p)
			}
			printInfo(w, rep, c.Bool("verbose"))
		}); err != nil {
			return err
		}
	}
	if c.Bool("json") {
		var rerr error
		if len(paths) == 1 && len(reps) == 1 {
			rerr = reportJSON(reps[0])
		} else {
			rerr = reportJSON(reps)
		}
		if rerr != nil {
			return rerr
		}
	}
	if failed > 1 || (failed == 1 && len(paths) > 1) {
		return fmt.Errorf("%d of %d inputs failed", failed, len(paths))
	}
	return last
}

// infoFile reads one input; on error it returns what it read (nil when
// the input could not be opened or is not an RDB file) with the error. An
// rdbz file is read whole (every block, its index and footer, the CRC-64
// of the RDB it holds) before it is called sound.
func infoFile(c *cli.Context, path string) (*infoReport, error) {
	prog := newProgress(c, "info")
	defer prog.done()
	src, err := openWalked(path, prog.reader)
	if err != nil {
		return nil, err
	}
	defer src.close()
	size := inputSize(path)
	prog.phase("reading", size)
	in, err := src.rdb(c.Context, decodeOptions(c))
	if err != nil {
		return nil, err
	}
	r, err := rdbio.NewReader(in, rdbio.Options{Cap: c.Int("cap")})
	if err != nil {
		return nil, src.fail(err)
	}
	if r.Header().Envelope.Enveloped() || src.kind != listcodec.KindRDB {
		size = 0 // the file's size is not the RDB's: the reads below tell
	}
	s, err := analyze.Summarize(r, nil)
	rep := &infoReport{File: path, Summary: s}
	switch {
	case err == nil && s.Unwalked == nil && size > 0:
		rep.TrailingBytes = size - s.Bytes // not read: an AOF's tail can be large
	case err == nil && s.Unwalked == nil:
		rep.TrailingBytes, err = r.CopyRest(io.Discard)
	case s.Checksum == "" && s.Bytes == size:
		rep.Checksum, rep.stopped = checksumUnchecked, fmt.Sprintf("truncated at offset %d", s.Bytes)
	case s.Checksum == "":
		rep.Checksum, rep.stopped = checksumUnchecked, fmt.Sprintf("the read stopped at offset %d", s.Bytes)
	}
	if s.Checksum == rdbio.ChecksumMismatch && err == nil {
		err = fmt.Errorf("checksum mismatch")
	}
	if err == nil {
		err = src.finish()
		rep.Container = src.in.Container()
	}
	if err != nil && src.kind != listcodec.KindRDB {
		// The RDB's trailer was read, but not all of the rdbz file was
		// sound: nothing it holds is vouched for.
		rep.Checksum, rep.stopped = checksumUnchecked, "the rdbz file is damaged"
	}
	return rep, src.fail(err)
}

// printInfo prints the text report of one file; verbose prints long aux
// values whole.
func printInfo(w io.Writer, rep *infoReport, verbose bool) {
	s := rep.Summary
	if k := rep.Container; k != nil {
		printContainer(w, k)
	}
	if e := s.Envelope; e != nil {
		fmt.Fprintf(w, "envelope  %s (below: the RDB inside)\n", e.Text)
	}
	fmt.Fprintf(w, "magic     %s (RDB version %d)\n", s.Magic, s.Version)
	if rep.TrailingBytes > 0 {
		fmt.Fprintf(w, "bytes     %d: RDB %d, then %d bytes after the EOF trailer\n", s.Bytes+rep.TrailingBytes, s.Bytes, rep.TrailingBytes)
	} else {
		fmt.Fprintf(w, "bytes     %d\n", s.Bytes)
	}
	if rep.stopped != "" {
		fmt.Fprintf(w, "checksum  not checked: %s\n", rep.stopped)
	} else {
		fmt.Fprintf(w, "checksum  %s\n", s.Checksum)
	}
	for _, a := range s.Aux {
		v := a.Value
		if len(v) > 80 && !verbose {
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

// printContainer prints what an rdbz file is, as read and checked.
func printContainer(w io.Writer, k *listcodec.Container) {
	fmt.Fprintf(w, "rdbz      format %s, %d bytes, %.1f%% of the RDB's %d (all checked: blocks, index, CRC-64)\n",
		k.Format, k.FileBytes, 100*k.Ratio(), k.RDBBytes)
	if k.Blocks > 0 || k.IndexBytes > 0 {
		fmt.Fprintf(w, "blocks    %d of at most %d bytes; index %d bytes\n", k.Blocks, k.BlockSize, k.IndexBytes)
	}
	if k.DictID != 0 {
		fmt.Fprintf(w, "dict      ID %d, %d bytes\n", k.DictID, k.DictBytes)
	} else {
		fmt.Fprintln(w, "dict      none")
	}
	fmt.Fprintln(w, "below     the RDB it holds:")
}

// withPath is err led by path, unless its text names path already (as
// the readers' errors do): one input's error among several, named once.
func withPath(err error, path string) error {
	if strings.Contains(err.Error(), path) {
		return err
	}
	return fmt.Errorf("%s: %w", path, err)
}
