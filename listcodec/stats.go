package listcodec

import (
	"time"

	"github.com/rdbz/rdbz/listcodec/format2"
	"github.com/rdbz/rdbz/listcodec/v1"
	"github.com/rdbz/rdbz/rdbio/envelope"
)

// Stats is what Compress or Decompress did.
type Stats struct {
	BytesIn, BytesOut int64
	DictID            uint32
	DictBytes         int
	// Format is the rdbz format version Decompress read ("1.1", "2.1",
	// ...; "" for an RDB).
	Format  string
	Elapsed time.Duration
	// Format2 is what Compress did (format 2: the keys it wrote and left
	// out, T.Keys and T.LeftOut, among the rest).
	Format2 *format2.Stats
	// Format2Decompress is what a Decompress of a format-2 file did (nil
	// otherwise).
	Format2Decompress *format2.DecompressStats
	// Format1 is what a Decompress of a format-1 file, or of an RDB, did
	// (package v1: its list node counts, its Note); nil otherwise.
	Format1 *v1.Stats
	// InputEnvelope is the VKCS envelope the input was in (read through;
	// a format-2 Compress records it), OutputEnvelope the one Decompress
	// wrote.
	InputEnvelope, OutputEnvelope envelope.Info
}
