package rdbiotest

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"testing"
	"time"
)

// importEnd is the ECHO that follows the commands Import sends: its reply
// is the last one.
const importEnd = "rdbiotest-import-end"

// JudgeImport is JudgeKeys for comparing a file with an import of its keys
// as commands (Import): stream-meta hashes XINFO STREAM FULL less what no
// command sets (the radix tree's size, consumers' seen and active times),
// and the function libraries are listed (Functions).
func JudgeImport(t testing.TB, bin, path string) (*Loaded, error) {
	t.Helper()
	bin = judgeBinary(t, bin)
	if _, err := Judge(t, bin, path); err != nil {
		return nil, err
	}
	s := judgeFor(bin)
	s.mu.Lock()
	defer s.mu.Unlock()
	sum, err := s.load(bin, path)
	if err != nil {
		t.Fatalf("reloading %s: %v", path, err)
	}
	return s.importLoaded(t, sum)
}

// Import empties the shared server of the build bin (its keys and
// functions), sends it the RESP commands write writes, as redis-cli
// --pipe would, and returns what it then holds as JudgeImport does for a
// file. An error reply fails the test, naming the first one and how many
// there were.
func Import(t testing.TB, bin string, write func(io.Writer) error) *Loaded {
	t.Helper()
	bin = judgeBinary(t, bin)
	s := judgeFor(bin)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		if err := s.start(bin); err != nil {
			t.Fatal(err)
		}
	}
	for _, cmd := range [][]string{{"FLUSHALL"}, {"FUNCTION", "FLUSH"}, {"SELECT", "0"}} {
		if _, err := s.do(time.Minute, cmd...); err != nil && !strings.Contains(err.Error(), "unknown command") {
			t.Fatal(err)
		}
	}
	replies := make(chan error, 1)
	go func() { replies <- s.readUntil(importEnd) }()
	s.conn.SetDeadline(time.Now().Add(10 * time.Minute))
	werr := write(s.rw.Writer)
	WriteCommand(s.rw.Writer, []byte("ECHO"), []byte(importEnd))
	if err := errors.Join(werr, s.rw.Flush()); err != nil {
		t.Fatalf("sending the commands: %v", err)
	}
	if err := <-replies; err != nil {
		t.Fatalf("import: %v", err)
	}
	sum, err := s.summary()
	if err != nil {
		t.Fatal(err)
	}
	l, err := s.importLoaded(t, sum)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// readUntil reads replies until the bulk reply end, and returns the first
// error reply with the count of them.
func (s *sharedServer) readUntil(end string) error {
	var first error
	n := 0
	for {
		var out []string
		err := s.readReply(&out)
		var re redisError
		switch {
		case errors.As(err, &re):
			if n++; first == nil {
				first = err
			}
		case err != nil:
			return err
		case len(out) == 1 && out[0] == end:
			if first != nil {
				return fmt.Errorf("%d error replies, the first %w", n, first)
			}
			return nil
		}
	}
}

// importLoaded lists the keys and functions the server holds, with its
// summary sum.
func (s *sharedServer) importLoaded(t testing.TB, sum string) (*Loaded, error) {
	l, err := s.listKeys(sum, importInfo)
	if err != nil {
		return nil, err
	}
	l.Functions, err = s.doArray(time.Minute, "FUNCTION", "LIST", "WITHCODE")
	if err != nil && strings.Contains(err.Error(), "unknown command") {
		err = nil
	}
	sort.Strings(l.Functions) // libraries come in no set order
	return l, err
}
