package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"
)

//go:generate sh -c "go run . man > rdbz.1"

// manCommand prints the man page, written from the commands' definitions
// (their usage, arguments, descriptions and flags): cmd/rdbz/rdbz.1 is its
// output (go generate ./cmd/rdbz). urfave/cli's own page lacked a usage
// line per command, an EXIT STATUS and EXAMPLES, printed numeric flags as
// --shards="" and let roff eat the backslashes of the help texts.
func manCommand() *cli.Command {
	return &cli.Command{
		Name:   "man",
		Usage:  "print the man page (roff)",
		Hidden: true,
		Action: func(c *cli.Context) error {
			return report(func(w io.Writer) { writeMan(w, c.App) })
		},
	}
}

// manExamples are the EXAMPLES section: a command line and what it does.
var manExamples = [][2]string{
	{"rdbz compress dump.rdb", "writes dump.rdb.rdbz, keeping dump.rdb"},
	{"rdbz decompress dump.rdb.rdbz", "writes dump.rdb again, byte for byte"},
	{"rdbz test backup/*.rdbz", "checks every block, index and checksum of each file, writing nothing"},
	{"cat dump.rdb | rdbz compress | rdbz decompress > same.rdb", "the same through a pipeline"},
	{"rdbz decompress --to lzf dump.rdbz -o load.rdb", "an RDB as redis saves it with rdbcompression yes"},
	{"rdbz analyze --keys keys.csv dump.rdb", "the pre-migration report, and a CSV row per key"},
	{"rdbz convert --target redis-6.2 --drop stream2 dump.rdb", "writes dump.redis-6.2.rdb, accepting the loss of the streams' newer metadata"},
	{"rdbz get dump.rdbz user:42 | redis-cli --pipe", "one key of a compressed dump into a running server"},
	{"rdbz verify dump.rdb dump.redis-6.2.rdb && echo same", "exit 0 when both files hold the same data"},
}

// writeMan writes the man page of app in roff (man(7)).
func writeMan(w io.Writer, app *cli.App) {
	fmt.Fprintln(w, `.TH RDBZ 1 "" "rdbz" "User Commands"`)
	fmt.Fprintf(w, ".SH NAME\nrdbz \\- %s\n", roff(app.Usage))
	fmt.Fprintln(w, ".SH SYNOPSIS")
	for _, c := range app.VisibleCommands() {
		fmt.Fprintf(w, ".B rdbz %s\n[\\fIOPTIONS\\fR] %s\n.br\n", c.Name, roffArgs(c.ArgsUsage))
	}
	fmt.Fprintln(w, ".B rdbz\n\\-\\-version | \\-\\-help")
	fmt.Fprintf(w, ".SH DESCRIPTION\n%s\n", roffText(app.Description))
	fmt.Fprintln(w, ".SH COMMANDS")
	for _, c := range app.VisibleCommands() {
		writeManCommand(w, c)
	}
	fmt.Fprintln(w, ".SH EXIT STATUS")
	for _, s := range [][2]string{{"0", "success (verify: the files hold the same data; get: every key was found)"},
		{"1", "failure: an input that is damaged, not what the command reads, or an output that cannot be written; nothing is left behind"},
		{"2", "usage error: an unknown flag or command, a flag without its value, a value out of range"},
		{"130", "interrupted (SIGINT, SIGTERM, SIGHUP or SIGQUIT): the partial output is removed"}} {
		fmt.Fprintf(w, ".TP\n.B %s\n%s\n", s[0], roff(s[1]))
	}
	fmt.Fprintln(w, ".SH EXAMPLES")
	for _, e := range manExamples {
		fmt.Fprintf(w, ".TP\n.B %s\n%s\n", roff(e[0]), roff(e[1]))
	}
	fmt.Fprintln(w, ".SH SEE ALSO\n.BR zstd (1),\n.BR redis-server (1),\n.BR redis-cli (1)")
}

// writeManCommand writes one command: its usage line, what it does, and
// its flags.
func writeManCommand(w io.Writer, c *cli.Command) {
	fmt.Fprintf(w, ".SS %s\n.B rdbz %s\n[\\fIOPTIONS\\fR] %s\n.PP\n%s\n", c.Name, c.Name, roffArgs(c.ArgsUsage), roff(c.Usage))
	if c.Description != "" {
		fmt.Fprintf(w, ".PP\n%s\n", roffText(c.Description))
	}
	for _, f := range c.VisibleFlags() {
		names := f.Names()
		d, _ := f.(cli.DocGenerationFlag)
		var head []string
		for _, n := range names {
			dash := "\\-\\-"
			if len(n) == 1 {
				dash = "\\-"
			}
			item := "\\fB" + dash + roff(n) + "\\fR"
			if d != nil && d.TakesValue() {
				item += " \\fI" + roff(flagValueName(f)) + "\\fR"
			}
			head = append(head, item)
		}
		usage := ""
		if d != nil {
			usage = strings.ReplaceAll(d.GetUsage(), "`", "")
			if def := flagDefault(d); def != "" {
				usage += " (default: " + def + ")"
			}
		}
		fmt.Fprintf(w, ".TP\n%s\n%s\n", strings.Join(head, ", "), roff(usage))
	}
}

// flagValueName is what a flag's value is called in its usage (the word
// between backquotes, as urfave shows it), else "VALUE".
func flagValueName(f cli.Flag) string {
	if d, ok := f.(cli.DocGenerationFlag); ok {
		if _, after, ok := strings.Cut(d.GetUsage(), "`"); ok {
			if name, _, ok := strings.Cut(after, "`"); ok {
				return name
			}
		}
	}
	return "VALUE"
}

// flagDefault is a flag's default as its help shows it ("" for none, or
// a switch's false).
func flagDefault(d cli.DocGenerationFlag) string {
	if t := d.GetDefaultText(); t != "" {
		return t
	}
	v := d.GetValue()
	if v == "" || v == "false" || v == "[]" {
		return ""
	}
	return v
}

// roff escapes text for one roff line: backslashes, and a leading dot or
// quote that would start a request.
func roff(s string) string {
	s = strings.ReplaceAll(s, "\\", "\\e")
	s = strings.ReplaceAll(s, "-", "\\-")
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = "\\&" + s
	}
	return s
}

// roffText escapes a paragraph, line by line.
func roffText(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = roff(l)
	}
	return strings.Join(lines, "\n")
}

// roffArgs is a command's arguments, in italics.
func roffArgs(s string) string {
	if s == "" {
		return ""
	}
	return "\\fI" + roff(s) + "\\fR"
}
