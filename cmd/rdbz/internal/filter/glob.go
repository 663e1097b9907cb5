package filter

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
)

// ErrGlob is wrapped by the error of a pattern Compile refuses.
var ErrGlob = errors.New("bad glob")

// Glob is a compiled Redis glob pattern: it matches a key exactly when
// KEYS and SCAN MATCH return it (redis src/util.c stringmatchlen, case
// sensitive, bytes, '/' not special):
//
//   - * any bytes, ? one byte, any other byte itself;
//   - \x the byte x, whatever it is;
//   - [abc] one of a, b, c; [^abc] any byte but those; [a-z] a range,
//     its ends in either order and compared as C's signed chars on x86
//     and x86-64 ([a-\xff] holds \xff and the bytes up to a, not b);
//     inside brackets \x is x; a range's end may be ']' ([a-]] is ']'
//     to 'a');
//   - the pattern "*" matches every key, the empty one included (KEYS and
//     SCAN do not run the matcher for it); any other pattern matches the
//     empty key only when it is empty itself, as in redis;
//   - past redis's nesting limit (a 1001st * that is not the pattern's
//     last byte) nothing matches.
//
// It is compiled once and matches without allocating.
type Glob struct {
	pattern string
	form    form
	lit     []byte // formExact, formPrefix, formContains: the literal; formPrefixSuffix: the prefix
	suffix  []byte // formSuffix, formPrefixSuffix
	toks    []token
}

// form is how a pattern is matched: the common shapes by bytes' functions,
// the rest by the token machine.
type form uint8

const (
	formTokens       form = iota
	formAll               // "*"
	formNever             // past the nesting limit
	formExact             // literal bytes
	formPrefix            // lit*: keys of at least one byte starting with lit
	formSuffix            // *suffix
	formPrefixSuffix      // lit*suffix
	formContains          // *lit*
)

type tokKind uint8

const (
	tokLit   tokKind = iota // the byte b
	tokAny                  // ?
	tokClass                // [...]: a byte of set
	tokStar                 // one or more *
)

type token struct {
	kind tokKind
	b    byte
	set  *byteSet
}

// byteSet is a set of bytes, a bit each.
type byteSet [4]uint64

func (s *byteSet) add(b byte)           { s[b>>6] |= 1 << (b & 63) }
func (s *byteSet) has(b byte) bool      { return s[b>>6]&(1<<(b&63)) != 0 }
func (s *byteSet) invert()              { s[0], s[1], s[2], s[3] = ^s[0], ^s[1], ^s[2], ^s[3] }
func (s *byteSet) addRange(lo, hi int8) { forRange(lo, hi, s.add) }

// forRange calls fn with each byte whose value as a signed char lies in
// [lo, hi] (either order), as redis compares a class range on platforms
// whose char is signed.
func forRange(lo, hi int8, fn func(byte)) {
	if lo > hi {
		lo, hi = hi, lo
	}
	for c := int(lo); c <= int(hi); c++ {
		fn(byte(int8(c)))
	}
}

// maxNesting is redis's bound on the recursion of stringmatchlen: the
// 1001st * (counting runs of * as one) may only end the pattern.
const maxNesting = 1000

// Compile compiles a pattern. It refuses, wrapping ErrGlob, the two
// patterns whose meaning in redis is seldom the one meant: a [ that no ]
// closes (redis reads a class up to the end of the pattern; [a-] is one,
// its ] the end of a range) and a pattern that ends with a \ escaping
// nothing (redis reads a \). Write \[ and \\ for the bytes themselves.
func Compile(pattern string) (*Glob, error) {
	g, problem := compile(pattern)
	if problem != "" {
		return nil, fmt.Errorf("%w %s: %s", ErrGlob, strconv.Quote(pattern), problem)
	}
	return g, nil
}

// MustCompile is Compile for patterns known to be good; it panics on a bad one.
func MustCompile(pattern string) *Glob {
	g, err := Compile(pattern)
	if err != nil {
		panic(err)
	}
	return g
}

// String is the pattern.
func (g *Glob) String() string { return g.pattern }

// compile compiles any pattern as redis reads it, and tells what Compile
// refuses in it ("" for nothing).
func compile(pattern string) (*Glob, string) {
	g := &Glob{pattern: pattern}
	if pattern == "*" {
		g.form = formAll
		return g, ""
	}
	toks, problem := parse(pattern)
	g.toks = toks
	g.form = g.shape()
	return g, problem
}

// parse turns a pattern into tokens, reading it as stringmatchlen does.
func parse(p string) ([]token, string) {
	var toks []token
	problem := ""
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '*':
			if len(toks) == 0 || toks[len(toks)-1].kind != tokStar {
				toks = append(toks, token{kind: tokStar})
			}
		case '?':
			toks = append(toks, token{kind: tokAny})
		case '[':
			set, end, closed := parseClass(p, i+1)
			if !closed && problem == "" {
				problem = fmt.Sprintf("the [ at byte %d is not closed by a ] (write \\[ for a [ itself)", i)
			}
			toks = append(toks, token{kind: tokClass, set: set})
			i = end
		case '\\':
			if i+1 < len(p) {
				i++
			} else {
				problem = "it ends with a \\ that escapes nothing (write \\\\ for a \\ itself)"
			}
			fallthrough
		default:
			toks = append(toks, token{kind: tokLit, b: p[i]})
		}
	}
	return toks, problem
}

// parseClass reads a class whose body starts at i, as stringmatchlen
// does, and returns the bytes it matches, the index of its last byte
// (the ], or the pattern's last byte when none closes it) and whether a ]
// closed it.
func parseClass(p string, i int) (*byteSet, int, bool) {
	set := new(byteSet)
	not := i < len(p) && p[i] == '^'
	if not {
		i++
	}
	closed := false
	for ; ; i++ {
		rest := len(p) - i
		if rest >= 2 && p[i] == '\\' {
			i++
			set.add(p[i])
		} else if rest > 0 && p[i] == ']' {
			closed = true
			break
		} else if rest == 0 {
			i-- // redis steps back onto the last byte
			break
		} else if rest >= 3 && p[i+1] == '-' {
			set.addRange(int8(p[i]), int8(p[i+2]))
			i += 2
		} else {
			set.add(p[i])
		}
	}
	if not {
		set.invert()
	}
	return set, i, closed
}

// shape picks the form that matches the tokens fastest.
func (g *Glob) shape() form {
	stars, last := 0, tokLit
	for _, t := range g.toks {
		if t.kind == tokStar {
			stars++
		}
		last = t.kind
	}
	if stars > maxNesting+1 || stars == maxNesting+1 && last != tokStar {
		return formNever
	}
	lits := func(ts []token) ([]byte, bool) {
		b := make([]byte, 0, len(ts))
		for _, t := range ts {
			if t.kind != tokLit {
				return nil, false
			}
			b = append(b, t.b)
		}
		return b, true
	}
	t := g.toks
	n := len(t)
	var ok bool
	switch {
	case stars == 0:
		g.lit, ok = lits(t)
		return pick(ok, formExact)
	case stars == 1 && t[n-1].kind == tokStar:
		g.lit, ok = lits(t[:n-1])
		return pick(ok, formPrefix)
	case stars == 1 && t[0].kind == tokStar:
		g.suffix, ok = lits(t[1:])
		return pick(ok, formSuffix)
	case stars == 1:
		for i := range t {
			if t[i].kind == tokStar {
				var ok2 bool
				g.lit, ok = lits(t[:i])
				g.suffix, ok2 = lits(t[i+1:])
				return pick(ok && ok2, formPrefixSuffix)
			}
		}
	case stars == 2 && n > 2 && t[0].kind == tokStar && t[n-1].kind == tokStar:
		g.lit, ok = lits(t[1 : n-1])
		return pick(ok, formContains)
	}
	return formTokens
}

func pick(ok bool, f form) form {
	if ok {
		return f
	}
	return formTokens
}

// Match reports whether key matches the pattern.
func (g *Glob) Match(key []byte) bool {
	switch g.form {
	case formAll:
		return true
	case formNever:
		return false
	case formExact:
		return bytes.Equal(key, g.lit)
	}
	if len(key) == 0 {
		return false // stringmatchlen's loop never runs; only "" matches ""
	}
	switch g.form {
	case formPrefix:
		return bytes.HasPrefix(key, g.lit)
	case formSuffix:
		return bytes.HasSuffix(key, g.suffix)
	case formPrefixSuffix:
		return len(key) >= len(g.lit)+len(g.suffix) && bytes.HasPrefix(key, g.lit) && bytes.HasSuffix(key, g.suffix)
	case formContains:
		return bytes.Contains(key, g.lit)
	}
	return matchTokens(g.toks, key)
}

// matchTokens matches a non-empty key against tokens, backtracking to the
// last * only: a * that fails can only be helped by a later one taking
// more, never by an earlier one (redis's skipLongerMatches).
func matchTokens(toks []token, s []byte) bool {
	p, i := 0, 0
	star, from := -1, 0
	for i < len(s) {
		if p < len(toks) {
			t := &toks[p]
			switch {
			case t.kind == tokStar:
				star, from = p, i
				p++
				continue
			case t.kind == tokAny,
				t.kind == tokLit && t.b == s[i],
				t.kind == tokClass && t.set.has(s[i]):
				p++
				i++
				continue
			}
		}
		if star < 0 {
			return false
		}
		from++
		p, i = star+1, from
	}
	for p < len(toks) && toks[p].kind == tokStar {
		p++
	}
	return p == len(toks)
}
