package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/rdbz/rdbz/cmd/rdbz/internal/export"
	"github.com/rdbz/rdbz/listcodec"
	"github.com/rdbz/rdbz/listcodec/lookup"
	"github.com/rdbz/rdbz/rdbio"
	"github.com/urfave/cli/v2"
)

func getCommand() *cli.Command {
	return &cli.Command{
		Name:      "get",
		Usage:     "print the values of some keys (see docs/export.md)",
		ArgsUsage: "FILE KEY...",
		Description: "Writes the keys of db --db found in FILE to stdout as export writes them: RESP commands (plain,\n" +
			"or RESTORE ... REPLACE ABSTTL with --restore), JSON, or text (Go-quoted strings: the default on a\n" +
			"terminal). A format-2 .rdbz file is read through its index: only the blocks that may hold the keys.\n" +
			"Any other file is read to its end, so that its checksum vouches for what is printed (nothing is printed from a file that fails it). A key not found is named on stderr (exit 1).",
		Flags: append([]cli.Flag{capFlag(),
			&cli.StringFlag{Name: "format", Value: "resp", DefaultText: "resp, or text on a terminal", Usage: "resp, json, jsonl or text"},
			&cli.Uint64Flag{Name: "db", Usage: "the db of the keys"},
		}, append(exportFlags(), filterFlagsBut("db")...)...),
		Action: runGet,
	}
}

func runGet(c *cli.Context) error {
	if c.NArg() < 2 {
		return usagef("get takes FILE and at least one KEY, got %d arguments", c.NArg())
	}
	if !c.IsSet("format") && isTerminal(os.Stdout) {
		if err := c.Set("format", "text"); err != nil {
			return err
		}
	}
	opt, err := exportOptions(c, []string{"resp", "json", "jsonl", "text"}, false)
	if err != nil {
		return err
	}
	if opt.Restore && opt.Target != "" {
		return usagef("--target with RESTORE payloads converts a whole file: use export --restore --target, or get --plain --target")
	}
	path := c.Args().First()
	var wants []export.Want
	for _, k := range c.Args().Slice()[1:] {
		wants = append(wants, export.Want{DB: c.Uint64("db"), Key: []byte(k)})
	}
	out := bufio.NewWriterSize(os.Stdout, 64<<10)
	start := time.Now()
	found, note, err := getKeys(c, out, path, wants, opt)
	if err != nil {
		return err // what is still buffered is not written: the input failed its checks
	}
	if err := out.Flush(); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	if c.Bool("verbose") {
		fmt.Fprintf(os.Stderr, "get: %s; %.1f ms\n", note, float64(time.Since(start).Microseconds())/1000)
	}
	return missing(wants, found)
}

// getKeys writes the keys wanted, through the index of a format-2 file,
// else by reading the file until they are found; note says how.
func getKeys(c *cli.Context, out io.Writer, path string, wants []export.Want, opt export.Options) ([]bool, string, error) {
	prog := newProgress(c, c.Command.Name)
	defer prog.done()
	src, err := openSource(path, prog.reader)
	if err != nil {
		return nil, "", err
	}
	defer src.close()
	if f, ok := src.file.(*os.File); ok && path != "-" && src.kind == listcodec.KindFormat2 {
		found, note, err := getIndexed(f, out, wants, opt)
		return found, note, src.fail(err)
	}
	prog.phase("reading", inputSize(path))
	r, err := src.rdb(c.Context, decodeOptions(c))
	if err != nil {
		return nil, "", err
	}
	found, _, err := export.Scan(out, r, wants, opt)
	if err == nil {
		// Read to the end, found or not: the values printed are vouched
		// for by the file's checksums (its CRC-64, a VKCS frame's), which
		// only the end of the file checks.
		err = src.finish()
	}
	return found, "read the whole file", src.fail(err)
}

// getIndexed looks the keys up through a format-2 file's index.
func getIndexed(f *os.File, out io.Writer, wants []export.Want, opt export.Options) ([]bool, string, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, "", err
	}
	lf, err := lookup.Open(f, fi.Size(), opt.Read, opt.Keep)
	if err != nil {
		return nil, "", err
	}
	defer lf.Close()
	hdr, err := lf.Header()
	if err != nil {
		return nil, "", err
	}
	w, err := export.NewWriter(out, hdr, opt)
	if err != nil {
		return nil, "", err
	}
	found := make([]bool, len(wants))
	for i, k := range wants {
		found[i], err = lf.Find(k.DB, k.Key, func(r *rdbio.Reader, rec *rdbio.Record) error { return w.Key(r.Value(), rec) })
		if err != nil {
			return found, "", err
		}
	}
	note := fmt.Sprintf("format-2 index: read %d of %d bytes, decoded %d blocks", lf.BytesRead(), fi.Size(), lf.BlocksDecoded())
	return found, note, w.Close()
}

// missing names on stderr each key not found, and is the error then.
func missing(wants []export.Want, found []bool) error {
	var names []string
	for i, k := range wants {
		if !found[i] {
			fmt.Fprintf(os.Stderr, "rdbz get: key %s not found in db %d\n", rdbio.QuoteKey(k.Key, 200), k.DB)
			names = append(names, rdbio.QuoteKey(k.Key, 64))
		}
	}
	if names == nil {
		return nil
	}
	return fmt.Errorf("%d of %d keys not found: %s", len(names), len(wants), strings.Join(names, ", "))
}
