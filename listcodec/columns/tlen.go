package columns

import (
	"encoding/binary"
	"fmt"
)

// TLen is the T length a compressed segment declares (its header's L),
// read without decoding it: what a container reads to check a segment
// against its index before decoding it. It checks the version and that L
// is at least 1.
func TLen(src []byte) (int, error) {
	if len(src) < 2 {
		return 0, fmt.Errorf("%w: a segment of %d bytes", ErrCorrupt, len(src))
	}
	if err := checkVersion(src[0]); err != nil {
		return 0, err
	}
	l, n := binary.Uvarint(src[1:])
	if n <= 0 || l == 0 || l > MaxSegment {
		return 0, fmt.Errorf("%w: T length unreadable or outside 1..%d", ErrCorrupt, MaxSegment)
	}
	return int(l), nil
}

// checkVersion refuses a segment version this reader does not know.
func checkVersion(v byte) error {
	if v != segVersion1 && v != segVersion {
		return fmt.Errorf("%w: version %d, this reader knows %d and %d", ErrCorrupt, v, segVersion1, segVersion)
	}
	return nil
}
