package main

import (
	"fmt"
	"os"
	"time"
)

// progress prints "name: N MB" on stderr now and then, when stderr is a
// terminal.
type progress struct {
	name  string
	on    bool
	last  time.Time
	start time.Time
}

func newProgress(name string) *progress {
	return &progress{name: name, on: isTerminal(os.Stderr), start: time.Now()}
}

func (p *progress) offset(off int64) {
	if !p.on || time.Since(p.last) < 200*time.Millisecond {
		return
	}
	p.last = time.Now()
	fmt.Fprintf(os.Stderr, "\r%s: %.1f MB read", p.name, float64(off)/1e6)
}

// done clears the progress line.
func (p *progress) done() {
	if p.on && !p.last.IsZero() {
		fmt.Fprint(os.Stderr, "\r\033[K")
	}
}
