package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/rdbz/rdbz/cmd/rdbz/internal/outfile"
	"github.com/urfave/cli/v2"
)

// openInput opens a path, or stdin for "-".
func openInput(path string) (io.ReadCloser, error) {
	if path == "" {
		return nil, errors.New("missing input (a path, or - for stdin)")
	}
	if path == "-" {
		return io.NopCloser(os.Stdin), nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open input: %w", err)
	}
	return f, nil
}

// output is where a command writes: stdout for "-", else an
// outfile.File (complete at its path after commit, or not there at all).
type output struct {
	io.Writer
	file *outfile.File // nil for stdout
}

// createOutput refuses OUT == IN and, without opt.Force, an existing OUT.
// A new file takes the input file's permissions (0666 less the umask from
// stdin).
func createOutput(path, inPath string, opt outfile.Options) (*output, error) {
	if path == "" {
		return nil, errors.New("missing -o OUT (a path, or - for stdout)")
	}
	if path == "-" {
		return &output{Writer: os.Stdout}, nil
	}
	if same, err := samePath(path, inPath); err != nil {
		return nil, err
	} else if same {
		return nil, fmt.Errorf("output %s is the input: refusing to overwrite it", path)
	}
	if inPath != "" && inPath != "-" {
		if fi, err := os.Stat(inPath); err == nil && fi.Mode().IsRegular() {
			opt.Mode = fi.Mode().Perm()
		}
	}
	f, err := outfile.Create(path, opt)
	if err != nil {
		return nil, err
	}
	return &output{Writer: f, file: f}, nil
}

// outputFlags are the flags of a command that writes OUT.
func outputFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "OUT (a path, or - for stdout)"},
		&cli.BoolFlag{Name: "force", Aliases: []string{"f"}, Usage: "overwrite OUT"},
		&cli.BoolFlag{Name: "sync", Usage: "flush OUT to the disk before it appears (as gzip --synchronous)"},
	}
}

// outputOptions reads outputFlags.
func outputOptions(c *cli.Context) outfile.Options {
	return outfile.Options{Force: c.Bool("force"), Sync: c.Bool("sync")}
}

// commit puts the output in place (stdout: nothing to do).
func (o *output) commit() error {
	if o.file == nil {
		return nil
	}
	return o.file.Commit()
}

// abort discards the output; a no-op after commit.
func (o *output) abort() {
	if o.file != nil {
		o.file.Abort()
	}
}

func samePath(a, b string) (bool, error) {
	if b == "" || b == "-" {
		return false, nil
	}
	sa, err := os.Stat(a)
	if err != nil {
		return false, nil
	}
	sb, err := os.Stat(b)
	if err != nil {
		return false, nil
	}
	return os.SameFile(sa, sb), nil
}

// isTerminal reports whether f is a terminal (progress goes there only).
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
