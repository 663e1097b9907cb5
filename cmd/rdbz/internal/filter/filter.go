// Package filter selects the keys of an RDB file by name (Redis glob
// patterns, Glob), database, type and expiry: a Filter's Keep is the keep
// function of an rdbio.Filter, the stage around a Reader that leaves the
// other keys out.
package filter

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/rdbz/rdbz/rdbio"
)

// ErrOptions is wrapped by the error of options New refuses.
var ErrOptions = errors.New("bad filter")

// Options say which keys a Filter keeps: those that match a Match
// pattern (any key when there is none), no Exclude pattern, whose db is
// one of DBs and type one of Types (any when empty), and that have not
// expired when DropExpired.
type Options struct {
	Match, Exclude []string // Redis globs (Glob)
	DBs            []uint64
	// Types are families as Redis's TYPE names them (string, list, set,
	// zset, hash, stream, module, and Dragonfly's own: json, bloom, ...:
	// rdbio.Type.Family) or the exact names of rdbio.Type (hash-listpack,
	// list-quicklist2, ...).
	Types []string
	// DropExpired leaves out the keys whose expiry lies before Now: a key
	// expiring at t (Unix ms) has expired when t < Now, as a server that
	// loads the file judges it.
	DropExpired bool
	// Now is the time expiries are judged against; zero: the dump's ctime
	// AUX field (when it was saved), or the clock when it has none.
	Now time.Time
}

// Active reports whether the options leave out any key at all.
func (o Options) Active() bool {
	return len(o.Match)+len(o.Exclude)+len(o.DBs)+len(o.Types) > 0 || o.DropExpired
}

// Filter decides which keys stay. Its Keep holds no state but its
// options: Readers on several goroutines may share it (analyze's pass and
// its format-2 estimate do).
type Filter struct {
	match, exclude []*Glob
	dbs            []uint64
	anyType        bool
	types          [256]bool // by rdbio.Type
	dropExpired    bool
	nowMs          int64 // Options.Now; 0: ctime, else clockMs
	clockMs        int64
}

// New compiles the options; a bad pattern, an unknown type or a negative
// time is an error wrapping ErrGlob or ErrOptions.
func New(o Options) (*Filter, error) {
	f := &Filter{dbs: slices.Clone(o.DBs), anyType: len(o.Types) == 0, dropExpired: o.DropExpired,
		clockMs: time.Now().UnixMilli()}
	var err error
	if f.match, err = compileAll(o.Match); err != nil {
		return nil, err
	}
	if f.exclude, err = compileAll(o.Exclude); err != nil {
		return nil, err
	}
	for _, name := range o.Types {
		if !f.allowType(name) {
			return nil, fmt.Errorf("%w: type %q: want one of %s, or a type's own name (%s)", ErrOptions, name,
				strings.Join(Families, ", "), "hash-listpack, list-quicklist2, ...")
		}
	}
	if !o.Now.IsZero() {
		if f.nowMs = o.Now.UnixMilli(); f.nowMs <= 0 {
			return nil, fmt.Errorf("%w: now %v is not after 1970", ErrOptions, o.Now)
		}
	}
	return f, nil
}

// Families are the type families Redis's TYPE command names.
var Families = []string{"string", "list", "set", "zset", "hash", "stream", "module"}

func compileAll(patterns []string) ([]*Glob, error) {
	gs := make([]*Glob, 0, len(patterns))
	for _, p := range patterns {
		g, err := Compile(p)
		if err != nil {
			return nil, err
		}
		gs = append(gs, g)
	}
	return gs, nil
}

// allowType allows the types of a family or of an exact name, and
// reports whether name is either.
func (f *Filter) allowType(name string) bool {
	found := slices.Contains(Families, name)
	for b := range f.types {
		t := rdbio.Type(b)
		if t.Family() == name || t.String() == name {
			f.types[b], found = true, true
		}
	}
	return found
}

// Keep reports whether the filter keeps the key record rec: the keep
// function of an rdbio.Filter.
func (f *Filter) Keep(rec *rdbio.Record) bool {
	if !f.anyType && !f.types[rec.Type] {
		return false
	}
	if len(f.dbs) > 0 && !slices.Contains(f.dbs, rec.DB) {
		return false
	}
	if f.dropExpired && rec.Expire != -1 && rec.Expire < f.now(rec) {
		return false
	}
	if len(f.match) > 0 && !anyMatch(f.match, rec.Key) {
		return false
	}
	return !anyMatch(f.exclude, rec.Key)
}

// now is the time rec's expiry is judged against (Options.Now), in Unix ms.
func (f *Filter) now(rec *rdbio.Record) int64 {
	if f.nowMs != 0 {
		return f.nowMs
	}
	if c, ok := rec.Ctime(); ok {
		return c * 1000
	}
	return f.clockMs
}

func anyMatch(gs []*Glob, key []byte) bool {
	for _, g := range gs {
		if g.Match(key) {
			return true
		}
	}
	return false
}
