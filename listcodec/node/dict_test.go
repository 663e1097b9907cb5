package node

import (
	"errors"
	"testing"
)

// TestReadDictFileBounded: a dictionary file that never ends is refused
// after MaxDictFile bytes.
func TestReadDictFileBounded(t *testing.T) {
	if _, err := ReadDictFile("/dev/zero"); !errors.Is(err, ErrBadDict) {
		t.Fatalf("ReadDictFile(/dev/zero) = %v, want ErrBadDict", err)
	}
}
