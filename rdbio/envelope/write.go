package envelope

import (
	"fmt"
	"io"

	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// NewWriter writes the envelope i describes to w and returns the writer of
// the RDB it holds; Close ends the stream (it does not close w). For LZ4 it
// writes one frame with i.LZ4's block size, block and content checksums
// and, when set, content size (the RDB written must then have exactly that
// many bytes, or Close fails), in independent blocks compressed as the
// reference library's LZ4_compress_fast (pierrec/lz4's CCompatFast); for
// zstd one frame with a checksum when i's checksum flag is on.
func NewWriter(w io.Writer, i Info) (io.WriteCloser, error) {
	if _, err := parseHeader(i.header()); err != nil {
		return nil, err
	}
	if i.Codec == CodecLZ4 {
		if err := i.LZ4.check(); err != nil {
			return nil, err
		}
	}
	if _, err := w.Write(i.header()); err != nil {
		return nil, fmt.Errorf("write VKCS envelope: %w", err)
	}
	if i.Codec == CodecZstd {
		return zstd.NewWriter(w, zstd.WithEncoderConcurrency(1), zstd.WithEncoderCRC(i.Checksum()))
	}
	zw := lz4.NewWriter(w)
	opts := []lz4.Option{
		lz4.BlockSizeOption(lz4.BlockSize(i.LZ4.BlockMax())),
		lz4.BlockChecksumOption(i.LZ4.BlockChecksum()),
		lz4.ChecksumOption(i.LZ4.ContentChecksum()),
		lz4.CompressionLevelOption(lz4.CCompatFast),
	}
	if i.LZ4.HasContentSize() {
		opts = append(opts, lz4.SizeOption(i.LZ4.ContentSize))
	}
	if err := zw.Apply(opts...); err != nil {
		return nil, fmt.Errorf("LZ4 writer: %w", err)
	}
	return zw, nil
}
