package main

import (
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"
)

// completionFlag is what the shell completion scripts append to a command
// line to ask for candidates; urfave/cli looks for it last.
const completionFlag = "--generate-bash-completion"

// reorderArgs returns the command line (os.Args) with the flags of its
// command moved before the command's arguments, and the command's name
// ("" when there is none). urfave/cli v2 stops reading flags at the first
// argument; this lets them come anywhere, as with zstd and gzip:
// rdbz compress dump.rdb -o out.rdbz. A flag whose value is missing is a
// usage error (see moveFlagsFirst).
func reorderArgs(app *cli.App, args []string) ([]string, string, error) {
	for i := 1; i < len(args); i++ {
		a := args[i]
		if a == "--" || !strings.HasPrefix(a, "-") || a == "-" {
			cmd := app.Command(a)
			if cmd == nil {
				return args, "", nil
			}
			rest := args[i+1:]
			complete := len(rest) > 0 && rest[len(rest)-1] == completionFlag
			if complete {
				rest = rest[:len(rest)-1]
			}
			moved, err := moveFlagsFirst(cmd.Flags, rest)
			if err != nil && !complete {
				return nil, cmd.Name, err
			}
			out := append(append([]string{}, args[:i+1]...), moved...)
			if complete {
				out = append(out, completionFlag)
			}
			return out, cmd.Name, nil
		}
	}
	return args, "", nil
}

// takesNext reports whether flag a takes the next argument as its value,
// and the name of the flag that does: --name or -n of a flag that takes a
// value, or a cluster of short flags (-qfo, as urfave's short option
// handling reads it) ending with one.
func takesNext(a string, takesValue map[string]bool) (string, bool) {
	name := strings.TrimLeft(a, "-")
	switch {
	case strings.Contains(name, "="):
		return "", false
	case takesValue[name]:
		return name, true
	case !strings.HasPrefix(a, "--") && len(name) > 1:
		last := name[len(name)-1:]
		return last, takesValue[last]
	}
	return "", false
}

// moveFlagsFirst puts the flags of args (with their values) before the
// other arguments, each group in its order. A flag that takes a value
// takes the next argument unless written --flag=value; "--" ends the
// flags; "-" alone is an argument; -qfo is -q -f -o; -N (digits) is
// --level=N where the command has --level, as zstd's -1 ... -19. A flag
// the command does not define is kept as a flag without a value (urfave
// reports it).
//
// A flag that takes a value never takes what was not meant as one: at
// the end of the line, or before "--" or another flag, its value is
// missing and that is a usage error (zstd's "missing argument"), so that
// an empty $OUT in "rdbz decompress -f IN -o $OUT" cannot make IN the
// output. "-" is a value (stdin or stdout); a negative number is one for
// a numeric flag only (--workers -1 is then refused by its range).
func moveFlagsFirst(flags []cli.Flag, args []string) ([]string, error) {
	takesValue, numeric := valueFlags(flags)
	var fl, pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			pos = append(pos, args[i+1:]...)
			i = len(args)
		case a == "-" || !strings.HasPrefix(a, "-"):
			pos = append(pos, a)
		case takesValue["level"] && isLevel(a):
			fl = append(fl, "--level="+a[1:])
		case isAttached(a, numeric):
			fl = append(fl, a[:2], a[2:]) // zstd's -T2: a one-letter numeric flag and its value
		default:
			fl = append(fl, a)
			name, takes := takesNext(a, takesValue)
			if !takes {
				continue
			}
			if i+1 == len(args) || !isValue(args[i+1], numeric[name]) {
				return nil, usagef("flag needs an argument: %s (write --%s=VALUE for a value that starts with -)", a, name)
			}
			i++
			fl = append(fl, args[i])
		}
	}
	for _, p := range pos {
		if strings.HasPrefix(p, "-") && p != "-" {
			// An argument that looks like a flag stays one only after "--".
			return append(append(fl, "--"), pos...), nil
		}
	}
	return append(fl, pos...), nil
}

// isAttached reports a one-letter numeric flag written with its value
// attached, as zstd takes -T0 and -T2.
func isAttached(a string, numeric map[string]bool) bool {
	if len(a) < 3 || a[0] != '-' || a[1] == '-' || !numeric[a[1:2]] {
		return false
	}
	_, err := strconv.Atoi(a[2:])
	return err == nil
}

// valueFlags returns the names of the flags that take a value, and of
// those whose value is a number.
func valueFlags(flags []cli.Flag) (takesValue, numeric map[string]bool) {
	takesValue, numeric = map[string]bool{}, map[string]bool{}
	for _, f := range flags {
		d, ok := f.(cli.DocGenerationFlag)
		if !ok || !d.TakesValue() {
			continue
		}
		num := false
		switch f.(type) {
		case *cli.IntFlag, *cli.Int64Flag, *cli.UintFlag, *cli.Uint64Flag, *cli.Float64Flag:
			num = true
		}
		for _, n := range f.Names() {
			takesValue[n], numeric[n] = true, num
		}
	}
	return takesValue, numeric
}

// isValue reports whether next can be the value of a flag: anything that
// does not look like a flag, "-", or a negative number for a numeric one.
func isValue(next string, numeric bool) bool {
	if next == "-" || !strings.HasPrefix(next, "-") {
		return true
	}
	if !numeric {
		return false
	}
	_, err := strconv.ParseFloat(next, 64)
	return err == nil
}

// isLevel reports whether a is -N with N decimal digits (zstd's level
// flags); the level's range is checked by --level.
func isLevel(a string) bool {
	if len(a) < 2 || len(a) > 4 || a[0] != '-' {
		return false
	}
	for _, c := range a[1:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
