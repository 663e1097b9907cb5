//go:build linux || darwin || freebsd

package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/creack/pty"
)

// runOnTerminal runs rdbz with a pseudo-terminal as the descriptors named
// in onTTY ("stdin", "stdout", "stderr"), the others as run has them, and
// returns what reached the terminal (line ends as written), stdout and
// stderr when not a terminal, and the exit code.
func runOnTerminal(t *testing.T, onTTY []string, args ...string) (tty, stdout, stderr string, code int) {
	t.Helper()
	ptmx, tt, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer ptmx.Close()
	cmd := exec.Command(rdbzBin, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	for _, d := range onTTY {
		switch d {
		case "stdin":
			cmd.Stdin = tt
		case "stdout":
			cmd.Stdout = tt
		case "stderr":
			cmd.Stderr = tt
		}
	}
	var seen bytes.Buffer
	done := make(chan struct{})
	go func() {
		io.Copy(&seen, ptmx) // ends with EIO once the terminal is closed
		close(done)
	}()
	err = cmd.Run()
	tt.Close()
	<-done
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return strings.ReplaceAll(seen.String(), "\r\n", "\n"), out.String(), errb.String(), code
}

// TestTerminalRefusals: binary data is not written to a terminal without
// -f, and a command given no input does not wait on a terminal.
func TestTerminalRefusals(t *testing.T) {
	tty, _, stderr, code := runOnTerminal(t, []string{"stdout"}, "compress", "-c", "--dict", testDict, small)
	if code != 2 || tty != "" || !strings.Contains(stderr, "stdout is a terminal") {
		t.Fatalf("compress -c to a terminal: exit %d, %d bytes written, stderr %q", code, len(tty), stderr)
	}
	if _, _, stderr, code := runOnTerminal(t, []string{"stdout"}, "decompress", "-o", "-", small); code != 2 {
		t.Fatalf("decompress -o - to a terminal: exit %d, stderr %q", code, stderr)
	}
	tty, _, stderr, code = runOnTerminal(t, []string{"stdout"}, "compress", "-c", "-f", "--dict", testDict, small)
	if code != 0 || !strings.HasPrefix(tty, "P*M\x18") {
		t.Fatalf("compress -c -f to a terminal: exit %d, stderr %q", code, stderr)
	}
	_, _, stderr, code = runOnTerminal(t, []string{"stdin"}, "compress", "-o", filepath.Join(t.TempDir(), "x"))
	if code != 2 || !strings.Contains(stderr, "no input") {
		t.Fatalf("compress with a terminal as stdin: exit %d, stderr %q", code, stderr)
	}
}

// TestProgressOnTerminal: on a terminal, compress shows each phase with a
// percentage and clears the line before its summary; on a pipe, it shows
// nothing.
func TestProgressOnTerminal(t *testing.T) {
	out := filepath.Join(t.TempDir(), "x.rdbz")
	tty, _, _, code := runOnTerminal(t, []string{"stderr"}, "compress", "-o", out, small)
	if code != 0 {
		t.Fatalf("exit %d: %q", code, tty)
	}
	for _, phase := range []string{"compressing"} { // 2.2: no T held to train on
		if !strings.Contains(tty, "compress: "+phase) {
			t.Errorf("phase %s not shown: %q", phase, tty)
		}
	}
	if !regexp.MustCompile(`compress: compressing +[0-9]+% \|`).MatchString(tty) {
		t.Errorf("no percentage: %q", tty)
	}
	before, summary, ok := strings.Cut(tty, "../../testdata/small.rdb : ")
	if !ok {
		t.Fatalf("no summary: %q", tty)
	}
	// The summary starts a line, after the bar erased (the cursor moved
	// back up over its line and the rest of the screen cleared).
	if !regexp.MustCompile(`\n\x1b\[1A\x1b\[J$`).MatchString(before) {
		t.Errorf("the progress line was not cleared before the summary: %q", before)
	}
	if strings.Contains(summary, "\x1b") {
		t.Errorf("progress after the summary: %q", summary)
	}
	os.Remove(out)
	_, _, stderr, code := runOnTerminal(t, nil, "compress", "-o", out, small)
	if code != 0 || strings.ContainsAny(stderr, "\r\x1b") || strings.Contains(stderr, "sampling") {
		t.Errorf("progress on a pipe: exit %d, %q", code, stderr)
	}
	if tty, _, _, _ := runOnTerminal(t, []string{"stderr"}, "info", "-q", small); tty != "" {
		t.Errorf("info -q on a terminal showed %q", tty)
	}
}

// TestProgressEveryCommand: each long command shows its progress on a
// terminal and leaves the line clear.
func TestProgressEveryCommand(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"info", small},
		{"copy", "-o", filepath.Join(dir, "c.rdb"), small},
		{"decompress", "-o", filepath.Join(dir, "d.rdb"), smallCompressed(t)},
		{"analyze", "--sample-bytes", "0", small},
		{"train", "-o", filepath.Join(dir, "t.dict"), "--dict-size", "4096", small},
		{"verify", small, small},
		{"split", "--shards", "2", "--db-to-0", "-o", filepath.Join(dir, "s-"), small},
		{"merge", "--on-duplicate", "first", "-o", filepath.Join(dir, "m.rdb"), small, small},
	} {
		tty, _, _, code := runOnTerminal(t, []string{"stderr"}, args...)
		if code != 0 || !strings.Contains(tty, args[0]+": ") || !strings.Contains(tty, "%") && args[0] != "train" {
			t.Errorf("%v: exit %d, terminal %q", args, code, tty)
		}
		if !regexp.MustCompile(`\x1b\[1A\x1b\[J`).MatchString(tty) {
			t.Errorf("%v: the progress line was not cleared: %q", args, tty)
		}
	}
}
