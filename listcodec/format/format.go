// Package format holds the constants of the rdbz format (FORMAT.md): the
// names of its AUX fields and its versions, for the packages that write,
// read, recognise or report rdbz files (listcodec/v1, listcodec, rdbio/analyze,
// rdbio/convert). The 0xC4 node string encoding itself is a string
// encoding, rdbio's (rdbio.EncodingZstd, rdbio.ZstdFlagLZF).
package format

const (
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
	// Version is the value of AuxFormat that rdbz writes.
	Version = "1.1"
	// Version10 is the first format, which rdbz still reads: no
	// dictionary checksums, and a CRC64 trailer of 0 when the source's was.
	Version10 = "1"
)
