package filter

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
)

// redisMatch is redis's stringmatchlen (src/util.c, case sensitive)
// written out in Go as the C reads it — the bytes past the pattern's
// length read as the NUL that ends it, chars signed — with the "*" that
// KEYS and SCAN answer without it: the reference Glob is held against.
func redisMatch(pattern, key string) bool {
	if pattern == "*" {
		return true
	}
	p := append([]byte(pattern), 0)
	skip := false
	return redisImpl(p, 0, len(pattern), []byte(key), 0, len(key), &skip, 0)
}

func redisImpl(p []byte, pi, plen int, s []byte, si, slen int, skip *bool, nesting int) bool {
	if nesting > 1000 {
		return false
	}
	for plen > 0 && slen > 0 {
		switch p[pi] {
		case '*':
			for plen > 0 && p[pi+1] == '*' {
				pi, plen = pi+1, plen-1
			}
			if plen == 1 {
				return true
			}
			for slen > 0 {
				if redisImpl(p, pi+1, plen-1, s, si, slen, skip, nesting+1) {
					return true
				}
				if *skip {
					return false
				}
				si, slen = si+1, slen-1
			}
			*skip = true
			return false
		case '?':
			si, slen = si+1, slen-1
		case '[':
			pi, plen = pi+1, plen-1
			not := p[pi] == '^'
			if not {
				pi, plen = pi+1, plen-1
			}
			match := false
			for {
				if p[pi] == '\\' && plen >= 2 {
					pi, plen = pi+1, plen-1
					match = match || p[pi] == s[si]
				} else if p[pi] == ']' {
					break
				} else if plen == 0 {
					pi, plen = pi-1, plen+1
					break
				} else if plen >= 3 && p[pi+1] == '-' {
					lo, hi, c := int(int8(p[pi])), int(int8(p[pi+2])), int(int8(s[si]))
					if lo > hi {
						lo, hi = hi, lo
					}
					pi, plen = pi+2, plen-2
					match = match || c >= lo && c <= hi
				} else {
					match = match || p[pi] == s[si]
				}
				pi, plen = pi+1, plen-1
			}
			if not {
				match = !match
			}
			if !match {
				return false
			}
			si, slen = si+1, slen-1
		case '\\':
			if plen >= 2 {
				pi, plen = pi+1, plen-1
			}
			fallthrough
		default:
			if p[pi] != s[si] {
				return false
			}
			si, slen = si+1, slen-1
		}
		pi, plen = pi+1, plen-1
		if slen == 0 {
			for p[pi] == '*' {
				pi, plen = pi+1, plen-1
			}
			break
		}
	}
	return plen == 0 && slen == 0
}

// globCases are tricky patterns, what redis answers for them (checked
// against redisMatch, and against a real redis-server's KEYS by
// TestGlobRedisServer) and whether Compile takes them.
var globCases = []struct {
	pattern, key string
	want, bad    bool
}{
	{"*", "", true, false}, // KEYS and SCAN answer "*" without the matcher
	{"**", "", false, false},
	{"**", "a", true, false},
	{"", "", true, false},
	{"", "a", false, false},
	{"?", "", false, false},
	{"a*", "a", true, false},
	{"*a", "a", true, false},
	{"a*a", "a", false, false},
	{"a*a", "aa", true, false},
	{"a*b*c", "abc", true, false},
	{"a*b*c", "acb", false, false},
	{"*a*b", "xaxb", true, false},
	{"*a*b", "xbxa", false, false},
	{"*ab*", "ab", true, false},
	{"*ab*", "xaxbx", false, false},
	{"user:*", "user:1/2", true, false},
	{"user:*", "users:1", false, false},
	{"h?llo", "hello", true, false},
	{"h?llo", "hllo", false, false},
	{"h[ae]llo", "hallo", true, false},
	{"h[ae]llo", "hillo", false, false},
	{"h[^e]llo", "hallo", true, false},
	{"h[^e]llo", "hello", false, false},
	{"h[a-c]llo", "hbllo", true, false},
	{"h[c-a]llo", "hbllo", true, false}, // ends in either order
	{"h[a-c]llo", "hdllo", false, false},
	{`h\*llo`, "h*llo", true, false},
	{`h\*llo`, "hello", false, false},
	{`\?`, "?", true, false},
	{`\?`, "a", false, false},
	{`a\\`, `a\`, true, false},
	{`a\`, `a\`, true, true}, // a lone \ at the end is itself
	{`[\]]`, "]", true, false},
	{`[\-]`, "-", true, false},
	{`[a\-z]`, "b", false, false},
	{"[]", "]", false, false},  // ] closes at once: an empty class
	{"[]]", "]", false, false}, // then a literal ]
	{"[^]", "x", true, false},  // nothing excluded: any byte
	{"[^]", "", false, false},
	{"[^]", "xy", false, false},
	{"[", "[", false, true}, // an unclosed empty class matches nothing
	{"[^", "x", true, true}, // an unclosed negated empty class: any byte
	{"[abc", "b", true, true},
	{"[abc", "bc", false, true},
	{"[a-]", "]", true, true}, // the range's end is the ], up to a
	{"[a-]", "_", true, true},
	{"[a-]", "-", false, true},
	{"[a-]", "b", false, true},
	{"[a-]b]", "_", true, false},
	{"[a-]b]", "b", true, false},
	{"[a-]b]", "-", false, false},
	{"[-a]", "-", true, false},
	{"[a-c-e]", "-", true, false}, // a-c, then - and e
	{"[a-c-e]", "d", false, false},
	{"[a-\xff]", "\xff", true, false}, // signed chars: \xff is -1, the range -1..'a'
	{"[a-\xff]", "A", true, false},
	{"[a-\xff]", "b", false, false},
	{"[a-\xff]", "\x80", false, false},
	{"[\x80-\xff]", "\xc3", true, false},
	{"[\x80-\xff]", "a", false, false},
	{"[\x7f-\x80]", "a", true, false}, // 127 and -128: every byte
	{"*\x00*", "a\x00b", true, false},
	{"a?c", "a\x00c", true, false},
	{strings.Repeat("a*", 1000) + "b", strings.Repeat("a", 1000) + "b", true, false},
	{strings.Repeat("a*", 1001), strings.Repeat("a", 1001), true, false},
	{strings.Repeat("a*", 1002), strings.Repeat("a", 1002), false, false}, // past the nesting limit
	{strings.Repeat("a*", 1001) + "b", strings.Repeat("a", 1001) + "b", false, false},
}

func TestGlobCases(t *testing.T) {
	for _, tc := range globCases {
		if got := redisMatch(tc.pattern, tc.key); got != tc.want {
			t.Errorf("reference: %q against %q: %v, the case says %v", tc.pattern, tc.key, got, tc.want)
		}
		g, problem := compile(tc.pattern)
		if got := g.Match([]byte(tc.key)); got != tc.want {
			t.Errorf("%q (form %d) against %q: %v, want %v", tc.pattern, g.form, tc.key, got, tc.want)
		}
		if (problem != "") != tc.bad {
			t.Errorf("%q: problem %q, want one: %v", tc.pattern, problem, tc.bad)
		}
		if _, err := Compile(tc.pattern); (err != nil) != tc.bad || err != nil && !errors.Is(err, ErrGlob) {
			t.Errorf("Compile(%q): %v", tc.pattern, err)
		}
	}
}

// TestGlobRandom holds Glob against redisMatch on random patterns and keys
// over a small alphabet heavy with the special bytes.
func TestGlobRandom(t *testing.T) {
	const patAlpha, keyAlpha = "ab*?[]^-\\\x80\xff", "ab]^-\\*?[\x80\xff"
	rng := rand.New(rand.NewPCG(1, 2))
	word := func(alpha string, n int) string {
		b := make([]byte, rng.IntN(n+1))
		for i := range b {
			b[i] = alpha[rng.IntN(len(alpha))]
		}
		return string(b)
	}
	for range 20000 {
		p := word(patAlpha, 8)
		g, _ := compile(p)
		for range 8 {
			k := word(keyAlpha, 8)
			if got, want := g.Match([]byte(k)), redisMatch(p, k); got != want {
				t.Fatalf("%q against %q: %v, redis says %v", p, k, got, want)
			}
		}
	}
}

// FuzzGlob holds Glob against redisMatch.
func FuzzGlob(f *testing.F) {
	for _, tc := range globCases {
		if len(tc.pattern) < 100 {
			f.Add(tc.pattern, tc.key)
		}
	}
	f.Fuzz(func(t *testing.T, p, k string) {
		g, _ := compile(p)
		if got, want := g.Match([]byte(k)), redisMatch(p, k); got != want {
			t.Fatalf("%q against %q: %v, redis says %v", p, k, got, want)
		}
	})
}
