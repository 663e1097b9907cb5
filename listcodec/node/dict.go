package node

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"os"

	"github.com/klauspost/compress/zstd"
)

// dictMagic starts every zstd dictionary in the standard format, little-endian.
const dictMagic = 0xEC30A437

// Dict is a zstd dictionary in the standard format: magic, ID, entropy
// tables and content, as written by "zstd --train" or zstd.BuildDict. Bytes
// is the whole dictionary and must not be modified once a Codec uses it.
type Dict struct {
	ID    uint32
	Bytes []byte
	// Source says where the dictionary came from, for messages: a file
	// path, or "embedded at offset N".
	Source string
}

// Sum is the checksum of the dictionary's bytes that format 1.1 files
// record (AUX rdbz-dict-sum): the first 16 bytes of their SHA-256, in hex.
func (d *Dict) Sum() string {
	h := sha256.Sum256(d.Bytes)
	return hex.EncodeToString(h[:16])
}

// ParseDict checks that b is a complete zstd dictionary in the standard
// format and returns it with its ID; b is kept, not copied. Raw-content
// dictionaries (arbitrary bytes without the magic) are refused: a frame can
// only name a dictionary that carries an ID.
func ParseDict(b []byte) (*Dict, error) {
	if len(b) < 8 {
		return nil, fmt.Errorf("%w: only %d bytes, too short for the header", ErrBadDict, len(b))
	}
	if magic := binary.LittleEndian.Uint32(b); magic != dictMagic {
		return nil, fmt.Errorf("%w: magic %#08x, want %#08x (raw-content dictionaries are not supported)", ErrBadDict, magic, uint32(dictMagic))
	}
	id := binary.LittleEndian.Uint32(b[4:])
	if id == 0 {
		return nil, fmt.Errorf("%w: ID 0 is reserved for \"no dictionary\"", ErrBadDict)
	}
	// Load the tables now, so that a damaged dictionary is reported here
	// rather than by the first Codec that uses it.
	if _, err := zstd.InspectDictionary(b); err != nil {
		return nil, fmt.Errorf("%w %d: %w", ErrBadDict, id, err)
	}
	return &Dict{ID: id, Bytes: b}, nil
}

// MaxDictFile is the largest dictionary file ReadDictFile reads (zstd
// dictionaries are kilobytes; --maxdict defaults to 110 KiB).
const MaxDictFile = 16 << 20

// ReadDictFile reads and parses the zstd dictionary in the file at path;
// a file over MaxDictFile bytes (or a device that never ends) is refused
// after reading at most that much.
func ReadDictFile(path string) (*Dict, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read zstd dictionary: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxDictFile+1))
	if err != nil {
		return nil, fmt.Errorf("read zstd dictionary %s: %w", path, err)
	}
	if len(b) > MaxDictFile {
		return nil, fmt.Errorf("%s: %w: more than %d bytes", path, ErrBadDict, MaxDictFile)
	}
	d, err := ParseDict(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	d.Source = path
	return d, nil
}
