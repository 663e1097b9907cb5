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
	if src[0] != segVersion {
		return 0, fmt.Errorf("%w: version %d, this reader knows %d", ErrCorrupt, src[0], segVersion)
	}
	l, n := binary.Uvarint(src[1:])
	if n <= 0 || l == 0 || l > MaxSegment {
		return 0, fmt.Errorf("%w: T length unreadable or outside 1..%d", ErrCorrupt, MaxSegment)
	}
	return int(l), nil
}
