package convert

import (
	"context"
	"errors"
	"io"
	"time"
)

// ErrRefused is wrapped by the error of a conversion that meets something
// the target cannot hold and that the caller did not allow to drop.
var ErrRefused = errors.New("convert: refused")

// ErrTarget is wrapped by the error naming an unknown target.
var ErrTarget = errors.New("convert: unknown target")

// DecodeFunc copies an rdbz-compressed RDB stream from src to dst with its
// 0xC4 list nodes decoded into strings a stock server loads (listcodec's
// decompressor).
type DecodeFunc func(ctx context.Context, dst io.Writer, src io.Reader) error

// Options configure Convert.
type Options struct {
	// Target names the server the output is for (analyze.TargetNames).
	Target string
	// Drop names the kinds (Kinds) that may be dropped; any other kind
	// the target cannot hold refuses the conversion.
	Drop map[string]bool
	// DryRun reports everything that would be refused instead of stopping
	// at the first; the caller discards the output.
	DryRun bool
	// Cap bounds the bytes of one string held in memory (0: rdbio's).
	Cap int
	// IgnoreChecksum accepts an input whose CRC64 does not match.
	IgnoreChecksum bool
	// Decode, when set, decodes the list nodes of rdbz-compressed inputs.
	Decode DecodeFunc
	// Now is the time against which field expiries are judged (zero: the
	// clock's).
	Now time.Time
}
