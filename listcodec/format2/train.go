package format2

import (
	"encoding/binary"
	"fmt"

	"github.com/klauspost/compress/zstd"
	"github.com/rdbz/rdbz/train"
)

// sampler is a TSink that keeps a uniform sample of T for training: one
// sample per record, records over SampleChunk cut in pieces.
type sampler struct {
	s      *train.Sampler[[]byte]
	piece  []byte
	tBytes int64
}

func newSampler(opt Options) *sampler {
	return &sampler{s: train.NewSampler[[]byte](opt.SampleBytes, opt.Seed), piece: make([]byte, 0, SampleChunk)}
}

func (s *sampler) Begin(key []byte, input int64) error {
	s.flush()
	return nil
}

func (s *sampler) Write(p []byte) (int, error) {
	n := len(p)
	s.tBytes += int64(n)
	for len(p) > 0 {
		k := min(len(p), SampleChunk-len(s.piece))
		s.piece = append(s.piece, p[:k]...)
		p = p[k:]
		if len(s.piece) == SampleChunk {
			s.flush()
		}
	}
	return n, nil
}

func (s *sampler) flush() {
	if len(s.piece) > 0 {
		p := s.piece
		s.s.Add(int64(len(p)), func() []byte { return append([]byte(nil), p...) })
		s.piece = s.piece[:0]
	}
}

func (s *sampler) samples() [][]byte {
	s.flush()
	return s.s.Samples()
}

// buildDict trains a dictionary of at most opt.DictSize (and a tenth of
// T, at least 4 KiB) on the samples and keeps it only if it is measured to
// pay for its bytes in the header: blocks of the samples, compressed with
// and without it, scaled to all of T. nil: blocks without a dictionary.
func buildDict(samples [][]byte, tBytes int64, opt Options) []byte {
	size := int(max(min(int64(opt.DictSize), tBytes/10), 4<<10))
	opt.Level = min(opt.Level, EvalLevel) // see EvalLevel
	d, err := trainDict(samples, train.Params{DictSize: size, Seed: opt.Seed, Level: opt.Level, K: trainK, D: trainD})
	if err != nil || d == nil {
		return nil
	}
	with, without, sampled, err := gate(samples, d, opt)
	if err != nil || sampled == 0 {
		return nil
	}
	scale := float64(tBytes) / float64(sampled)
	if float64(with)*scale+float64(len(d)) >= float64(without)*scale {
		return nil
	}
	return d
}

// trainK and trainD fix the trainer's segment and d-mer sizes: searching
// them (train.Params with 0) took 1.4 s of the 1.7 s compress of
// app-cache-nocompress and gave outputs within 0.1% of these on
// app-cache, app-cache-nocompress, mixed-nocompress and lists-ints-small.
const trainK, trainD = 1024, 8

// trainDict runs the trainer; a failure (a panic included) means no
// dictionary.
func trainDict(samples [][]byte, p train.Params) (d []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			d, err = nil, fmt.Errorf("trainer failed: %v", r)
		}
	}()
	res, err := train.Train(samples, p)
	return res.Dict, err
}

// gate compresses the samples, concatenated into blocks, with and without
// the dictionary.
func gate(samples [][]byte, d []byte, opt Options) (with, without, sampled int64, err error) {
	ew, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(opt.Level), zstd.WithEncoderDict(d), zstd.WithEncoderConcurrency(1), zstd.WithWindowSize(windowFor(opt.BlockSize)))
	if err != nil {
		return 0, 0, 0, err
	}
	defer ew.Close()
	en, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(opt.Level), zstd.WithEncoderConcurrency(1), zstd.WithWindowSize(windowFor(opt.BlockSize)))
	if err != nil {
		return 0, 0, 0, err
	}
	defer en.Close()
	var blk, out []byte
	one := func() {
		out = ew.EncodeAll(blk, out[:0])
		with += int64(len(out))
		out = en.EncodeAll(blk, out[:0])
		without += int64(len(out))
		sampled += int64(len(blk))
		blk = blk[:0]
	}
	for _, s := range samples {
		blk = append(blk, s...)
		if len(blk) >= opt.BlockSize {
			one()
		}
	}
	if len(blk) > 0 {
		one()
	}
	return with, without, sampled, nil
}

func windowFor(blockSize int) int {
	w := zstd.MinWindowSize
	for w < blockSize {
		w <<= 1
	}
	return w
}

// checkDict checks that d is a complete zstd dictionary with an ID.
func checkDict(d []byte) error {
	if len(d) < 8 || binary.LittleEndian.Uint32(d) != 0xEC30A437 {
		return fmt.Errorf("%w: not a zstd dictionary", ErrDict)
	}
	if dictID(d) == 0 {
		return fmt.Errorf("%w: dictionary ID 0", ErrDict)
	}
	return nil
}

func dictID(d []byte) uint32 { return binary.LittleEndian.Uint32(d[4:]) }
