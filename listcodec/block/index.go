package block

import (
	"encoding/binary"
	"errors"
	"io"
	"math"
)

// BlockInfo is one block as the index describes it.
type BlockInfo struct {
	Offset  int64 // file offset of the block's zstd frame
	Size    int   // the frame's length in bytes
	TOffset int64 // offset in T of the block's first decoded byte
	TSize   int   // decoded length
	// First is the offset within the decoded block of the first record that
	// starts in it, -1 when the block lies inside one record.
	First int
	// Input is the input offset the writer was given for that record
	// (Writer.Begin), -1 when First is -1.
	Input int64
	// Keys is the number of distinct key hashes in the block's filter: the
	// keys of the records that start in the block.
	Keys int
	// State is the writer's state for the first key at or after First
	// (Options.State; rdbz: its db), -1 when First is -1 or the index is
	// format 2.0's, which has none.
	State int64

	p      uint   // the filter's Rice parameter; 0 matches every key
	filter []byte // 2.0: into the File's index buffer; 2.1: nil (the filter is in the sections)
}

// FilterP is the filter's Rice parameter (false positives ~2^-P); 0 when
// the block has no filter (it matches every key, or holds no key).
func (b BlockInfo) FilterP() int { return int(b.p) }

// appendEntry appends a block's index entry (FORMAT.md §2.4), with its
// filter when inline (format 2.0's index) or without (2.1's: the filters
// are in the sections).
func appendEntry(dst []byte, b BlockInfo, prevInput int64, inline bool) []byte {
	dst = binary.AppendUvarint(dst, uint64(b.Size))
	dst = binary.AppendUvarint(dst, uint64(b.TSize))
	dst = binary.AppendUvarint(dst, uint64(b.First+1))
	if b.First >= 0 {
		dst = binary.AppendUvarint(dst, uint64(b.Input-prevInput))
		if !inline {
			dst = binary.AppendUvarint(dst, uint64(max(b.State, 0)))
		}
	}
	dst = binary.AppendUvarint(dst, uint64(b.Keys))
	if b.Keys > 0 {
		dst = append(dst, byte(b.p))
		if inline {
			dst = binary.AppendUvarint(dst, uint64(len(b.filter)))
			dst = append(dst, b.filter...)
		}
	}
	return dst
}

// appendEntries appends the entries of blocks, in order.
func appendEntries(dst []byte, blocks []BlockInfo, inline bool) []byte {
	prev := int64(0)
	for _, b := range blocks {
		dst = appendEntry(dst, b, prev, inline)
		if b.First >= 0 {
			prev = b.Input
		}
	}
	return dst
}

// pairSum folds a block's frame length and decoded length into the running
// CRC-32C with which a streaming reader checks the index against the blocks
// it decoded, without holding either.
func pairSum(crc uint32, clen, dlen int) uint32 {
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:], uint64(clen))
	binary.LittleEndian.PutUint64(b[8:], uint64(dlen))
	return crc32Update(crc, b[:])
}

// byteSource reads the index payload one byte or a run at a time.
type byteSource interface {
	ReadByte() (byte, error)
	skip(n int) ([]byte, error) // the next n bytes (nil when the caller only skips)
	offset() int64              // file offset of the next byte
}

// readUvarint reads a uvarint no larger than max.
func readUvarint(s byteSource, what string, max uint64) (uint64, error) {
	off := s.offset()
	v, err := binary.ReadUvarint(s)
	if err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return 0, errAt(off, ErrTruncated, "index: %s", what)
		}
		return 0, errAt(off, ErrFormat, "index: %s: %v", what, err)
	}
	if v > max {
		return 0, errAt(off, ErrLimit, "index: %s %d over %d", what, v, max)
	}
	return v, nil
}

// readEntry reads one index entry, checking each field against its bound;
// an inline filter's bytes (format 2.0) come from s.skip. tOff and offsets
// are filled by the caller.
func readEntry(s byteSource, h *Header, prevInput int64, inline bool) (BlockInfo, error) {
	var b BlockInfo
	maxClen := uint64(h.maxFrame())
	off := s.offset()
	v, err := readUvarint(s, "frame length", maxClen)
	if err != nil {
		return b, err
	}
	if v < 9 { // the smallest frame rdbz accepts: magic, FHD, FCS, a block header, checksum
		return b, errAt(off, ErrFormat, "index: frame length %d", v)
	}
	b.Size = int(v)
	off = s.offset()
	if v, err = readUvarint(s, "decoded length", uint64(h.BlockSize)); err != nil {
		return b, err
	}
	if v == 0 {
		return b, errAt(off, ErrFormat, "index: decoded length 0")
	}
	b.TSize = int(v)
	if v, err = readUvarint(s, "first record", uint64(b.TSize)); err != nil {
		return b, err
	}
	b.First, b.Input, b.State = int(v)-1, -1, -1
	if b.First >= 0 {
		off = s.offset()
		if v, err = readUvarint(s, "input offset", math.MaxInt64); err != nil {
			return b, err
		}
		if uint64(prevInput) > math.MaxInt64-v {
			return b, errAt(off, ErrLimit, "index: input offset overflows")
		}
		b.Input = prevInput + int64(v)
		if !inline {
			if v, err = readUvarint(s, "state", math.MaxInt64); err != nil {
				return b, err
			}
			b.State = int64(v)
		}
	}
	// Every record is at least one byte: no more keys start in a block
	// than it has bytes.
	if v, err = readUvarint(s, "key count", uint64(b.TSize)); err != nil {
		return b, err
	}
	b.Keys = int(v)
	if b.Keys > 0 && b.First < 0 {
		return b, errAt(off, ErrFormat, "index: %d keys in a block where no record starts", b.Keys)
	}
	if b.Keys == 0 {
		return b, nil
	}
	off = s.offset()
	pb, err := s.ReadByte()
	if err != nil {
		return b, errAt(off, ErrTruncated, "index: filter parameter")
	}
	if pb > MaxFilterP {
		return b, errAt(off, ErrLimit, "index: filter parameter %d over %d", pb, MaxFilterP)
	}
	b.p = uint(pb)
	if !inline {
		return b, nil
	}
	off = s.offset()
	// A filter never needs more than n·(P+1) bits plus the quotients,
	// whose sum is below n·2^P/2^P = n: n·(P+2) bits.
	maxF := (uint64(b.Keys)*uint64(b.p+2) + 7) / 8
	if b.p == 0 {
		maxF = 0
	}
	if v, err = readUvarint(s, "filter length", maxF); err != nil {
		return b, err
	}
	f, err := s.skip(int(v))
	if err != nil {
		return b, errAt(off, ErrTruncated, "index: filter of %d bytes", v)
	}
	b.filter = f
	return b, nil
}
