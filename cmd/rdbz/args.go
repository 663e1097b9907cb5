package main

import (
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
// rdbz compress dump.rdb -o out.rdbz.
func reorderArgs(app *cli.App, args []string) ([]string, string) {
	for i := 1; i < len(args); i++ {
		a := args[i]
		if a == "--" || !strings.HasPrefix(a, "-") || a == "-" {
			cmd := app.Command(a)
			if cmd == nil {
				return args, ""
			}
			rest := args[i+1:]
			complete := len(rest) > 0 && rest[len(rest)-1] == completionFlag
			if complete {
				rest = rest[:len(rest)-1]
			}
			out := append(append([]string{}, args[:i+1]...), moveFlagsFirst(cmd.Flags, rest)...)
			if complete {
				out = append(out, completionFlag)
			}
			return out, cmd.Name
		}
	}
	return args, ""
}

// takesNext reports whether flag a takes the next argument as its value:
// --name or -n of a flag that takes a value, or a cluster of short flags
// (-qfo, as urfave's short option handling reads it) ending with one.
func takesNext(a string, takesValue map[string]bool) bool {
	name := strings.TrimLeft(a, "-")
	switch {
	case strings.Contains(name, "="):
		return false
	case takesValue[name]:
		return true
	case !strings.HasPrefix(a, "--") && len(name) > 1:
		return takesValue[name[len(name)-1:]]
	}
	return false
}

// moveFlagsFirst puts the flags of args (with their values) before the
// other arguments, each group in its order. A flag that takes a value
// takes the next argument unless written --flag=value; "--" ends the
// flags; "-" alone is an argument; -qfo is -q -f -o; -N (digits) is
// --level=N where the command has --level, as zstd's -1 ... -19. A flag
// the command does not define is kept as a flag without a value (urfave
// reports it).
func moveFlagsFirst(flags []cli.Flag, args []string) []string {
	takesValue := map[string]bool{}
	for _, f := range flags {
		if d, ok := f.(cli.DocGenerationFlag); ok && d.TakesValue() {
			for _, n := range f.Names() {
				takesValue[n] = true
			}
		}
	}
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
		default:
			fl = append(fl, a)
			if takesNext(a, takesValue) && i+1 < len(args) {
				i++
				fl = append(fl, args[i])
			}
		}
	}
	for _, p := range pos {
		if strings.HasPrefix(p, "-") && p != "-" {
			// An argument that looks like a flag stays one only after "--".
			return append(append(fl, "--"), pos...)
		}
	}
	return append(fl, pos...)
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
