package v1

import "errors"

// Errors that Compress and Decompress wrap, for errors.Is, besides
// listcodec/node's (ErrUnknownDict, ErrBadDict). Node errors come as
// *rdbio.Error (with the node's offset and key) wrapping these, node's or
// rdbio's own.
var (
	// ErrWrongDict: a dictionary with the right ID whose bytes are not
	// those the file was compressed with (format 1.1 records a checksum).
	ErrWrongDict = errors.New("wrong zstd dictionary")
	// ErrAlreadyCompressed: Compress was given an rdbz-compressed file.
	ErrAlreadyCompressed = errors.New("input is already rdbz-compressed")
	// ErrFormatVersion: the file is of an rdbz format this package does
	// not read.
	ErrFormatVersion = errors.New("unknown rdbz format version")
	// ErrVerify: with CompressOptions.Verify, a compressed node did not
	// decode back to its input.
	ErrVerify = errors.New("compressed node does not decode back to its input")
)
