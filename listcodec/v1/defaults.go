package v1

import (
	"github.com/klauspost/compress/zstd"
	"github.com/rdbz/rdbz/listcodec/flow"
	"github.com/rdbz/rdbz/rdbio"
	"github.com/rdbz/rdbz/train"
)

// Format 1's defaults (of Compress, Decompress, the what-if and `rdbz
// train`), in one place: the command line shows these, never values of its
// own. Format 2's are package format2's (and package flow's DefaultWorkers).
const (
	// DefaultLevel: with a dictionary, zstd's fastest level measured both
	// smaller and 2.5x faster than level 3 on list nodes.
	DefaultLevel = zstd.SpeedFastest
	// DefaultMinSaving is the share of a node's stored size that
	// compression must save for the node to be stored compressed.
	DefaultMinSaving = 0.02
	// NoMinSaving as CompressOptions.MinSaving stores a node compressed
	// whenever that saves a byte.
	NoMinSaving = -1.0
	// DefaultQueueBytes bounds the bytes in flight between the reader,
	// the workers and the writer.
	DefaultQueueBytes = 16 << 20
	// DefaultDictSize is the largest dictionary trained (it shrinks to a
	// tenth of the list data for small inputs).
	DefaultDictSize = train.DefaultDictSize
	// DefaultSampleBytes is how many node bytes are sampled uniformly over
	// a file to train on: 2 MiB came within 0.3% of 8 MiB on the generated
	// corpus, faster and in less memory.
	DefaultSampleBytes = 2 << 20
	// DefaultTrainBytes is how many node bytes a stream holds back before
	// training (Dragonfly's train state); the dictionary is trained on a
	// DefaultSampleBytes sample of them. What the first bytes hold decides
	// the dictionary: on the generated lists-events.rdb (25 MB, two huge
	// lists first) 8 MiB gave 6.4% larger output than file mode, 12 MiB
	// 1.2%, 16 MiB 0.8%; on the 197 MB lists-events dump 12 MiB was 0.2%
	// larger than 8 MiB and 16 MiB 1.8%. 12 MiB keeps stdin compress at
	// 59 MiB of peak RSS.
	DefaultTrainBytes = 12 << 20
	// DefaultTries is how many shuffle seeds training tries (train.Params).
	DefaultTries = 1
	// DefaultMinGain is the share of the sampled nodes' stored size a
	// trained dictionary must save, or the input is copied unchanged.
	DefaultMinGain = 0.05
)

// DefaultFlow returns the pipeline settings used when none are given.
func DefaultFlow() Flow {
	return Flow{Options: rdbio.Options{Cap: rdbio.DefaultCap}, Workers: flow.DefaultWorkers(), QueueBytes: DefaultQueueBytes}
}

// DefaultTrainOptions returns the training settings used when none are
// given: what the zero TrainOptions means, spelt out.
func DefaultTrainOptions() TrainOptions {
	seed := int64(train.DefaultSeed)
	return TrainOptions{DictSize: DefaultDictSize, SampleBytes: DefaultSampleBytes,
		TrainBytes: DefaultTrainBytes, Seed: &seed, Tries: DefaultTries, MinGain: DefaultMinGain}
}

// DefaultCompressOptions returns the options `rdbz compress` runs with when
// given no flags: what the zero CompressOptions means, spelt out.
func DefaultCompressOptions() CompressOptions {
	return CompressOptions{Flow: DefaultFlow(), Level: DefaultLevel, MinSaving: DefaultMinSaving,
		Train: DefaultTrainOptions()}
}
