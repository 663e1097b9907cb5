package main

import (
	"strings"
	"testing"
)

// TestUsageErrors: each mistake in the command line (a value out of range,
// an unknown flag or command, a wrong number of inputs) is exit 2 with one
// line on stderr, saying what is wrong and naming the help to read, and
// nothing on stdout.
func TestUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"compress", "--workers", "-1", "-o", "-", small}, "--workers -1"},
		{[]string{"compress", "--workers", "2000", "-o", "-", small}, "--workers 2000"},
		{[]string{"compress", "--min-saving", "-0.5", "-o", "-", small}, "--min-saving"},
		{[]string{"compress", "--level", "30", "-o", "-", small}, "--level 30: want 1 to 22"},
		{[]string{"compress", "--dict-size", "10", "-o", "-", small}, "--dict-size 10"},
		{[]string{"compress", "--queue-bytes", "-5", "-o", "-", small}, "--queue-bytes -5"},
		{[]string{"decompress", "--workers", "-3", "-o", "-", small}, "--workers -3"},
		{[]string{"train", "--tries", "0", "-o", "-", small}, "--tries 0"},
		{[]string{"train", "--dict-id", "5", "-o", "-", small}, "--dict-id 5"},
		{[]string{"compress", "--no-such-flag", "-o", "-", small}, "no-such-flag"},
		{[]string{}, "no command"},
		{[]string{"compres", small}, `Did you mean "compress"`},
		{[]string{"compress", "--levl", "3", small}, "did you mean --level"},
		{[]string{"compress", small, small}, "one input"},
		{[]string{"decompress", "--to", "zip", small}, "zip"},
		{[]string{"analyze", "--top", "0", small}, "--top 0"},
		{[]string{"analyze", "--top", "-1", small}, "--top -1"},
		{[]string{"analyze", "--sample-bytes", "-1", small}, "--sample-bytes"},
		{[]string{"info", "--cap", "0", small}, "--cap 0"},
		{[]string{"verify", "--decode-cap", "-1", small, small}, "--decode-cap"},
		{[]string{"verify", small}, "two inputs"},
		{[]string{"completion", "tcsh"}, "tcsh"},
		{[]string{"train", "--level", "0", small}, "--level 0"},
		{[]string{"train", small}, "-o OUT"},
	} {
		stdout, stderr, code := run(t, nil, c.args...)
		if code != 2 || stdout != "" || strings.Count(stderr, "\n") != 1 ||
			!strings.Contains(stderr, c.want) || !strings.Contains(stderr, "--help')") {
			t.Errorf("%v: exit %d, stdout %d bytes, stderr %q; want exit 2, one line with %q and the help to read",
				c.args, code, len(stdout), stderr, c.want)
		}
	}
}
