package rdbio

// The rdbz format (FORMAT.md): the one home of its constants. An rdbz file
// is an RDB file whose list nodes may be stored as zstd frames; rdbio reads
// and writes that string encoding like the others, and the AUX names below
// say which files carry it.
const (
	// EncodingZstd is the special string encoding number of rdbz's zstd
	// node strings: the byte 0xC4 (Redis uses 0..3).
	EncodingZstd = 4
	// ZstdFlagLZF is flag bit 0 of an 0xC4 string: the source stored the
	// node LZF-compressed. No other flag bit is defined.
	ZstdFlagLZF = 0x01
	// EncodingT is the special string encoding number of the decoded LZF
	// strings of a T stream (format 2, FORMAT.md §7): the byte 0xC5, a
	// flags byte (0), the decoded length, the decoded bytes.
	EncodingT = 5

	// AuxPrefix starts the name of every AUX field of the rdbz format.
	AuxPrefix = "rdbz-"
	// AuxFormat marks an rdbz file; its value is the format version.
	AuxFormat = "rdbz-format"
	// AuxDict holds one embedded zstd dictionary.
	AuxDict = "rdbz-dict"
	// AuxDictID names, in decimal, an external dictionary the file needs.
	AuxDictID = "rdbz-dict-id"
	// AuxDictSum records, after each AuxDict or AuxDictID, the checksum of
	// that dictionary's bytes: "ID:hex" (format 1.1).
	AuxDictSum = "rdbz-dict-sum"
	// AuxSourceCRC, just before the EOF opcode, says that the source's
	// CRC64 trailer was 0 (checksums disabled): value "0" (format 1.1).
	AuxSourceCRC = "rdbz-source-crc"
	// FormatVersion is the value of AuxFormat that rdbz writes.
	FormatVersion = "1.1"
	// FormatVersion10 is the first format, which rdbz still reads: no
	// dictionary checksums, and a CRC64 trailer of 0 when the source's was.
	FormatVersion10 = "1"
)
