package main

import (
	"strings"
	"testing"
)

// TestUsageErrors: a flag value out of range or an unknown flag is a
// one-line message on stderr, nothing on stdout, and exit 2.
func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"compress", "--workers", "-1", "-o", "-", small},
		{"compress", "--workers", "0", "-o", "-", small},
		{"compress", "--min-saving", "-0.5", "-o", "-", small},
		{"compress", "--level", "30", "-o", "-", small},
		{"compress", "--dict-size", "10", "-o", "-", small},
		{"compress", "--queue-bytes", "-5", "-o", "-", small},
		{"decompress", "--workers", "-3", "-o", "-", small},
		{"train", "--tries", "0", "-o", "-", small},
		{"train", "--dict-id", "5", "-o", "-", small},
		{"compress", "--no-such-flag", "-o", "-", small},
	} {
		stdout, stderr, code := run(t, nil, args...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2 (stderr %q)", args, code, stderr)
		}
		if stdout != "" {
			t.Errorf("%v: wrote %d bytes to stdout", args, len(stdout))
		}
		if n := strings.Count(strings.TrimSpace(stderr), "\n"); n != 0 || stderr == "" {
			t.Errorf("%v: stderr is not one line: %q", args, stderr)
		}
	}
}
