package node

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/klauspost/compress/zstd"
	"github.com/rdbz/rdbz/train"
)

const (
	frameMagic     = 0xFD2FB528 // a zstd frame, little-endian
	skippableMagic = 0x184D2A50 // skippable frames: this with the low 4 bits free

	// encoderWindow caps the encoder's match window. Measured at Default
	// with a dictionary: 3.6 MB of heap per encoder instead of 11.7 MB
	// with the default 8 MiB window, identical frames for 8 KiB nodes,
	// and 1% smaller ones for a 1 MiB node (TestCodecHeap checks the heap).
	encoderWindow = train.EncoderWindow

	// maxDecoded bounds what the decoder will ever produce for one call;
	// each call is bounded more tightly by its ulen (WithDecodeAllCapLimit).
	maxDecoded = 1 << 32
)

// Codec compresses node strings into single zstd frames and back. It owns
// an encoder with the dictionary, an encoder without one, a decoder that
// knows every dictionary it was given, and scratch space, so that steady
// use allocates nothing. Create one per worker goroutine with NewCodec: a
// Codec is not safe for concurrent use. Several Codecs may share a Dict.
type Codec struct {
	dictEnc  *zstd.Encoder // nil when compressing without a dictionary
	plainEnc *zstd.Encoder
	dec      *zstd.Decoder
	dictIDs  []uint32 // dictionaries the decoder knows
	scratch  []byte   // holds the frame that did not win in Compress
}

// CodecOption changes how a Codec is made.
type CodecOption func(*codecConfig)

type codecConfig struct {
	frameChecksum bool
}

// WithFrameChecksum makes Compress write zstd's content checksum (4 bytes)
// in each frame: for files without a CRC64 trailer (RDB < 5), so that no
// damaged frame decodes silently. Decompress checks a frame's checksum
// whenever the frame has one.
func WithFrameChecksum(on bool) CodecOption {
	return func(c *codecConfig) { c.frameChecksum = on }
}

// NewCodec returns a Codec whose decoder knows dicts (and encDict) and whose
// Compress uses encDict, or no dictionary when encDict is nil, at the given
// level. Frames carry no checksum unless WithFrameChecksum: the caller
// stores and checks the decoded length, and the RDB file's CRC64 covers the
// frame bytes.
func NewCodec(dicts []*Dict, encDict *Dict, level zstd.EncoderLevel, options ...CodecOption) (_ *Codec, err error) {
	var cfg codecConfig
	for _, o := range options {
		o(&cfg)
	}
	all := dicts
	if encDict != nil {
		all = append(all[:len(all):len(all)], encDict)
	}
	c := &Codec{}
	raw, err := c.registerDicts(all)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			c.Close()
		}
	}()
	opts := []zstd.EOption{
		zstd.WithEncoderLevel(level),
		zstd.WithEncoderConcurrency(1),
		zstd.WithWindowSize(encoderWindow),
		zstd.WithEncoderCRC(cfg.frameChecksum),
		zstd.WithZeroFrames(true),
	}
	if c.plainEnc, err = zstd.NewWriter(nil, opts...); err != nil {
		return nil, fmt.Errorf("zstd encoder: %w", err)
	}
	if encDict != nil {
		c.dictEnc, err = zstd.NewWriter(nil, append(opts, zstd.WithEncoderDict(encDict.Bytes))...)
		if err != nil {
			return nil, fmt.Errorf("zstd encoder with dictionary %d: %w", encDict.ID, err)
		}
	}
	c.dec, err = zstd.NewReader(nil,
		zstd.WithDecoderConcurrency(1),
		zstd.WithDecoderDicts(raw...),
		zstd.WithDecoderMaxMemory(maxDecoded),
		zstd.WithDecodeAllCapLimit(true),
	)
	if err != nil {
		return nil, fmt.Errorf("zstd decoder: %w", err)
	}
	return c, nil
}

// registerDicts records the IDs of dicts, refusing a Dict whose ID is not
// the one in its bytes and two different dictionaries with one ID, and
// returns their bytes for the decoder.
func (c *Codec) registerDicts(dicts []*Dict) ([][]byte, error) {
	var raw [][]byte
	seen := make(map[uint32][]byte, len(dicts))
	for _, d := range dicts {
		if d == nil {
			return nil, errors.New("listcodec: nil dictionary")
		}
		if len(d.Bytes) < 8 || binary.LittleEndian.Uint32(d.Bytes[4:]) != d.ID {
			return nil, fmt.Errorf("listcodec: dictionary %d: its bytes do not carry that ID (use ParseDict)", d.ID)
		}
		if prev, ok := seen[d.ID]; ok {
			if string(prev) != string(d.Bytes) {
				return nil, fmt.Errorf("listcodec: two different dictionaries with ID %d", d.ID)
			}
			continue
		}
		seen[d.ID] = d.Bytes
		c.dictIDs = append(c.dictIDs, d.ID)
		raw = append(raw, d.Bytes)
	}
	return raw, nil
}

// Compress returns one zstd frame holding src, written into dst[:0]. The
// frame names the Codec's dictionary, or no dictionary when the Codec has
// none or when src is degenerate and compresses better without it (see
// plainWorthTrying).
func (c *Codec) Compress(dst, src []byte) []byte {
	if c.dictEnc == nil {
		return c.plainEnc.EncodeAll(src, dst[:0])
	}
	out := c.dictEnc.EncodeAll(src, dst[:0])
	if !plainWorthTrying(len(src), len(out)) {
		return out
	}
	c.scratch = c.plainEnc.EncodeAll(src, c.scratch[:0])
	if len(c.scratch) < len(out) {
		out = append(out[:0], c.scratch...)
	}
	if cap(c.scratch) > scratchKeep {
		c.scratch = nil // grown for a large node: not kept
	}
	return out
}

// scratchKeep is the largest scratch buffer a Codec keeps between nodes
// (as the pipeline's workers do), so that an idle Codec holds little.
const scratchKeep = 1 << 20

// plainTryRatio: Compress also tries without the dictionary when the
// dictionary frame is at most 1/plainTryRatio of the input.
const plainTryRatio = 16

// plainWorthTrying decides whether Compress should also encode src without
// the dictionary, given the size of the frame made with it.
//
// Measured with klauspost/compress v1.20.4 on 8 KiB nodes: where the
// dictionary does not help (random bytes, integers, prose, runs of one
// byte, repeated elements), the frame without it is smaller by exactly the
// 2 bytes of the dictionary ID field, never more; on nodes like the
// dictionary's samples the dictionary wins. Encoding twice would cost about
// 30% more CPU on every ordinary node to save at most 2 bytes. Degenerate
// nodes (ratio 16 and up) are where 2 bytes are a real share of a tiny frame,
// and they are cheap to encode, so only they get the second attempt.
func plainWorthTrying(srcLen, frameLen int) bool {
	return frameLen*plainTryRatio <= srcLen
}

// Decompress decodes one zstd frame into dst[:0], reusing dst's storage when
// its capacity is at least ulen. The frame must decode to exactly ulen bytes,
// and the decoder never produces more than that (plus at most one zstd block
// before it stops), whatever the frame claims. A frame naming a dictionary
// this Codec does not know gives an error wrapping ErrUnknownDict that
// names the ID.
func (c *Codec) Decompress(dst, frame []byte, ulen int) ([]byte, error) {
	if ulen < 0 {
		return nil, fmt.Errorf("zstd: negative decoded length %d", ulen)
	}
	id, err := FrameDictID(frame)
	if err != nil {
		return nil, err
	}
	if id != 0 && !c.knows(id) {
		return nil, fmt.Errorf("zstd frame needs dictionary ID %d, which is not loaded: %w", id, ErrUnknownDict)
	}
	out := dst[:0]
	if cap(out) < ulen {
		out = make([]byte, 0, ulen)
	}
	// Capping the capacity at ulen is what bounds the decoder.
	got, err := c.dec.DecodeAll(frame, out[:0:ulen])
	if err != nil {
		if errors.Is(err, zstd.ErrUnknownDictionary) { // a second frame; not ours
			return nil, fmt.Errorf("zstd frame data: %w (%w)", ErrUnknownDict, err)
		}
		if errors.Is(err, zstd.ErrDecoderSizeExceeded) {
			return nil, fmt.Errorf("zstd frame decodes to more than %d bytes: %w", ulen, err)
		}
		return nil, fmt.Errorf("zstd frame (dictionary %d): %w", id, err)
	}
	if len(got) != ulen {
		return nil, fmt.Errorf("zstd frame decodes to %d bytes, want %d", len(got), ulen)
	}
	if ulen > 0 && &got[0] != &out[:1][0] {
		return got, nil // not expected: the decoder moved to new storage
	}
	return out[:ulen], nil // same storage, with dst's full capacity
}

// Close releases the encoders and the decoder; the Codec must not be used
// afterwards.
func (c *Codec) Close() {
	for _, e := range []*zstd.Encoder{c.dictEnc, c.plainEnc} {
		if e != nil {
			e.Close()
		}
	}
	if c.dec != nil {
		c.dec.Close()
	}
}

// knows reports whether the decoder was given dictionary id.
func (c *Codec) knows(id uint32) bool {
	for _, k := range c.dictIDs {
		if k == id {
			return true
		}
	}
	return false
}

// FrameDictID returns the dictionary ID named in the header of the zstd
// frame at the start of frame, or 0 when the frame names none.
func FrameDictID(frame []byte) (uint32, error) {
	if len(frame) < 5 {
		return 0, fmt.Errorf("zstd frame header truncated: %d bytes", len(frame))
	}
	switch magic := binary.LittleEndian.Uint32(frame); {
	case magic&^0xF == skippableMagic:
		return 0, fmt.Errorf("skippable frame where a zstd frame was expected")
	case magic != frameMagic:
		return 0, fmt.Errorf("not a zstd frame: magic %#08x, want %#08x", magic, uint32(frameMagic))
	}
	// Frame header descriptor: bits 0-1 size of the dictionary ID field,
	// bit 3 reserved (must be 0), bit 5 single segment (no window byte).
	fhd := frame[4]
	if fhd&0x08 != 0 {
		return 0, fmt.Errorf("zstd frame header: reserved bit set")
	}
	p := 5
	if fhd&0x20 == 0 {
		p++ // window descriptor
	}
	size := [4]int{0, 1, 2, 4}[fhd&3]
	if len(frame) < p+size {
		return 0, fmt.Errorf("zstd frame header truncated: %d bytes", len(frame))
	}
	var id uint32
	for i := size - 1; i >= 0; i-- {
		id = id<<8 | uint32(frame[p+i])
	}
	return id, nil
}
