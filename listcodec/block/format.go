package block

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
)

// Format constants (FORMAT.md §2).
const (
	VersionMajor = 2 // the format's major version; a reader refuses others
	VersionMinor = 1 // 2.1: the partitioned index (FORMAT.md §2.6)
	// ColumnsMinor is the minor version of a file whose blocks are column
	// segments (2.2, header flag bit 1).
	ColumnsMinor = 2

	headerMagic    = 0x184D2A50 // skippable frame holding the header and dictionary
	indexMagic     = 0x184D2A5E // skippable frame holding the index and footer
	zstdMagic      = 0xFD2FB528 // a zstd frame: one block
	segMagic       = 0x184D2A51 // skippable frame holding one block as a column segment (2.2)
	skippableMask  = 0xFFFFFFF0 // skippable frames: 0x184D2A50..0x184D2A5F
	skippableBase  = 0x184D2A50 //
	headerTag      = "RDBZ"     // first bytes of the header payload
	indexTag       = "RZIP"     // first bytes of the index payload: the partitioned index (2.1)
	indexTag20     = "RZIX"     // the index of format 2.0, filters inline
	footerMagic    = "RZ2\xff"  // last 4 bytes of the file
	headerFixed    = 20         // header payload before the dictionary
	flagSource     = 1 << 0     // header flag: a source record follows the dictionary
	flagColumns    = 1 << 1     // header flag: the blocks are column segments (2.2)
	footerLen      = 16         // CRC-32C, index offset, magic
	dictMagic      = 0xEC30A437 // a zstd dictionary
	zstdBlockMax   = 128 << 10  // zstd's largest block content
	frameHeaderMax = 18         // zstd's largest frame header

	// MinBlockSize and MaxBlockSize bound the header's block size.
	MinBlockSize = 1 << 10
	MaxBlockSize = 8 << 20
	// MaxDictSize bounds the embedded dictionary.
	MaxDictSize = 4 << 20
	// MaxSourceLen bounds the header's source record (Header.Source).
	MaxSourceLen = 255
	// MaxIndexSize bounds the index a reader loads (File) or walks
	// (Reader); a Writer whose index would outgrow it leaves the filters
	// of further blocks out (they then match every key).
	MaxIndexSize = 256 << 20
	// MaxFilterP bounds a filter's Rice parameter (false positives about
	// 2^-P).
	MaxFilterP = 24
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func crc32c(p []byte) uint32 { return crc32.Checksum(p, castagnoli) }

func crc32Update(crc uint32, p []byte) uint32 { return crc32.Update(crc, castagnoli, p) }

// Errors. Every error a Reader or File returns about the file's content
// wraps one of these and is an *Error naming the byte offset.
var (
	ErrFormat     = errors.New("not a valid rdbz format-2 file")
	ErrTruncated  = errors.New("file ends early")
	ErrChecksum   = errors.New("checksum mismatch")
	ErrDictionary = errors.New("dictionary mismatch")
	ErrLimit      = errors.New("length over its bound")
	ErrVersion    = errors.New("unsupported format version")
	// ErrUsage is returned for calls out of order (Write after Close, an
	// empty record, a block index out of range).
	ErrUsage = errors.New("misuse")
)

// Error is a problem at a byte offset of the file.
type Error struct {
	Offset int64  // byte offset in the file where the problem was found
	What   string // what was being read
	Err    error  // one of the Err* values, possibly wrapping a cause
}

func (e *Error) Error() string {
	return fmt.Sprintf("rdbz format 2: at byte %d: %s: %v", e.Offset, e.What, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

func errAt(off int64, sentinel error, format string, args ...any) error {
	return &Error{Offset: off, What: fmt.Sprintf(format, args...), Err: sentinel}
}

// wrapAt wraps a cause below a sentinel, so that errors.Is sees both.
func wrapAt(off int64, sentinel, cause error, what string) error {
	return &Error{Offset: off, What: what, Err: fmt.Errorf("%w: %w", sentinel, cause)}
}

// Header is what the file's first frame says.
type Header struct {
	Minor     int    // minor version
	BlockSize int    // largest decoded block
	DictID    uint32 // 0: blocks use no dictionary
	Dict      []byte // the dictionary (nil when DictID is 0)
	// Source is the header's source record (flag bit 0; nil for none): for
	// rdbz, the VKCS envelope the input was in (rdbio/envelope's Record).
	Source []byte
	// Columns says the blocks are column segments (flag bit 1, format 2.2:
	// listcodec/columns), each in a skippable frame, without a dictionary.
	Columns bool
}

// maxFrame bounds the length of one block's frame: a zstd frame
// (maxFrameLen), or a segment's skippable frame (maxSegFrame).
func (h *Header) maxFrame() int {
	if h.Columns {
		return maxSegFrame(h.BlockSize)
	}
	return maxFrameLen(h.BlockSize)
}

// maxSegFrame bounds the frame of a column segment of at most blockSize
// bytes of T: its streams' raw bytes (at most twice the T, and a little),
// stored or in zstd frames hardly larger than what they hold, the
// segment's header, the frame's 8 bytes. The Writer checks every frame
// against it.
func maxSegFrame(blockSize int) int {
	return 8 + 3*blockSize + 64<<10
}

// appendHeader appends the header frame.
func appendHeader(dst []byte, h Header) []byte {
	payload := headerFixed + len(h.Dict) + 4
	var flags uint16
	if h.Source != nil {
		payload += 1 + len(h.Source)
		flags |= flagSource
	}
	if h.Columns {
		flags |= flagColumns
	}
	dst = binary.LittleEndian.AppendUint32(dst, headerMagic)
	dst = binary.LittleEndian.AppendUint32(dst, uint32(payload))
	start := len(dst)
	dst = append(dst, headerTag...)
	dst = append(dst, VersionMajor, byte(h.Minor))
	dst = binary.LittleEndian.AppendUint16(dst, flags)
	dst = binary.LittleEndian.AppendUint32(dst, uint32(h.BlockSize))
	dst = binary.LittleEndian.AppendUint32(dst, h.DictID)
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(h.Dict)))
	dst = append(dst, h.Dict...)
	if h.Source != nil {
		dst = append(dst, byte(len(h.Source)))
		dst = append(dst, h.Source...)
	}
	return binary.LittleEndian.AppendUint32(dst, crc32c(dst[start:]))
}

// parseHeaderFixed checks the first 8+headerFixed bytes of the file and
// returns the header (without its dictionary) and the payload size.
func parseHeaderFixed(b []byte) (Header, int, error) {
	var h Header
	if binary.LittleEndian.Uint32(b) != headerMagic {
		return h, 0, errAt(0, ErrFormat, "header: magic %#x, want %#x", binary.LittleEndian.Uint32(b), uint32(headerMagic))
	}
	size := binary.LittleEndian.Uint32(b[4:])
	p := b[8:]
	if string(p[:4]) != headerTag {
		return h, 0, errAt(8, ErrFormat, "header: tag %q, want %q", p[:4], headerTag)
	}
	if p[4] != VersionMajor {
		return h, 0, errAt(12, ErrVersion, "header: major version %d (this reader reads %d)", p[4], VersionMajor)
	}
	h.Minor = int(p[5])
	flags := binary.LittleEndian.Uint16(p[6:])
	if flags&^(flagSource|flagColumns) != 0 {
		return h, 0, errAt(14, ErrVersion, "header: flags %#x (only bits 0, a source record, and 1, column segments, are defined)", flags)
	}
	h.Columns = flags&flagColumns != 0
	bs := binary.LittleEndian.Uint32(p[8:])
	if bs < MinBlockSize || bs > MaxBlockSize {
		return h, 0, errAt(16, ErrLimit, "header: block size %d outside %d..%d", bs, MinBlockSize, MaxBlockSize)
	}
	h.BlockSize = int(bs)
	h.DictID = binary.LittleEndian.Uint32(p[12:])
	dl := binary.LittleEndian.Uint32(p[16:])
	if dl > MaxDictSize {
		return h, 0, errAt(24, ErrLimit, "header: dictionary length %d over %d", dl, MaxDictSize)
	}
	if (h.DictID == 0) != (dl == 0) {
		return h, 0, errAt(20, ErrDictionary, "header: dictionary ID %d with a dictionary of %d bytes", h.DictID, dl)
	}
	if h.Columns && dl != 0 {
		return h, 0, errAt(20, ErrDictionary, "header: column segments with a dictionary of %d bytes (they take none)", dl)
	}
	want := headerFixed + uint64(dl) + 4
	switch {
	case flags&flagSource == 0 && uint64(size) != want:
		return h, 0, errAt(4, ErrFormat, "header: frame size %d, want %d for a %d-byte dictionary", size, want, dl)
	case flags&flagSource != 0 && (uint64(size) < want+1 || uint64(size) > want+1+MaxSourceLen):
		return h, 0, errAt(4, ErrFormat, "header: frame size %d, want %d to %d for a %d-byte dictionary and a source record", size, want+1, want+1+MaxSourceLen, dl)
	}
	if flags&flagSource != 0 {
		h.Source = []byte{} // read by checkHeaderRest
	}
	return h, int(size), nil
}

// checkHeaderRest checks the dictionary, the source record and the CRC of
// a header payload (payload: the whole payload; h from parseHeaderFixed)
// and sets h.Dict and h.Source.
func checkHeaderRest(payload []byte, h *Header) error {
	n := len(payload) - 4
	if got, want := crc32c(payload[:n]), binary.LittleEndian.Uint32(payload[n:]); got != want {
		return errAt(8+int64(n), ErrChecksum, "header: CRC-32C %#08x, stored %#08x", got, want)
	}
	end := headerFixed + int(binary.LittleEndian.Uint32(payload[16:])) // parseHeaderFixed bounded it by n
	if h.Source != nil {
		if l := int(payload[end]); end+1+l != n {
			return errAt(8+int64(end), ErrFormat, "header: source record of %d bytes in %d", l, n-end-1)
		}
		h.Source = payload[end+1 : n]
	}
	d := payload[headerFixed:end]
	if len(d) > 0 {
		if len(d) < 8 || binary.LittleEndian.Uint32(d) != dictMagic {
			return errAt(8+headerFixed, ErrDictionary, "dictionary: not a zstd dictionary (magic)")
		}
		if id := binary.LittleEndian.Uint32(d[4:]); id != h.DictID {
			return errAt(8+headerFixed+4, ErrDictionary, "dictionary: ID %d, header says %d", id, h.DictID)
		}
		h.Dict = d
	}
	return nil
}

// maxFrameLen bounds the compressed length of a frame decoding to at most
// blockSize bytes: a frame header, the content stored raw in zstd blocks
// averaging at least 1 KiB (3-byte headers), and the checksum. Encoders
// store a block raw when compression would grow it (klauspost's cuts 64 KiB
// zstd blocks at its fastest level, 128 KiB at the others); the Writer
// checks every frame against it.
func maxFrameLen(blockSize int) int {
	return frameHeaderMax + blockSize + 3*(blockSize/1024+1) + 4
}

// frameInfo is what rdbz reads from a block frame's header.
type frameInfo struct {
	headerLen   int
	contentSize int
	dictID      uint32
}

// parseFrameHeader parses a zstd frame header at the start of b (which
// holds at least the frame header, or all of the frame) and checks it
// against the file's rules: content size present and in 1..blockSize,
// checksum flag set, dictionary ID as the header says. off is b's offset in
// the file, for errors.
func parseFrameHeader(b []byte, off int64, h *Header) (frameInfo, error) {
	var fi frameInfo
	if len(b) < 6 {
		return fi, errAt(off, ErrTruncated, "block frame header")
	}
	if m := binary.LittleEndian.Uint32(b); m != zstdMagic {
		return fi, errAt(off, ErrFormat, "block: magic %#x is not a zstd frame", m)
	}
	fhd := b[4]
	fcsFlag := fhd >> 6
	single := fhd&0x20 != 0
	if fhd&0x18 != 0 {
		// The unused bit too: no decoder reads it, so a flip of it would
		// change the file and nothing it decodes to.
		return fi, errAt(off+4, ErrFormat, "block: frame header's reserved or unused bit set")
	}
	if fhd&0x04 == 0 {
		return fi, errAt(off+4, ErrFormat, "block: frame has no content checksum")
	}
	didLen := [4]int{0, 1, 2, 4}[fhd&3]
	fcsLen := [4]int{0, 2, 4, 8}[fcsFlag]
	if fcsFlag == 0 && single {
		fcsLen = 1
	}
	if fcsLen == 0 {
		return fi, errAt(off+4, ErrFormat, "block: frame has no content size")
	}
	n := 5
	if !single {
		n++ // window descriptor: the content size bounds the decoder's memory
	}
	need := n + didLen + fcsLen
	if len(b) < need {
		return fi, errAt(off, ErrTruncated, "block frame header")
	}
	var id uint32
	switch didLen {
	case 1:
		id = uint32(b[n])
	case 2:
		id = uint32(binary.LittleEndian.Uint16(b[n:]))
	case 4:
		id = binary.LittleEndian.Uint32(b[n:])
	}
	if id != h.DictID {
		return fi, errAt(off+int64(n), ErrDictionary, "block: frame names dictionary %d, the file's is %d", id, h.DictID)
	}
	n += didLen
	var cs uint64
	switch fcsLen {
	case 1:
		cs = uint64(b[n])
	case 2:
		cs = uint64(binary.LittleEndian.Uint16(b[n:])) + 256
	case 4:
		cs = uint64(binary.LittleEndian.Uint32(b[n:]))
	case 8:
		cs = binary.LittleEndian.Uint64(b[n:])
	}
	if cs == 0 || cs > uint64(h.BlockSize) {
		return fi, errAt(off+int64(n), ErrLimit, "block: content size %d outside 1..%d", cs, h.BlockSize)
	}
	n += fcsLen
	return frameInfo{headerLen: n, contentSize: int(cs), dictID: id}, nil
}

// frameLen walks the zstd block headers of a frame whose header is
// fi.headerLen bytes, reading through next(n), which returns the next n
// bytes of the frame (it may read them from a stream), and returns the
// frame's total length. It refuses a frame longer than limit.
func frameLen(fi frameInfo, limit int, next func(n int) ([]byte, error)) (int, error) {
	n := fi.headerLen
	for {
		bh, err := next(3)
		if err != nil {
			return n, err
		}
		v := uint32(bh[0]) | uint32(bh[1])<<8 | uint32(bh[2])<<16
		last := v&1 != 0
		size := int(v >> 3)
		var body int
		switch (v >> 1) & 3 {
		case 0: // raw
			body = size
		case 1: // RLE
			body = 1
		case 2: // compressed
			body = size
		default:
			return n, errFrame(n, "zstd block type 3 (reserved)")
		}
		if size > zstdBlockMax || size > fi.contentSize && (v>>1)&3 != 2 {
			return n, errFrame(n, fmt.Sprintf("zstd block of %d bytes in a frame of %d", size, fi.contentSize))
		}
		n += 3
		if n+body > limit {
			return n, errFrame(n, fmt.Sprintf("frame longer than %d bytes", limit))
		}
		if _, err := next(body); err != nil {
			return n, err
		}
		n += body
		if last {
			break
		}
	}
	if _, err := next(4); err != nil {
		return n, err
	}
	return n + 4, nil
}

// frameError is a frame walk problem at an offset within the frame.
type frameError struct {
	at  int
	msg string
}

func (e *frameError) Error() string { return e.msg }

func errFrame(at int, msg string) error { return &frameError{at, msg} }
