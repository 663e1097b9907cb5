package main

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rdbz/rdbz/cmd/rdbz/internal/filter"
	"github.com/rdbz/rdbz/rdbio"
	"github.com/urfave/cli/v2"
)

// filterFlags are the key filters of every command that reads keys
// (docs/cli.md, "Filters"); keyFilter reads them.
func filterFlags() []cli.Flag {
	return []cli.Flag{
		&cli.GenericFlag{Name: "match", Value: &patterns{}, Usage: "keep the keys matching `GLOB` (as KEYS and SCAN MATCH: * ? [abc] [^a] [a-z] \\x); repeatable: any of them"},
		&cli.GenericFlag{Name: "exclude", Value: &patterns{}, Usage: "leave out the keys matching `GLOB`; repeatable"},
		&cli.StringSliceFlag{Name: "db", Usage: "keep the keys of db `N`; repeatable"},
		&cli.StringSliceFlag{Name: "type", Usage: "keep the keys of type `T`: " + strings.Join(filter.Families, ", ") + ", or a type's own name (hash-listpack, ...); repeatable"},
		&cli.StringFlag{Name: "expired", Value: "keep", Usage: "keep or drop the keys whose expiry lies before --now"},
		&cli.StringFlag{Name: "now", Usage: "with --expired drop: the `TIME` expiries are judged against, Unix seconds or RFC 3339 (default: the dump's ctime, else the clock)"},
	}
}

// filterFlagsBut is filterFlags less the flags named (a command's own
// flag of that name: get's --db).
func filterFlagsBut(names ...string) []cli.Flag {
	var out []cli.Flag
	for _, f := range filterFlags() {
		if !slices.Contains(names, f.Names()[0]) {
			out = append(out, f)
		}
	}
	return out
}

// filteredRead is readOptions, and the key filter the flags ask for.
func filteredRead(c *cli.Context) (rdbio.Options, func(*rdbio.Record) bool, error) {
	keep, err := keyFilter(c)
	return readOptions(c), keep, err
}

// patterns is the value of --match and --exclude: every occurrence one
// pattern, commas and all (a StringSliceFlag splits at commas).
type patterns []string

func (p *patterns) Set(s string) error { *p = append(*p, s); return nil }
func (p *patterns) String() string     { return strings.Join(*p, " ") }

// keyFilter builds the filter the flags ask for: the keep function of the
// command's rdbio.Filter, nil when no flag filters.
func keyFilter(c *cli.Context) (func(*rdbio.Record) bool, error) {
	o := filter.Options{Types: c.StringSlice("type")}
	if p, ok := c.Generic("match").(*patterns); ok {
		o.Match = *p
	}
	if p, ok := c.Generic("exclude").(*patterns); ok {
		o.Exclude = *p
	}
	for _, d := range c.StringSlice("db") {
		n, err := strconv.ParseUint(d, 10, 64)
		if err != nil {
			return nil, usagef("--db %q: want a db number", d)
		}
		o.DBs = append(o.DBs, n)
	}
	switch e := c.String("expired"); e {
	case "drop":
		o.DropExpired = true
	case "keep":
	default:
		return nil, usagef("--expired %q: want keep or drop", e)
	}
	if c.IsSet("now") {
		if !o.DropExpired {
			return nil, usagef("--now judges expiries for --expired drop: give --expired drop too")
		}
		t, err := parseNow(c.String("now"))
		if err != nil {
			return nil, err
		}
		o.Now = t
	}
	if !o.Active() {
		return nil, nil
	}
	f, err := filter.New(o)
	if errors.Is(err, filter.ErrGlob) || errors.Is(err, filter.ErrOptions) {
		return nil, &usageError{err}
	}
	if err != nil {
		return nil, err
	}
	return f.Keep, nil
}

// parseNow reads --now: Unix seconds, or an RFC 3339 time.
func parseNow(s string) (time.Time, error) {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil && n > 0 {
		return time.Unix(n, 0), nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil && t.Unix() > 0 {
		return t, nil
	}
	return time.Time{}, usagef("--now %q: want Unix seconds (1700000000) or an RFC 3339 time (2023-11-14T22:13:20Z) after 1970", s)
}

// filterNote is what a command's summary line says of the filter: "" when
// none was given.
func filterNote(keep func(*rdbio.Record) bool, kept, leftOut int64) string {
	if keep == nil {
		return ""
	}
	return fmt.Sprintf(", %d keys kept, %d left out", kept, leftOut)
}
