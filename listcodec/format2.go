package listcodec

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/rdbz/rdbz/listcodec/block"
	"github.com/rdbz/rdbz/listcodec/format2"
	"github.com/rdbz/rdbz/listcodec/tstream"
)

// Format 2 (FORMAT.md §2, §3) is what Compress writes unless
// CompressOptions.Format1; Decompress tells the formats apart by their
// first bytes and reads both. This file maps the options of both onto
// package format2.

// ErrNoEmbedFormat2 reports --no-embed for format 2, whose header holds
// the dictionary itself (FORMAT.md §2.2 has no field naming an external one).
var ErrNoEmbedFormat2 = fmt.Errorf("%w: format 2 embeds its dictionary (an external dictionary cannot be named); write format 1 for --no-embed", ErrOptions)

// compress2 is Compress for format 2.
func compress2(ctx context.Context, dst io.Writer, src io.Reader, opt CompressOptions) (*Stats, error) {
	if opt.NoEmbed {
		return &Stats{}, ErrNoEmbedFormat2
	}
	o := format2.Options{Level: opt.Level, Workers: opt.Workers, Cap: opt.Cap, IgnoreChecksum: opt.IgnoreChecksum, Keep: opt.Keep,
		SampleBytes: opt.Train.SampleBytes, TrainBytes: opt.Train.TrainBytes,
		Phase: opt.Phase, BlockSize: opt.BlockSize,
		// Column segments (2.2) take no dictionary: one given is for
		// format 2.1's zstd blocks.
		Columns: opt.Dict == nil}
	if opt.Train.Seed != nil {
		o.Seed = *opt.Train.Seed
	}
	if opt.Train.DictSize != DefaultDictSize {
		o.DictSize = opt.Train.DictSize // the format-1 default is not format 2's
	}
	if opt.Dict != nil {
		o.Dict = opt.Dict.Bytes
	}
	fs, err := format2.Compress(ctx, dst, src, o)
	st := &Stats{BytesIn: fs.BytesIn, BytesOut: fs.BytesOut, DictID: fs.DictID, DictBytes: fs.DictBytes,
		Note: fs.Note, Elapsed: fs.Elapsed, Unfaithful: fs.T.Unfaithful, Format2: fs, InputEnvelope: fs.Envelope,
		Keys: fs.T.Keys, LeftOut: fs.T.LeftOut}
	return st, err
}

// decompress2 is Decompress for a format-2 input; the output is wrapped as
// the header's source record and opt.Envelope say.
func decompress2(ctx context.Context, out *wrapped, src io.Reader, opt DecompressOptions) (*Stats, error) {
	start := time.Now()
	flow := opt.Flow.withDefaults()
	to := tstream.TargetOriginal
	switch opt.To {
	case ToRaw:
		to = tstream.TargetRaw
	case ToLZF:
		to = tstream.TargetLZF
	}
	ds, err := format2.Decompress(ctx, out, src, format2.DecompressOptions{To: to, Workers: flow.Workers,
		Cap: flow.Cap, IgnoreChecksum: flow.IgnoreChecksum,
		Header: func(h block.Header) error { return out.start(opt, h.Source) }})
	st := &Stats{BytesIn: ds.BytesIn, BytesOut: ds.BytesOut, Format2Decompress: ds,
		Format: fmt.Sprintf("%d.%d", block.VersionMajor, ds.Header.Minor), DictID: ds.Header.DictID, DictBytes: len(ds.Header.Dict)}
	if err == nil {
		if err = out.close(st); err != nil && ds.Header.Source != nil {
			// What the envelope's writer refuses (a content size the RDB
			// does not have) is the source record's claim.
			err = &block.Error{Offset: 29 + int64(len(ds.Header.Dict)), What: "header: source record", Err: fmt.Errorf("%w: %v", block.ErrFormat, err)}
		}
	}
	st.Elapsed = time.Since(start)
	return st, err
}
