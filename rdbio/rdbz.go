package rdbio

// rdbz's node string encoding (FORMAT.md §A.1.3, allowed where §A.2 says), which rdbio reads and writes
// like Redis's own string encodings. The rest of the rdbz format (its AUX
// fields and versions) is listcodec/format's: rdbio does not use it.
const (
	// EncodingZstd is the special string encoding number of rdbz's zstd
	// node strings: the byte 0xC4 (Redis uses 0..3).
	EncodingZstd = 4
	// ZstdFlagLZF is flag bit 0 of an 0xC4 string: the source stored the
	// node LZF-compressed. No other flag bit is defined.
	ZstdFlagLZF = 0x01
	// EncodingT is the special string encoding number of the decoded LZF
	// strings of a T stream (format 2, FORMAT.md §3): the byte 0xC5, a
	// flags byte (0), the decoded length, the decoded bytes.
	EncodingT = 5
)
