package rdbio

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/rdbz/rdbz/rdbio/blob"
)

// Errors that callers may test for with errors.Is.
var (
	// ErrChecksum reports a CRC64 trailer that does not match the content.
	ErrChecksum = errors.New("checksum mismatch")
	// ErrTooLarge reports a string larger than the capture cap where rdbio
	// must hold it. It is blob.ErrTooLarge, so that one errors.Is covers a
	// value over the cap and a blob that would grow past it.
	ErrTooLarge = blob.ErrTooLarge
	// ErrUnsupported reports a type or opcode whose layout rdbio does not know.
	ErrUnsupported = errors.New("unsupported")
	// ErrCorrupt reports bytes that break the grammar. It is
	// blob.ErrCorrupt, so that one errors.Is covers a malformed file and a
	// malformed blob in it.
	ErrCorrupt = blob.ErrCorrupt
)

// Error is a problem found in an RDB stream. It names where (byte offset),
// what RDB version was being read and, when known, the key.
type Error struct {
	Offset  int64  // byte offset in the input where the problem was found
	Inner   bool   // Offset is in the RDB inside a VKCS envelope (Header.Envelope)
	Version int    // RDB version from the header (0 before it is known)
	Key     []byte // the key whose value was being read, or nil
	What    string // what was being read
	Err     error  // the cause
}

func (e *Error) Error() string {
	s := "rdb: offset "
	if e.Inner {
		s = "rdb: inner RDB offset "
	}
	s += strconv.FormatInt(e.Offset, 10)
	if e.Version > 0 {
		s += fmt.Sprintf(" (RDB %d)", e.Version)
	}
	if e.Key != nil {
		s += fmt.Sprintf(", key %s", QuoteKey(e.Key, 64))
	}
	return s + ": " + e.What + ": " + e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }
