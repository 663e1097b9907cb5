// Package node is rdbz's list node codec: one quicklist node string (a
// ziplist, listpack or PLAIN element, as decoded) into one zstd frame that
// names its dictionary by ID, and back (Codec), and the zstd dictionaries
// the frames name (Dict, ParseDict, ReadDictFile). FORMAT.md §A.1.2–A.1.3 says
// what a frame and a dictionary must be.
//
// It knows nothing of RDB files: the pipeline that finds nodes in a file and
// writes them back is listcodec/v1's, the grammar rdbio's (LZF nodes included).
package node

import "errors"

// Errors of the codec and the dictionaries, for errors.Is.
var (
	// ErrUnknownDict: a frame or the file names a dictionary that was not
	// given (an external one: pass it) or is not known.
	ErrUnknownDict = errors.New("unknown zstd dictionary")
	// ErrBadDict: bytes that are not a usable zstd dictionary.
	ErrBadDict = errors.New("not a usable zstd dictionary")
)
