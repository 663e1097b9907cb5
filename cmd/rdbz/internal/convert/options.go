package convert

import (
	"errors"
	"time"

	"github.com/rdbz/rdbz/rdbio"
	"github.com/rdbz/rdbz/rdbio/envelope"
)

// ErrRefused is wrapped by the error of a conversion that meets something
// the target cannot hold and that the caller did not allow to drop.
var ErrRefused = errors.New("convert: refused")

// ErrTarget is wrapped by the error naming an unknown target.
var ErrTarget = errors.New("convert: unknown target")

// ErrEnvelope is wrapped by the error of an Options.Envelope the target
// does not load.
var ErrEnvelope = errors.New("convert: the target does not load a VKCS envelope")

// Options configure Convert. A zero field means its default; Target has
// none and must be given.
type Options struct {
	// Options say how the input is read: Cap bounds the bytes of one
	// string held in memory (0: rdbio.DefaultCap); IgnoreChecksum accepts
	// an input whose CRC64 does not match.
	rdbio.Options
	// Keep, when set, selects the keys converted (rdbio.Filter); nil
	// converts every key.
	Keep func(*rdbio.Record) bool
	// Target names the server the output is for (servers.Names).
	Target string
	// Drop names the kinds (Kinds) that may be dropped; any other kind
	// the target cannot hold refuses the conversion (none: nothing is
	// dropped).
	Drop map[string]bool
	// DryRun reports everything that would be refused instead of stopping
	// at the first; the caller discards the output (false: convert).
	DryRun bool
	// Now is the time against which field expiries are judged (zero: the
	// clock's).
	Now time.Time
	// Envelope, when set (envelope.LZ4()), wraps the output in a VKCS
	// envelope, for a target that loads one (servers.Server.ReadsEnvelope).
	// The input's envelope, if any, is read through and not kept.
	Envelope envelope.Info
}
