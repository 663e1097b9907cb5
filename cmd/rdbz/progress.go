package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/urfave/cli/v2"
	"github.com/vbauerster/cupwriter"
	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
)

// progress shows on stderr, when it is a terminal and -q is not given, what
// a long command is doing: its phase, the bytes done and, where the size
// is known, a percentage and the time left. Each phase is a new bar; done
// clears the line before the report or summary is printed. It also keeps
// how long each phase took, for -v.
//
// The display is mpb's. It replaced schollz/progressbar, which links
// net/http and crypto/tls into rdbz (a binary of 17.9 MB against 12.1 MB
// with mpb): their package inits and pages cost every command 1.5 to 3 ms
// of its start (rdbz --version 21.7–23.3 against 19.9–20.8 ms), a few
// percent of what a small dump may take in all.
type progress struct {
	verb   string
	on     bool
	mu     sync.Mutex
	pb     *mpb.Progress
	cw     *cupwriter.Writer
	bar    *mpb.Bar
	name   string // the current phase
	start  time.Time
	n      int64    // bytes done in the current phase
	phases []string // "name 1.23s" of the phases done
}

// newProgress starts the progress display of a command (verb: its name).
func newProgress(c *cli.Context, verb string) *progress {
	return &progress{verb: verb, on: !c.Bool("quiet") && isTerminal(os.Stderr)}
}

// noBytes is the total of a phase that reads nothing (training): a
// spinner and the time spent.
const noBytes = -1

// phase starts a phase of total bytes: a bar with a percentage and the
// time left; 0 when the size is unknown (stdin): a spinner and the bytes
// read; noBytes: a spinner only.
func (p *progress) phase(name string, total int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.endPhase()
	p.name, p.start = name, time.Now()
	if !p.on {
		return
	}
	p.cw = cupwriter.New(os.Stderr, false)
	p.pb = mpb.New(mpb.WithConsoleWriter(sizedTerminal{p.cw}), mpb.WithWidth(20), mpb.WithRefreshRate(100*time.Millisecond))
	name = p.verb + ": " + name
	switch {
	case total > 0: // a bar, a percentage, the bytes and the time left
		p.bar = p.pb.New(total, mpb.BarStyle().Lbound("|").Rbound("|"),
			mpb.PrependDecorators(decor.Name(name+" "), decor.NewPercentage("%d", decor.WC{W: 4})),
			mpb.AppendDecorators(decor.CountersKibiByte(" % .1f / % .1f"),
				decor.AverageSpeed(decor.SizeB1024(0), "  % .1f"), decor.Name("  left "), decor.AverageETA(decor.ET_STYLE_GO)))
		p.bar.SetCurrent(p.n)
	case total == 0: // a spinner and the bytes read
		p.bar = p.pb.New(0, mpb.SpinnerStyle(), mpb.PrependDecorators(decor.Name(name+" ")),
			mpb.AppendDecorators(decor.CurrentKibiByte(" % .1f"), decor.Name("  "), decor.Elapsed(decor.ET_STYLE_GO)))
	default: // noBytes: a spinner and the time spent
		p.bar = p.pb.New(0, mpb.SpinnerStyle(), mpb.PrependDecorators(decor.Name(name+" ")),
			mpb.AppendDecorators(decor.Elapsed(decor.ET_STYLE_GO, decor.WC{W: 5})))
	}
}

// endPhase clears the bar of the current phase and notes its duration.
// The caller holds p.mu.
func (p *progress) endPhase() {
	if p.name != "" {
		p.phases = append(p.phases, fmt.Sprintf("%s %.2fs", p.name, time.Since(p.start).Seconds()))
		p.name = ""
	}
	if p.bar != nil {
		// Abort stops the bar (one at 100% is complete already, and
		// stays drawn); once the display's goroutines are done, a last
		// flush writes what the writer holds for its next frame: the
		// cursor back up over the lines drawn and an erase.
		p.bar.Abort(true)
		p.pb.Wait()
		p.cw.Flush(0)
		p.pb, p.cw, p.bar = nil, nil, nil
	}
}

// sizedTerminal is the terminal mpb draws on. A terminal that reports no
// size (a pseudo-terminal nobody sized) is taken as 80 by 24: mpb draws no
// line taller than the terminal, nothing on one of height 0.
type sizedTerminal struct{ *cupwriter.Writer }

func (t sizedTerminal) GetTermSize() (width, height int, err error) {
	width, height, err = t.Writer.GetTermSize()
	if err != nil || width <= 0 || height <= 0 {
		return 80, 24, nil
	}
	return width, height, nil
}

// add counts n more bytes read (fewer when n < 0: a file read again).
func (p *progress) add(n int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.n = max(p.n+n, 0)
	if p.bar != nil {
		p.bar.SetCurrent(p.n)
	}
}

// rewind counts the bytes of the next phase from 0 (a pass that opens
// the inputs again).
func (p *progress) rewind() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.n = 0
}

// done ends the last phase and clears the line.
func (p *progress) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.endPhase()
}

// timings is "sampling 0.31s, training 0.40s, ..." for the phases done.
func (p *progress) timings() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return strings.Join(p.phases, ", ")
}

// reader counts the bytes read through r into the current phase; the
// readers of several inputs read at once (verify) add up.
func (p *progress) reader(r io.Reader) io.Reader {
	if !p.on {
		return r
	}
	cr := &countingReader{r: r, p: p}
	if f, ok := r.(*os.File); ok {
		return countingFile{f, cr}
	}
	return cr
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	p *progress
}

func (c *countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.p.add(int64(n))
	return n, err
}

// countingFile keeps a file seekable and statable (compress reads a file
// twice) behind the count: a seek moves the count with the offset.
type countingFile struct {
	*os.File
	c *countingReader
}

func (f countingFile) Read(b []byte) (int, error) { return f.c.Read(b) }

func (f countingFile) Seek(off int64, whence int) (int64, error) {
	before, err := f.File.Seek(0, io.SeekCurrent)
	if err != nil {
		return 0, err
	}
	n, err := f.File.Seek(off, whence)
	if err == nil {
		f.c.p.add(n - before)
	}
	return n, err
}

// inputSize is the size of a regular file at path, or 0 (stdin, a pipe,
// a device: unknown).
func inputSize(path string) int64 {
	if path == "-" {
		return 0
	}
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return 0
	}
	return fi.Size()
}

// totalSize is the sum of the sizes of the inputs, or 0 when one is
// unknown.
func totalSize(paths []string) int64 {
	var sum int64
	for _, p := range paths {
		n := inputSize(p)
		if n == 0 {
			return 0
		}
		sum += n
	}
	return sum
}
