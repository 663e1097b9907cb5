package main

import (
	"os"

	"golang.org/x/term"
)

// isTerminal reports whether f is a terminal: progress goes to stderr only
// then, binary data never goes to one without -f, and a command that is
// given no input does not wait on one.
func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }
