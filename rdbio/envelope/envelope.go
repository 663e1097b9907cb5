// Package envelope reads and writes the envelope of Valkey's compressed RDB
// files (`rdbcompression lz4`, valkey PR #3531; docs/rdb-format.md §8):
// 8 bytes — "VKCS", a version (1), a codec (1 LZ4; 2 zstd, as proposed),
// flags (bit 0: the codec's checksum is on) and a stream kind (0: an RDB) —
// then one stream of that codec holding an ordinary RDB.
//
// It sits below the RDB grammar: Open gives the inner RDB of an enveloped
// input and any other input unchanged, and NewWriter wraps an RDB being
// written. It imports nothing of rdbz; LZ4 is github.com/pierrec/lz4/v4,
// zstd github.com/klauspost/compress/zstd.
package envelope

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
)

// Size is the length of the envelope header.
const Size = 8

// Magic is the envelope's first four bytes.
const Magic = "VKCS"

// Header fields rdbz knows.
const (
	Version1     = 1      // the only version
	KindRDB      = 0      // the stream holds an RDB
	FlagChecksum = 1 << 0 // the codec's checksum is on (Valkey: rdbchecksum yes)
	knownFlags   = FlagChecksum
)

// Codec is the compression of the stream after the header.
type Codec byte

// Codecs. 0 is the Codec of an input that has no envelope.
const (
	CodecLZ4  Codec = 1 // one LZ4 frame
	CodecZstd Codec = 2 // zstd frames (valkey PR #3798, not merged)
)

func (c Codec) String() string {
	switch c {
	case 0:
		return "none"
	case CodecLZ4:
		return "lz4"
	case CodecZstd:
		return "zstd"
	}
	return fmt.Sprintf("codec(%d)", byte(c))
}

// Errors. Every error about the content of an enveloped input is an *Error
// naming the file offset and wraps one of these.
var (
	// ErrCorrupt: the envelope or the compressed stream is damaged.
	ErrCorrupt = errors.New("corrupt VKCS file")
	// ErrTruncated: the file ends inside the envelope or the stream.
	ErrTruncated = errors.New("VKCS file ends early")
	// ErrUnsupported: a version, codec, flag, stream kind or LZ4 frame
	// feature rdbz does not know.
	ErrUnsupported = errors.New("unsupported VKCS file")
)

// Error is a problem at an offset of an enveloped file.
type Error struct {
	Offset int64  // byte offset in the file (envelope included)
	Inner  int64  // bytes of the inner RDB decoded before it; -1 in the headers
	What   string // what was being read
	Err    error  // wraps one of the Err* values
}

func (e *Error) Error() string {
	s := fmt.Sprintf("VKCS envelope: file offset %d", e.Offset)
	if e.Inner >= 0 {
		s += fmt.Sprintf(" (inner RDB offset %d)", e.Inner)
	}
	return s + ": " + e.What + ": " + e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }

// headerError is an *Error in the headers (no inner offset yet).
func headerError(off int64, sentinel error, format string, args ...any) error {
	return &Error{Offset: off, Inner: -1, What: fmt.Sprintf(format, args...), Err: sentinel}
}

// Info is what an envelope says. The zero Info is "no envelope".
type Info struct {
	Codec   Codec
	Version byte
	Flags   byte
	Kind    byte
	// LZ4 is the LZ4 frame's descriptor (Codec LZ4).
	LZ4 Frame
}

// Enveloped reports whether the input had an envelope.
func (i Info) Enveloped() bool { return i.Codec != 0 }

// Checksum reports the envelope's checksum flag.
func (i Info) Checksum() bool { return i.Flags&FlagChecksum != 0 }

// LZ4 is the envelope `rdbz decompress|convert --envelope lz4` writes:
// version 1, LZ4, the checksum flag on (as Valkey with rdbchecksum yes,
// its default) and a frame of independent 4 MiB blocks with block and
// content checksums.
func LZ4() Info {
	return Info{Codec: CodecLZ4, Version: Version1, Flags: FlagChecksum, Kind: KindRDB,
		LZ4: Frame{FLG: flgVersion1 | flgIndependent | flgBlockChecksum | flgContentChecksum, BD: 7 << 4}}
}

// header is the envelope's 8 bytes.
func (i Info) header() []byte {
	return []byte{Magic[0], Magic[1], Magic[2], Magic[3], i.Version, byte(i.Codec), i.Flags, i.Kind}
}

// String describes the envelope for people, e.g. "VKCS 1, lz4, checksum
// flag on; LZ4 frame: 4 MiB blocks, independent, block and content
// checksums".
func (i Info) String() string {
	if !i.Enveloped() {
		return "none"
	}
	flag := "off"
	if i.Checksum() {
		flag = "on"
	}
	s := fmt.Sprintf("VKCS %d, %s, checksum flag %s", i.Version, i.Codec, flag)
	if i.Codec == CodecLZ4 {
		s += "; LZ4 frame: " + i.LZ4.String()
	}
	return s
}

// parseHeader checks the envelope's 8 bytes.
func parseHeader(b []byte) (Info, error) {
	i := Info{Version: b[4], Codec: Codec(b[5]), Flags: b[6], Kind: b[7]}
	switch {
	case i.Version != Version1:
		return i, headerError(4, ErrUnsupported, "envelope version %d (rdbz reads %d)", i.Version, Version1)
	case i.Codec != CodecLZ4 && i.Codec != CodecZstd:
		return i, headerError(5, ErrUnsupported, "envelope codec %d (rdbz reads 1 lz4, 2 zstd)", b[5])
	case i.Flags&^knownFlags != 0:
		return i, headerError(6, ErrUnsupported, "envelope flags %#02x (rdbz knows bit 0, the checksum)", i.Flags)
	case i.Kind != KindRDB:
		return i, headerError(7, ErrUnsupported, "envelope stream kind %d (rdbz reads 0, an RDB)", i.Kind)
	}
	return i, nil
}

// Record is the envelope and what rdbz can reproduce of the LZ4 frame's
// descriptor, for an rdbz file to keep (FORMAT.md §2.2): the 8 header
// bytes, then for LZ4 the FLG and BD bytes and, when FLG says so, the
// content size (8 bytes little-endian).
func (i Info) Record() []byte {
	b := i.header()
	if i.Codec == CodecLZ4 {
		b = append(b, i.LZ4.FLG, i.LZ4.BD)
		if i.LZ4.HasContentSize() {
			b = binary.LittleEndian.AppendUint64(b, i.LZ4.ContentSize)
		}
	}
	return b
}

// ParseRecord reads what Record wrote.
func ParseRecord(b []byte) (Info, error) {
	if len(b) < Size || string(b[:4]) != Magic {
		return Info{}, fmt.Errorf("%w: envelope record of %d bytes without the VKCS magic", ErrCorrupt, len(b))
	}
	i, err := parseHeader(b[:Size])
	if err != nil {
		return i, err
	}
	rest := b[Size:]
	if i.Codec != CodecLZ4 {
		if len(rest) != 0 {
			return i, fmt.Errorf("%w: %d bytes after a %s envelope record", ErrCorrupt, len(rest), i.Codec)
		}
		return i, nil
	}
	if len(rest) < 2 {
		return i, fmt.Errorf("%w: LZ4 envelope record without its frame descriptor", ErrCorrupt)
	}
	i.LZ4 = Frame{FLG: rest[0], BD: rest[1]}
	if err := i.LZ4.check(); err != nil {
		return i, fmt.Errorf("envelope record: %w", err)
	}
	want := 2
	if i.LZ4.HasContentSize() {
		want += 8
	}
	if len(rest) != want {
		return i, fmt.Errorf("%w: LZ4 envelope record of %d bytes after the header, want %d", ErrCorrupt, len(rest), want)
	}
	if i.LZ4.HasContentSize() {
		i.LZ4.ContentSize = binary.LittleEndian.Uint64(rest[2:])
	}
	return i, nil
}

// LZ4 frame descriptor bits (the LZ4 frame format, FLG and BD bytes).
const (
	lz4Magic           = 0x184D2204
	flgVersionMask     = 0xC0
	flgVersion1        = 0x40
	flgIndependent     = 0x20
	flgBlockChecksum   = 0x10
	flgContentSize     = 0x08
	flgContentChecksum = 0x04
	flgReserved        = 0x02
	flgDictID          = 0x01
	bdReserved         = 0x8F
)

// Frame is an LZ4 frame's descriptor: its FLG and BD bytes and, when FLG
// says so, the content size.
type Frame struct {
	FLG, BD     byte
	ContentSize uint64
}

// BlockMax is the frame's largest block: 64 KiB, 256 KiB, 1 MiB or 4 MiB.
func (f Frame) BlockMax() int { return 64 << 10 << (2 * (int(f.BD>>4&7) - 4)) }

// Independent reports independent blocks (else each block may refer to
// the 64 KiB before it).
func (f Frame) Independent() bool { return f.FLG&flgIndependent != 0 }

// BlockChecksum reports a checksum after every block.
func (f Frame) BlockChecksum() bool { return f.FLG&flgBlockChecksum != 0 }

// ContentChecksum reports a checksum of the content at the frame's end.
func (f Frame) ContentChecksum() bool { return f.FLG&flgContentChecksum != 0 }

// HasContentSize reports the content size in the frame header.
func (f Frame) HasContentSize() bool { return f.FLG&flgContentSize != 0 }

// WithoutContentSize is the frame without the content size in its header
// (FLG bit 3 cleared): the frame of other content written alike.
func (f Frame) WithoutContentSize() Frame {
	f.FLG &^= flgContentSize
	f.ContentSize = 0
	return f
}

// String is e.g. "4 MiB blocks, independent, content checksum".
func (f Frame) String() string {
	parts := []string{fmt.Sprintf("%d KiB blocks", f.BlockMax()>>10)}
	if f.BlockMax() >= 1<<20 {
		parts[0] = fmt.Sprintf("%d MiB blocks", f.BlockMax()>>20)
	}
	if f.Independent() {
		parts = append(parts, "independent")
	} else {
		parts = append(parts, "linked")
	}
	if f.BlockChecksum() {
		parts = append(parts, "block checksums")
	}
	if f.ContentChecksum() {
		parts = append(parts, "content checksum")
	}
	if f.HasContentSize() {
		parts = append(parts, fmt.Sprintf("content size %d", f.ContentSize))
	}
	return strings.Join(parts, ", ")
}

// check refuses a descriptor rdbz cannot read; the error's offset is the
// FLG byte's in an enveloped file.
func (f Frame) check() error {
	const flgOff, bdOff = Size + 4, Size + 5
	switch {
	case f.FLG&flgVersionMask != flgVersion1:
		return headerError(flgOff, ErrUnsupported, "LZ4 frame version %d (want 1)", f.FLG>>6)
	case f.FLG&flgReserved != 0:
		return headerError(flgOff, ErrCorrupt, "LZ4 frame FLG %#02x: reserved bit set", f.FLG)
	case f.FLG&flgDictID != 0:
		return headerError(flgOff, ErrUnsupported, "LZ4 frame with a dictionary ID")
	case f.BD&bdReserved != 0:
		return headerError(bdOff, ErrCorrupt, "LZ4 frame BD %#02x: reserved bits set", f.BD)
	case f.BD>>4 < 4:
		return headerError(bdOff, ErrCorrupt, "LZ4 frame block size code %d (want 4 to 7)", f.BD>>4)
	}
	return nil
}
