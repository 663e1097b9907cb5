// Package redislzf runs Redis's own LZF code next to rdbio/lzf: it builds
// lzf_c.c and lzf_d.c from a Redis source tree (the directory named by
// RDBZ_REDIS_SRC) with the C compiler into a small helper program, at run
// time and outside the repository, and asks that program to encode strings
// (for differential tests) or to time lzf_compress and lzf_decompress over
// them (rdbz-bench lzf). No C code is part of rdbz: without the sources or
// a compiler, Build says why and the callers skip.
package redislzf

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// EnvSource names the environment variable holding the Redis source
// directory: a checkout's root or its src/, where lzf_c.c is.
const EnvSource = "RDBZ_REDIS_SRC"

// DefaultCFlags are the flags Redis 7.0's Makefile compiles with
// (OPTIMIZATION?=-O2, -std=c11); Redis 7.2 and later use -O3 -flto.
var DefaultCFlags = []string{"-O2", "-std=c11"}

// ErrUnavailable is wrapped by Build's error when the harness cannot be
// built here: no source directory, no lzf_c.c in it, or no C compiler.
var ErrUnavailable = errors.New("redislzf: no Redis LZF code to build")

// Harness is the built helper program.
type Harness struct {
	bin    string
	Source string   // the directory lzf_c.c was taken from
	CFlags []string // the flags it was compiled with
}

// Item is one string: its raw bytes, the LZF stream Redis stored for it
// (decode's input; may be nil when only encoding), and the output budget
// lzf_compress is called with.
type Item struct {
	Raw    []byte
	Comp   []byte
	Budget int
}

// Build compiles the helper into dir with gcc and cflags (nil:
// DefaultCFlags), from the sources in $RDBZ_REDIS_SRC.
func Build(dir string, cflags []string) (*Harness, error) {
	src, err := sourceDir()
	if err != nil {
		return nil, err
	}
	cc, err := exec.LookPath("gcc")
	if err != nil {
		return nil, fmt.Errorf("%w: no gcc on PATH", ErrUnavailable)
	}
	if cflags == nil {
		cflags = DefaultCFlags
	}
	main := filepath.Join(dir, "lzfharness.c")
	if err := os.WriteFile(main, []byte(harnessC), 0o644); err != nil {
		return nil, err
	}
	bin := filepath.Join(dir, "lzfharness")
	args := append(append([]string{}, cflags...), "-I", src, "-o", bin, main,
		filepath.Join(src, "lzf_c.c"), filepath.Join(src, "lzf_d.c"))
	if out, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("gcc %s: %w\n%s", strings.Join(args, " "), err, out)
	}
	return &Harness{bin: bin, Source: src, CFlags: cflags}, nil
}

// sourceDir is $RDBZ_REDIS_SRC, or its src/ when lzf_c.c is there.
func sourceDir() (string, error) {
	dir := os.Getenv(EnvSource)
	if dir == "" {
		return "", fmt.Errorf("%w: %s is not set (a Redis source tree, or the directory holding its lzf_c.c)", ErrUnavailable, EnvSource)
	}
	for _, d := range []string{dir, filepath.Join(dir, "src")} {
		if _, err := os.Stat(filepath.Join(d, "lzf_c.c")); err == nil {
			return d, nil
		}
	}
	return "", fmt.Errorf("%w: no lzf_c.c in %s=%s or its src/", ErrUnavailable, EnvSource, dir)
}

// Encode runs lzf_compress on each item's Raw with its Budget and returns
// the streams, nil where lzf_compress returned 0.
func (h *Harness) Encode(dir string, items []Item) ([][]byte, error) {
	return h.each(dir, items, "encode")
}

// Decode runs lzf_decompress on each item's Comp into an output of
// len(Raw) bytes (Raw's contents are not used) and returns what it wrote,
// nil where lzf_decompress returned 0 (a stream it refused).
func (h *Harness) Decode(dir string, items []Item) ([][]byte, error) {
	return h.each(dir, items, "decode")
}

// each runs the harness's encode or decode mode on items.
func (h *Harness) each(dir string, items []Item, mode string) ([][]byte, error) {
	s, err := h.Load(dir, items)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	out, err := s.run(mode)
	if err != nil {
		return nil, err
	}
	res := make([][]byte, 0, len(items))
	for range items {
		if len(out) < 4 || len(out) < 4+int(binary.LittleEndian.Uint32(out)) {
			return nil, fmt.Errorf("lzf harness: output truncated")
		}
		n := int(binary.LittleEndian.Uint32(out))
		var z []byte
		if n > 0 {
			z = out[4 : 4+n]
		}
		res = append(res, z)
		out = out[4+n:]
	}
	return res, nil
}

// Set is a set of items written out for the harness.
type Set struct {
	h       *Harness
	file    string
	checked bool
}

// Load writes items to a file in dir for the harness; Close removes it.
func (h *Harness) Load(dir string, items []Item) (*Set, error) {
	f, err := os.CreateTemp(dir, "lzf-items-")
	if err != nil {
		return nil, err
	}
	err = writeItems(f, items)
	if e := f.Close(); err == nil {
		err = e
	}
	if err != nil {
		os.Remove(f.Name())
		return nil, err
	}
	return &Set{h: h, file: f.Name()}, nil
}

// Close removes the set's file.
func (s *Set) Close() error { return os.Remove(s.file) }

// Time runs lzf_compress over every item's Raw (with its Budget) and
// lzf_decompress over every item's Comp, each pass rounds times, and
// returns the least CPU time (ThreadCPU) of a pass in each direction. The first call also
// checks that the C code gives back each item's Comp and Raw.
func (s *Set) Time(rounds int) (enc, dec time.Duration, err error) {
	mode := "time"
	if s.checked {
		mode = "time-nocheck"
	}
	out, err := s.run(mode, fmt.Sprint(rounds))
	if err != nil {
		return 0, 0, err
	}
	var encNs, decNs, bad int64
	if _, err := fmt.Sscan(string(out), &encNs, &decNs, &bad); err != nil {
		return 0, 0, fmt.Errorf("lzf harness: %q: %w", out, err)
	}
	if bad != 0 {
		return 0, 0, fmt.Errorf("lzf harness: %d strings do not give back their stream or their bytes", bad)
	}
	s.checked = true
	return time.Duration(encNs), time.Duration(decNs), nil
}

// run runs the harness on the set's file.
func (s *Set) run(mode string, args ...string) ([]byte, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(s.h.bin, append([]string{mode, s.file}, args...)...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("lzf harness %s: %w: %s", mode, err, stderr.String())
	}
	return stdout.Bytes(), nil
}

// writeItems writes the harness's input: per item, three little-endian
// uint32 (raw length, stream length, budget), then the raw bytes and the
// stream.
func writeItems(f *os.File, items []Item) error {
	var buf bytes.Buffer
	for _, it := range items {
		var head [12]byte
		binary.LittleEndian.PutUint32(head[0:], uint32(len(it.Raw)))
		binary.LittleEndian.PutUint32(head[4:], uint32(len(it.Comp)))
		binary.LittleEndian.PutUint32(head[8:], uint32(max(it.Budget, 0)))
		buf.Write(head[:])
		buf.Write(it.Raw)
		buf.Write(it.Comp)
		if buf.Len() >= 1<<20 {
			if _, err := f.Write(buf.Bytes()); err != nil {
				return err
			}
			buf.Reset()
		}
	}
	_, err := f.Write(buf.Bytes())
	return err
}

// ThreadCPU is the CPU time of the calling thread (lock the goroutine to
// it): on a machine shared with other work, a pass timed with it is not
// inflated by the time the thread waits for a core. The C harness times
// its passes the same way.
func ThreadCPU() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		panic(err) // Linux has had this clock since 2.6.12
	}
	return time.Duration(ts.Nano())
}
