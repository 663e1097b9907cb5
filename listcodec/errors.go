package listcodec

import "errors"

// Errors of this package's own, for errors.Is; Compress and Decompress
// wrap those of format2, v1 (format 1), node and rdbio besides.
var (
	// ErrForm: ParseForm was given an unknown form name. (Its text says
	// "target", as `rdbz decompress --to` has always said.)
	ErrForm = errors.New("unknown target")
	// ErrOptions: options that cannot go together.
	ErrOptions = errors.New("invalid options")
)
