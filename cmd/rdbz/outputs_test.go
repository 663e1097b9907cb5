package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestKilledLeavesNothing: however the process ends while writing (SIGINT,
// SIGTERM, SIGHUP, SIGQUIT, SIGKILL), it exits non-zero and leaves neither
// OUT nor any other file.
func TestKilledLeavesNothing(t *testing.T) {
	sigs := []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGKILL}
	for _, sig := range sigs {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			cmd := exec.Command(rdbzBin, "compress", "-o", filepath.Join(dir, "out.rdb"), "-")
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			data, _ := os.ReadFile(small)
			stdin.Write(data[:len(data)/2]) // and keep stdin open
			time.Sleep(200 * time.Millisecond)
			cmd.Process.Signal(sig)
			err = cmd.Wait()
			stdin.Close()
			if err == nil {
				t.Fatalf("rdbz exited 0 after %v", sig)
			}
			if ents, _ := os.ReadDir(dir); len(ents) != 0 {
				t.Fatalf("left behind after %v: %v", sig, ents)
			}
		})
	}
}

// TestOutputModeFollowsInput: a new output takes the input's permissions.
func TestOutputModeFollowsInput(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.rdb")
	data, err := os.ReadFile(small)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(in, data, 0o640); err != nil {
		t.Fatal(err)
	}
	os.Chmod(in, 0o640)
	out := filepath.Join(dir, "out.rdb")
	if _, stderr, code := run(t, nil, "copy", "-o", out, in); code != 0 {
		t.Fatalf("copy: exit %d: %s", code, stderr)
	}
	fi, err := os.Stat(out)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o640 {
		t.Fatalf("output mode %v, want the input's 0640", fi.Mode().Perm())
	}
}

// TestDevNullWrittenInPlace: -f -o /dev/null writes into the device.
func TestDevNullWrittenInPlace(t *testing.T) {
	if _, stderr, code := run(t, nil, "copy", "-f", "-o", os.DevNull, small); code != 0 {
		t.Fatalf("copy -o /dev/null: exit %d: %s", code, stderr)
	}
	fi, err := os.Stat(os.DevNull)
	if err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		t.Fatalf("%s changed: %v %v", os.DevNull, fi, err)
	}
}

// TestDumpSamplesNoFollow: a link planted in --dump-samples DIR is not
// followed; the file it names stays as it was.
func TestDumpSamplesNoFollow(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	os.WriteFile(victim, []byte("keep"), 0o600)
	samples := filepath.Join(dir, "samples")
	os.Mkdir(samples, 0o755)
	if err := os.Symlink(victim, filepath.Join(samples, "node-000000")); err != nil {
		t.Fatal(err)
	}
	_, _, code := run(t, nil, "train", "--dump-samples", samples, "-o", filepath.Join(dir, "d"), trainInput(t))
	if code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep" {
		t.Fatalf("the linked file was written: %q", b)
	}
}

// TestWriteErrorsFail: a report or an output that cannot be written (a full
// device, a closed stdout) is exit 1 with a message, never a silent 0.
func TestWriteErrorsFail(t *testing.T) {
	for _, args := range [][]string{
		{"info", small}, {"info", "--json", small}, {"analyze", "--sample-bytes", "0", small},
		{"decompress", "-c", "-f", small}, {"verify", small, small},
	} {
		for _, redirect := range []string{"> /dev/full", ">&-"} {
			cmd := exec.Command("sh", append([]string{"-c", `"$0" "$@" ` + redirect, rdbzBin}, args...)...)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			err := cmd.Run()
			ee, ok := err.(*exec.ExitError)
			if !ok || ee.ExitCode() != 1 || !strings.Contains(stderr.String(), "write") {
				t.Errorf("%v %s: %v, stderr %q; want exit 1 naming the write", args, redirect, err, stderr.String())
			}
		}
	}
}

// TestInterruptEveryCommand: SIGINT stops every command at once, while it
// waits on its input or works on it: exit 130 within interruptLimit (the
// issue's 200 ms; a late run is given a second try), its partial output
// removed.
func TestInterruptEveryCommand(t *testing.T) {
	const interruptLimit = 200 * time.Millisecond
	rdb, err := os.ReadFile(small)
	if err != nil {
		t.Fatal(err)
	}
	rdbz, err := os.ReadFile(smallCompressed(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args  []string
		stdin []byte
	}{
		{[]string{"info", "-"}, rdb}, {[]string{"copy", "-o", "OUT", "-"}, rdb}, {[]string{"compress", "-o", "OUT", "-"}, rdb},
		{[]string{"decompress", "-o", "OUT", "-"}, rdbz}, {[]string{"test", "-"}, rdbz}, {[]string{"analyze", "-"}, rdb},
		{[]string{"convert", "-t", "redis-7.2", "-o", "OUT", "-"}, rdb}, {[]string{"export", "-o", "OUT", "-"}, rdbz},
		{[]string{"get", "-", "nokey"}, rdb}, {[]string{"split", "--shards", "2", "-o", "DIR/p-", "-"}, rdb},
		{[]string{"verify", small, "-"}, rdb}, {[]string{"train", "-o", "OUT", "-"}, rdb},
	} {
		t.Run(c.args[0], func(t *testing.T) {
			// A run over the limit is tried once more: a loaded machine
			// can hold the process off the CPU for a moment; a command
			// that ignores the signal is late twice.
			var took time.Duration
			for range 2 {
				if took = interruptOnce(t, c.args, c.stdin); took <= interruptLimit {
					return
				}
			}
			t.Errorf("%v: stopped %v after SIGINT, over %v", c.args, took, interruptLimit)
		})
	}
}

// interruptOnce runs a command line with half of stdin, sends it SIGINT
// once it has read that, and returns how long it took to exit; it fails
// the test unless the exit is 130 with nothing left behind.
func interruptOnce(t *testing.T, args []string, input []byte) time.Duration {
	t.Helper()
	dir := t.TempDir()
	var argv []string
	for _, a := range args {
		a = strings.ReplaceAll(a, "DIR", dir)
		if a == "OUT" {
			a = filepath.Join(dir, "out")
		}
		argv = append(argv, a)
	}
	cmd := exec.Command(rdbzBin, argv...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	half := input[:len(input)/2]
	stdin.Write(half) // and keep stdin open
	waitRead(t, cmd.Process.Pid, int64(len(half)))
	time.Sleep(100 * time.Millisecond) // at work on what it read
	start := time.Now()
	cmd.Process.Signal(syscall.SIGINT)
	err = cmd.Wait()
	took := time.Since(start)
	stdin.Close()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 130 {
		t.Fatalf("%v after SIGINT: %v, %s; want exit 130", args, err, stderr.String())
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("%v: left %v", args, ents[0].Name())
	}
	return took
}

// waitRead waits until process pid has read n bytes (rchar in its
// /proc io): a command reads its input only after main has installed its
// signal handler, which the Go runtime's own handler, present from the
// first instruction, does not tell apart in /proc's SigCgt mask.
func waitRead(t *testing.T, pid int, n int64) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/io", pid))
		if err != nil {
			t.Skipf("no /proc to tell when the command reads: %v", err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "rchar:"); ok {
				if r, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil && r >= n {
					return
				}
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("process %d never read %d bytes", pid, n)
}
