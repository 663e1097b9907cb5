package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/rdbz/rdbz/listcodec/node"
	"github.com/rdbz/rdbz/train"
	"github.com/urfave/cli/v2"
)

// usageError is a mistake in the command line (exit 2), as opposed to a
// failure of the work (exit 1).
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error {
	return &usageError{fmt.Errorf(format, args...)}
}

// isUsage reports whether err is a usage error.
func isUsage(err error) bool {
	var ue *usageError
	return errors.As(err, &ue)
}

// onUsageError turns urfave's parse errors (an unknown flag, a value that
// does not parse) into usage errors, with the nearest flag's name for an
// unknown one.
func onUsageError(c *cli.Context, err error, _ bool) error {
	if name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: -"); ok && cli.SuggestFlag != nil {
		if s := cli.SuggestFlag(c.Command.Flags, strings.TrimLeft(name, "-"), false); s != "" {
			return &usageError{fmt.Errorf("%w (did you mean %s?)", err, s)}
		}
	}
	return &usageError{err}
}

// unknownCommand is the action of rdbz without a known command.
func unknownCommand(c *cli.Context) error {
	if c.NArg() == 0 {
		return usagef("no command given")
	}
	name := c.Args().First()
	if cli.SuggestCommand != nil {
		return usagef("unknown command %q. %s", name, cli.SuggestCommand(c.App.VisibleCommands(), name))
	}
	return usagef("unknown command %q", name)
}

// number is a flag value type that ranges check.
type number interface {
	~int | ~int64 | ~uint | ~float64
}

// inRange checks a flag's value against [lo, hi].
func inRange[T number](name string, lo, hi T) func(*cli.Context, T) error {
	return func(_ *cli.Context, v T) error {
		if v < lo || v > hi {
			return usagef("--%s %v: want %v to %v", name, v, lo, hi)
		}
		return nil
	}
}

// atLeast checks a flag's value against a lower bound.
func atLeast[T number](name string, lo T) func(*cli.Context, T) error {
	return func(_ *cli.Context, v T) error {
		if v < lo {
			return usagef("--%s %v: want at least %v", name, v, lo)
		}
		return nil
	}
}

// dictSizeRange checks --dict-size.
var dictSizeRange = inRange("dict-size", train.MinDictSize, node.MaxDictFile)

// dictIDRange checks --dict-id: 0 (derived) or a 2-byte frame ID.
func dictIDRange(c *cli.Context, v uint) error {
	if v != 0 && (v < train.MinID || v > train.MaxID) {
		return usagef("--dict-id %d: want 0 (derived from the seed) or %d to %d", v, train.MinID, train.MaxID)
	}
	return nil
}
