package format2

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/rdbz/rdbz/listcodec/block"
	"github.com/rdbz/rdbz/listcodec/tstream"
	"github.com/rdbz/rdbz/rdbio"
	"github.com/rdbz/rdbz/rdbio/envelope"
)

// Magic is the first four bytes of every format-2 file (the header's
// skippable frame, FORMAT.md §2.1).
var Magic = []byte{0x50, 0x2A, 0x4D, 0x18}

// IsFormat2 reports whether a file starting with prefix is a format-2 file.
func IsFormat2(prefix []byte) bool { return bytes.HasPrefix(prefix, Magic) }

// CheckHeader checks what a header holds beyond the container's own
// checks: its source record (FORMAT.md §4.2), whatever the target, so
// that a damaged one is an error even where no envelope is written.
func CheckHeader(h block.Header) error {
	if h.Source == nil {
		return nil
	}
	if _, err := envelope.ParseRecord(h.Source); err != nil {
		return &block.Error{Offset: 29 + int64(len(h.Dict)), What: "header: source record", Err: fmt.Errorf("%w: %v", block.ErrFormat, err)}
	}
	return nil
}

// DecompressOptions configure Decompress. Zero fields take the defaults.
type DecompressOptions struct {
	To             tstream.Target
	Workers        int // block decoding goroutines
	Cap            int // at least the Cap the file was compressed with
	IgnoreChecksum bool
	// Header, when set, is given the file's header before anything is
	// written to dst (listcodec wraps dst as its Source record says).
	Header func(block.Header) error
}

// DecompressStats sum up a Decompress.
type DecompressStats struct {
	BytesIn, BytesOut, TBytes int64
	Header                    block.Header    // the file's header
	Container                 block.ReadStats // blocks and index, once read to the end
}

// Decompress reads a format-2 file from src and writes the RDB it holds to
// dst, its strings stored as opt.To says (tstream.TargetOriginal: the
// compressed file byte for byte). An error about the container names its
// file offset (*block.Error); one about T names its offset in T
// (*rdbio.Error).
func Decompress(ctx context.Context, dst io.Writer, src io.Reader, opt DecompressOptions) (*DecompressStats, error) {
	st := &DecompressStats{}
	cr := &counter{r: src}
	br, err := block.NewReader(ctx, cr, block.ReaderOptions{Workers: opt.Workers})
	if err != nil {
		return st, err
	}
	defer br.Close()
	st.Header = br.Header()
	if err := CheckHeader(st.Header); err != nil {
		return st, err
	}
	if opt.Header != nil {
		if err := opt.Header(br.Header()); err != nil {
			return st, err
		}
	}
	tr := &counter{r: br}
	n, err := tstream.DecodeT(dst, tr, opt.To, tstream.Options{Options: rdbio.Options{Cap: opt.Cap, IgnoreChecksum: opt.IgnoreChecksum}, Workers: opt.Workers}, nil)
	st.BytesOut, st.TBytes, st.BytesIn = n, tr.n, cr.n
	var be *block.Error
	if errors.As(err, &be) {
		return st, be // the container's error, at its file offset
	}
	if err != nil {
		return st, fmt.Errorf("rdbz format 2, decoded stream: %w", err)
	}
	// T must end where the blocks do: read on to the index, which the
	// block Reader checks at its end.
	if k, err := io.Copy(io.Discard, tr); err != nil {
		return st, err
	} else if k != 0 {
		return st, fmt.Errorf("rdbz format 2: %w: %d bytes of T after the RDB's end", rdbio.ErrCorrupt, k)
	}
	st.BytesIn = cr.n
	st.Container = br.Stats()
	return st, nil
}
