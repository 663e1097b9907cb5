package listcodec

import (
	"context"
	"io"

	"github.com/klauspost/compress/zstd"
	"github.com/rdbz/rdbz/listcodec/format2"
	"github.com/rdbz/rdbz/listcodec/node"
)

// CompressOptions configure Compress, which writes format 2. A zero field
// means format 2's default: package format2's (flow.DefaultWorkers for the
// workers).
type CompressOptions struct {
	// Flow says how the input is read (Cap, IgnoreChecksum), which keys
	// are kept (Keep) and how many goroutines compress (Workers). Its
	// QueueBytes is format 1's pipeline's: Compress does not use it.
	Flow
	// Dict is a dictionary to compress with, in format 2.1's zstd blocks;
	// nil writes format 2.2's column segments, which take none.
	Dict *node.Dict
	// Level is the zstd level; 0 lets format2 choose it (format2.Options).
	Level zstd.EncoderLevel
	// BlockSize is the most bytes of records in one block (0:
	// format2.ColumnsBlockSize, ColumnsBestBlockSize from BestLevel on, or
	// format2.DefaultBlockSize with a Dict).
	BlockSize int
	// DictSize, SampleBytes, TrainBytes and Seed are format2.Options':
	// how much T is held to choose the level on (TrainBytes), and how a
	// dictionary is trained on it.
	DictSize    int
	SampleBytes int64
	TrainBytes  int64
	Seed        int64
	// Phase, when set, is called as the work moves on: "reading" (the
	// part held to train on), "training", "compressing".
	Phase func(name string)
}

// Compress is CompressContext without cancellation.
func Compress(dst io.Writer, src io.Reader, opt CompressOptions) (*Stats, error) {
	return CompressContext(context.Background(), dst, src, opt)
}

// CompressContext writes src, an RDB, to dst in format 2 (FORMAT.md §2,
// package format2): every record, in compressed blocks with an index.
// Format 1 is package v1's alone (`rdbz compress --format 1`). Cancelling
// ctx stops it with ctx's error.
func CompressContext(ctx context.Context, dst io.Writer, src io.Reader, opt CompressOptions) (*Stats, error) {
	// The one place the options are mapped onto package format2's.
	flow := opt.Flow.WithDefaults()
	o := format2.Options{Level: opt.Level, BlockSize: opt.BlockSize, Workers: flow.Workers,
		Cap: flow.Cap, IgnoreChecksum: flow.IgnoreChecksum, Keep: flow.Keep,
		DictSize: opt.DictSize, SampleBytes: opt.SampleBytes, TrainBytes: opt.TrainBytes, Seed: opt.Seed,
		Phase: opt.Phase,
		// Column segments (2.2) take no dictionary: one given is for
		// format 2.1's zstd blocks.
		Columns: opt.Dict == nil}
	if opt.Dict != nil {
		o.Dict = opt.Dict.Bytes
	}
	fs, err := format2.Compress(ctx, dst, src, o)
	st := &Stats{BytesIn: fs.BytesIn, BytesOut: fs.BytesOut, DictID: fs.DictID, DictBytes: fs.DictBytes,
		Elapsed: fs.Elapsed, InputEnvelope: fs.Envelope, Format2: fs}
	return st, err
}
