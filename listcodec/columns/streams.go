package columns

import (
	"errors"
	"hash/crc32"
)

// Streams. A segment's bytes are spread over streams, each named by an id:
// id = 8·role + part. Role 0 is the control role: its part 0 is the tape
// (the ops Join runs), its part 1 the skeleton (bytes copied as they are).
// Every other role has the parts nums (uvarints of integers), order
// (sorted roles, sort.go), data (string bytes), lens (uvarint lengths of
// those strings) and, in a compressed segment, the four parts of its
// strings as tokens (tokens.go), which stand for data and lens. Roles 1
// to firstDynamic−1 are fixed (below); the others are given out by a
// Splitter as it meets hash fields and key prefixes (roles.go).
const (
	MaxRoles   = 256
	partBits   = 3
	NumStreams = MaxRoles << partBits // stream ids are below this

	partNums  = 0
	partOrder = 1
	partData  = 2
	partLens  = 3
	partTmpl  = 4 // tokens: the templates
	partTNums = 5 // tokens: the numbers
	partTHex  = 6 // tokens: the hex runs' bytes
	partTLens = 7 // tokens: the strings' total length, then each template's length

	idTape = 0
	idSkel = 1
)

// Fixed roles.
const (
	roleKeys       = 1 + iota // keys of key records
	roleStrings               // string values whose key prefix has no role
	roleFields                // hash field names
	roleHashValues            // hash values whose field has no role
	roleSet                   // set members whose key prefix has no role
	roleList                  // list elements whose key prefix has no role
	roleZMember               // sorted set members
	roleZScore                // sorted set scores
	roleStreamID              // the node keys of stream values (entry IDs)
	roleStream                // the entries of stream listpacks
	roleIntset                // intset members, as deltas
	roleFieldTTL              // hash field expiries
	roleBulk                  // payloads kept as stored: LZF, 0xC4, pieces of records
	roleOther                 // strings of values of no other role
	firstDynamic   = 16
)

func streamID(role, part int) int { return role<<partBits | part }
func dataID(role int) int         { return streamID(role, partData) }
func lensID(role int) int         { return streamID(role, partLens) }
func numsID(role int) int         { return streamID(role, partNums) }
func orderID(role int) int        { return streamID(role, partOrder) }

// uvarintPart tells whether the streams of a part hold uvarints only.
func uvarintPart(part int) bool {
	switch part {
	case partLens, partNums, partOrder, partTNums, partTLens:
		return true
	}
	return false
}

// Limits a decoder checks before it allocates anything.
const (
	// MaxSegment bounds the T bytes of a segment (the writer's choice is
	// smaller: Options.SegmentSize).
	MaxSegment = 64 << 20
	// streamSlack: the streams of a segment hold at most 2·T + streamSlack
	// bytes in all (a Splitter that would need more stores the segment as
	// one skeleton: Segment.flatten).
	streamSlack = 4096
)

// Errors a Join or a Decode returns wrap one of these.
var (
	// ErrCorrupt: the segment is not well formed (a length past a stream's
	// end, an op that does not exist, bytes left over, ...).
	ErrCorrupt = errors.New("columns: corrupt segment")
	// ErrLimit: the segment declares more than the limits allow.
	ErrLimit = errors.New("columns: segment over the limits")
	// ErrChecksum: the T a segment gives back is not the one it was made from.
	ErrChecksum = errors.New("columns: segment checksum mismatch")
	// ErrDict: a stream names a dictionary the decoder was not given.
	ErrDict = errors.New("columns: dictionary")
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Segment is one segment split into its streams: what a Splitter fills,
// an Encoder compresses, a Decoder fills back and Join turns into T. Its
// buffers are kept across uses (Reset), so that a pipeline recycles a few
// Segments and allocates nothing per segment once they have grown.
type Segment struct {
	bufs [NumStreams][]byte
	tlen int    // T bytes the segment stands for
	sum  uint32 // CRC-32C of those bytes
	seq  int    // its number in the file (Splitter.Start), for the trials' Schedule
}

// Seq is the segment's number in its file, from 0 (Splitter.Start).
func (s *Segment) Seq() int { return s.seq }

// TLen is the number of T bytes the segment stands for.
func (s *Segment) TLen() int { return s.tlen }

// Sum is the CRC-32C (Castagnoli) of the segment's T.
func (s *Segment) Sum() uint32 { return s.sum }

// Stream is the content of stream id (nil when empty), valid until the
// segment is reset or refilled.
func (s *Segment) Stream(id int) []byte {
	if id < 0 || id >= NumStreams {
		return nil
	}
	return s.bufs[id]
}

// Reset empties the segment, keeping its buffers; but when they hold
// much more than the segment needed (the roles' shares shift from segment
// to segment, and each buffer keeps the largest it grew to), it drops
// those that grew past what they held, so that a recycled Segment stays
// within about 1.25 times a segment's bytes.
func (s *Segment) Reset() { s.reset(nil) }

// reset is Reset, giving each buffer it drops to drop (when not nil).
func (s *Segment) reset(drop func([]byte)) {
	used, held := 0, 0
	for _, b := range s.bufs {
		used += len(b)
		held += cap(b)
	}
	trim := held > used+used/4+(1<<20)
	for i, b := range s.bufs {
		if trim && cap(b) > len(b)+len(b)/4+(64<<10) {
			if drop != nil {
				drop(b)
			}
			s.bufs[i] = nil
			continue
		}
		s.bufs[i] = b[:0]
	}
	s.tlen, s.sum = 0, 0
}

// RawLen is the number of bytes of all the streams (the segment split,
// before compression).
func (s *Segment) RawLen() int {
	n := 0
	for _, b := range s.bufs {
		n += len(b)
	}
	return n
}
