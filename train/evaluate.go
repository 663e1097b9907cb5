package train

import (
	"errors"
	"fmt"

	"github.com/klauspost/compress/zstd"
)

// Stats is what a dictionary gives on a set of samples.
type Stats struct {
	Samples  int   // number of samples compressed
	Raw      int64 // their total size in bytes
	NoDict   int64 // total bytes of one frame per sample without a dictionary
	WithDict int64 // total bytes of one frame per sample with the dictionary
}

// Ratio returns Raw/WithDict (0 when nothing was compressed).
func (s Stats) Ratio() float64 {
	if s.WithDict == 0 {
		return 0
	}
	return float64(s.Raw) / float64(s.WithDict)
}

// Gain returns the fraction of the no-dictionary size the dictionary saves
// (negative when the dictionary makes things worse).
func (s Stats) Gain() float64 {
	if s.NoDict == 0 {
		return 0
	}
	return 1 - float64(s.WithDict)/float64(s.NoDict)
}

// Evaluate compresses each sample as its own zstd frame, once without and once
// with dict, at the given level, and sums the sizes. Frames are made by
// EncodeAll on one reused encoder per variant, without the optional 4-byte
// content checksum. A level of 0 means zstd.SpeedDefault.
func Evaluate(dict []byte, samples [][]byte, level zstd.EncoderLevel) (Stats, error) {
	if len(dict) == 0 {
		return Stats{}, errors.New("train: evaluate: empty dictionary")
	}
	if level == 0 {
		level = zstd.SpeedDefault
	}
	st := Stats{Samples: len(samples)}
	for _, s := range samples {
		st.Raw += int64(len(s))
	}
	var err error
	if st.NoDict, err = compressedSize(nil, samples, level); err != nil {
		return Stats{}, fmt.Errorf("train: evaluate without dictionary: %w", err)
	}
	if st.WithDict, err = compressedSize(dict, samples, level); err != nil {
		return Stats{}, fmt.Errorf("train: evaluate with dictionary: %w", err)
	}
	return st, nil
}

// EncoderWindow is the match window of the encoders that use rdbz's
// dictionaries: listcodec's Codec and the trainer's own, which must parse
// the samples as the Codec will. A node's frame never reaches further back
// than its dictionary and itself, so for nodes under 192 KiB the frames
// are those of the default 8 MiB window; a larger window would only cost
// memory (the encoder's history is twice the window, allocated again at
// each dictionary change: 385 MB of garbage per training with 8 MiB).
const EncoderWindow = 256 << 10

// newEncoder returns an encoder for EncodeAll with the dictionary loaded, or
// none when dict is nil.
func newEncoder(dict []byte, level zstd.EncoderLevel) (*zstd.Encoder, error) {
	opts := []zstd.EOption{
		zstd.WithEncoderLevel(level),
		zstd.WithEncoderConcurrency(1),
		zstd.WithEncoderCRC(false),
		zstd.WithWindowSize(EncoderWindow),
	}
	if dict != nil {
		opts = append(opts, zstd.WithEncoderDict(dict))
	}
	return zstd.NewWriter(nil, opts...)
}

// compressedSize returns the total size of one frame per sample.
func compressedSize(dict []byte, samples [][]byte, level zstd.EncoderLevel) (int64, error) {
	return sumFrames(dict, samples, level, false)
}

// storedSize is what the samples cost when each is stored either as one
// frame (plus a few bytes of prefix) or as it is, whichever is smaller: how
// a node-by-node compressor that keeps incompressible nodes pays.
func storedSize(dict []byte, samples [][]byte, level zstd.EncoderLevel) (int64, error) {
	return sumFrames(dict, samples, level, true)
}

// sumFrames compresses each sample as one frame and adds up the sizes;
// with keepSmaller a sample counts as itself when that is smaller than its
// frame plus a 4-byte prefix.
func sumFrames(dict []byte, samples [][]byte, level zstd.EncoderLevel, keepSmaller bool) (int64, error) {
	const prefix = 4
	enc, err := newEncoder(dict, level)
	if err != nil {
		return 0, err
	}
	defer enc.Close()
	var total int64
	var buf []byte
	for _, s := range samples {
		buf = enc.EncodeAll(s, buf[:0])
		n := len(buf)
		if keepSmaller {
			n = min(n+prefix, len(s))
		}
		total += int64(n)
	}
	return total, nil
}

// coder is one encoder reused for many dictionaries: building a zstd encoder
// allocates several MiB, switching its dictionary does not.
type coder struct {
	enc *zstd.Encoder
}

func newCoder(level zstd.EncoderLevel) (*coder, error) {
	enc, err := zstd.NewWriter(nil,
		zstd.WithEncoderLevel(level),
		zstd.WithEncoderConcurrency(1),
		zstd.WithEncoderCRC(false),
		zstd.WithWindowSize(EncoderWindow),
		zstd.WithEncoderDictRaw(MinID, make([]byte, minSampleLen)))
	if err != nil {
		return nil, err
	}
	return &coder{enc: enc}, nil
}

func (c *coder) close() { c.enc.Close() }

// useRaw makes content the encoder's raw-content dictionary.
func (c *coder) useRaw(content []byte) error {
	return c.enc.ResetWithOptions(nil, zstd.WithEncoderDictRaw(MinID, content))
}

// useDict makes dict the encoder's dictionary.
func (c *coder) useDict(dict []byte) error {
	return c.enc.ResetWithOptions(nil, zstd.WithEncoderDict(dict))
}

// size returns the total size of one frame per sample.
func (c *coder) size(samples [][]byte) int64 {
	var total int64
	var buf []byte
	for _, s := range samples {
		buf = c.enc.EncodeAll(s, buf[:0])
		total += int64(len(buf))
	}
	return total
}
