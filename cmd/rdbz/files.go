package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/rdbz/rdbz/cmd/rdbz/internal/outfile"
	"github.com/rdbz/rdbz/listcodec"
	"github.com/urfave/cli/v2"
)

// errIsDir: an input path names a folder.
var errIsDir = errors.New("is a directory, not a file")

// openInput opens a path, or stdin for "-". A folder is refused by name.
func openInput(path string) (io.ReadCloser, error) {
	if path == "" {
		return nil, errors.New("missing input (a path, or - for stdin)")
	}
	if path == "-" {
		return io.NopCloser(os.Stdin), nil
	}
	f, err := os.Open(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the path is named once, first
		}
		return nil, named(path, err)
	}
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		f.Close()
		return nil, named(path, errIsDir)
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
	if path == "-" {
		return &output{Writer: os.Stdout}, nil
	}
	if samePath(path, inPath) {
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
		&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write to `OUT` (a path, or - for stdout)"},
		&cli.BoolFlag{Name: "stdout", Aliases: []string{"c"}, Usage: "write to stdout"},
		&cli.BoolFlag{Name: "force", Aliases: []string{"f"}, Usage: "overwrite OUT; write binary data to a terminal"},
		&cli.BoolFlag{Name: "sync", Usage: "flush OUT to the disk before it appears (as gzip --synchronous)"},
	}
}

// rmFlags are --rm and zstd's -k/--keep (the default, spelled out) of the
// commands that turn a file into another.
func rmFlags() []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: "rm", Usage: "remove IN once OUT is complete and flushed to the disk"},
		&cli.BoolFlag{Name: "keep", Aliases: []string{"k"}, Usage: "keep IN (the default)"},
	}
}

// outputOptions reads outputFlags.
func outputOptions(c *cli.Context) outfile.Options {
	return outfile.Options{Force: c.Bool("force"), Sync: c.Bool("sync") || c.Bool("rm")}
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

// regular reports whether the output is a regular file put in place (not
// stdout, nor a device written in place).
func (o *output) regular() bool { return o.file != nil && !o.file.InPlace() }

// samePath reports whether a and b name the same existing file.
func samePath(a, b string) bool {
	if b == "" || b == "-" {
		return false
	}
	sa, err := os.Stat(a)
	if err != nil {
		return false
	}
	sb, err := os.Stat(b)
	return err == nil && os.SameFile(sa, sb)
}

// readRDB runs fn on the RDB the single input of a command that writes
// no data holds (convert --dry-run), showing progress in phase, and
// checks the rest of an rdbz input once fn is done.
func readRDB(c *cli.Context, phase string, fn func(io.Reader) error) error {
	inPath, err := inputPath(c)
	if err != nil {
		return err
	}
	prog := newProgress(c, c.Command.Name)
	defer prog.done()
	src, err := openSource(inPath, prog.reader)
	if err != nil {
		return err
	}
	defer src.close()
	prog.phase(phase, inputSize(inPath))
	r, err := src.rdb(c.Context, decodeOptions(c))
	if err == nil {
		err = fn(r)
	}
	if err == nil {
		err = src.finish()
	}
	return src.fail(err)
}

// decodeOptions are how a command reads an rdbz input: its --cap and
// --ignore-checksum, and --workers where it has one.
func decodeOptions(c *cli.Context) listcodec.DecompressOptions {
	return listcodec.DecompressOptions{Flow: listcodec.Flow{Options: readOptions(c), Workers: c.Int("workers")}}
}

type readCloser struct {
	io.Reader
	io.Closer
}
