package listcodec

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/rdbz/rdbz/listcodec/format"
	"github.com/rdbz/rdbz/listcodec/format2"
)

// Kind is what an input is, as Open tells it from its first bytes.
type Kind uint8

// The kinds of input.
const (
	// KindRDB is an RDB, plain or in Valkey's VKCS envelope (rdbio reads
	// the RDB inside one).
	KindRDB Kind = iota
	// KindFormat1 is an rdbz format-1.x file: an RDB whose first record is
	// the AUX rdbz-format (FORMAT.md §A.1).
	KindFormat1
	// KindFormat2 is an rdbz format-2 file (FORMAT.md §2).
	KindFormat2
)

func (k Kind) String() string {
	switch k {
	case KindRDB:
		return "RDB"
	case KindFormat1:
		return "rdbz format 1"
	case KindFormat2:
		return "rdbz format 2"
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// sniffLen is how many bytes Sniff needs to tell every kind apart.
const sniffLen = 11 + len(format.AuxFormat)

// Sniff tells an input's kind from its first bytes (at least 24 when the
// input has them). It is the one place rdbz decides what a file is; an
// input of another kind reads as an RDB, which fails with the RDB
// grammar's error naming what its first bytes are.
func Sniff(prefix []byte) Kind {
	switch {
	case format2.IsFormat2(prefix):
		return KindFormat2
	case isFormat1(prefix):
		return KindFormat1
	}
	return KindRDB
}

// isFormat1 reports whether p starts a format-1 file: a 9-byte magic, then
// the AUX record rdbz-format.
func isFormat1(p []byte) bool {
	name := format.AuxFormat
	return len(p) >= 11+len(name) && p[9] == 0xFA && int(p[10]) == len(name) && string(p[11:11+len(name)]) == name
}

// Input is an input opened by Open: Read gives the RDB it holds, whatever
// it is (an RDB as it is; an rdbz file turned back into its source, byte
// for byte, decoded on goroutines of its own). Finish reads what is left
// of the container and reports whether all of it was sound; Close stops
// the work. An rdbz file whose index, footer or checksums are damaged is
// an error of Read or of Finish, never a shorter RDB: a caller that stops
// reading at the RDB's EOF record must call Finish.
type Input struct {
	Kind Kind
	r    io.Reader // the RDB
	src  *counter  // the input's bytes read

	// For an rdbz input: the decoding goroutine's result, once done is
	// closed.
	done   chan struct{}
	cancel context.CancelFunc
	pr     *io.PipeReader
	st     *Stats
	err    error
	once   sync.Once
}

// Peek reads the first bytes of src and tells its Kind (Sniff); the
// reader it returns reads src from its first byte.
func Peek(src io.Reader) (Kind, io.Reader, error) {
	br := bufio.NewReaderSize(src, 64<<10)
	p, err := br.Peek(sniffLen)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return KindRDB, br, fmt.Errorf("read: %w", err)
	}
	return Sniff(p), br, nil
}

// Open tells what src is (Peek) and returns an Input reading the RDB it
// holds. opt says how an rdbz file is read (its Cap and workers; To and
// Envelope are ignored: an Input gives the source RDB, never enveloped).
// The error of a failed first read is returned here; every other error
// comes from Read or Finish.
func Open(ctx context.Context, src io.Reader, opt DecompressOptions) (*Input, error) {
	cs := &counter{r: src}
	kind, br, err := Peek(cs)
	if err != nil {
		return nil, err
	}
	in := &Input{Kind: kind, r: br, src: cs}
	if kind == KindRDB {
		return in, nil
	}
	opt.To, opt.Envelope = ToOriginal, EnvelopeNone
	ctx, in.cancel = context.WithCancel(ctx)
	pr, pw := io.Pipe()
	in.r, in.pr, in.done = pr, pr, make(chan struct{})
	go func() {
		defer close(in.done)
		in.st, in.err = DecompressContext(ctx, pw, br, opt)
		pw.CloseWithError(in.err)
	}()
	return in, nil
}

// Read reads the RDB.
func (in *Input) Read(p []byte) (int, error) { return in.r.Read(p) }

// Finish reads the rest of the input (for an rdbz file: the rest of its
// blocks, its index and footer, checking them and the restored file's
// CRC-64) and returns the first error the input had. For an RDB it reads
// nothing: the RDB's reader checks its trailer and what follows it.
func (in *Input) Finish() error {
	if in.done == nil {
		return nil
	}
	if _, err := io.Copy(io.Discard, in.pr); err != nil {
		in.Close()
		return err
	}
	<-in.done
	return in.err
}

// Close stops the decoding (when it has not ended) and releases the
// Input; it never fails. It does not close src.
func (in *Input) Close() error {
	if in.done == nil {
		return nil
	}
	in.once.Do(func() {
		in.cancel()
		in.pr.CloseWithError(context.Canceled)
		<-in.done
	})
	return nil
}

// Cause returns the error of decoding an rdbz input when it failed (the
// root of what its reader saw), else err.
func (in *Input) Cause(err error) error {
	if in.done == nil || err == nil {
		return err
	}
	select {
	case <-in.done:
		if in.err != nil && !errors.Is(in.err, context.Canceled) {
			return in.err
		}
	default:
	}
	return err
}

// Stats is what decoding an rdbz input did (nil for an RDB), complete
// after Finish.
func (in *Input) Stats() *Stats {
	if in.done == nil {
		return nil
	}
	select {
	case <-in.done:
		return in.st
	default:
		return nil
	}
}

// InputBytes is how many bytes of the input were read so far.
func (in *Input) InputBytes() int64 { return in.src.n }

// counter counts the bytes read through it.
type counter struct {
	r io.Reader
	n int64
}

func (c *counter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// Container describes an rdbz file as Finish read and checked it.
type Container struct {
	Format     string `json:"format"`                // the rdbz format version: "1.1", "2.1", ...
	FileBytes  int64  `json:"file_bytes"`            // the rdbz file
	RDBBytes   int64  `json:"rdb_bytes"`             // the RDB it holds
	Blocks     int64  `json:"blocks,omitempty"`      // format 2: block frames
	BlockSize  int    `json:"block_size,omitempty"`  // format 2: the largest decoded block
	DictID     uint32 `json:"dict_id,omitempty"`     // the dictionary's ID (0: none)
	DictBytes  int    `json:"dict_bytes"`            // the embedded dictionary's size
	IndexBytes int64  `json:"index_bytes,omitempty"` // format 2: the index frame
}

// Ratio is the file's size over the RDB's.
func (c *Container) Ratio() float64 { return float64(c.FileBytes) / float64(max(c.RDBBytes, 1)) }

// Container describes the rdbz file after a Finish that returned nil (nil
// for an RDB, or before).
func (in *Input) Container() *Container {
	st := in.Stats()
	if st == nil || in.err != nil {
		return nil
	}
	c := &Container{Format: st.Format, FileBytes: st.BytesIn, RDBBytes: st.BytesOut, DictID: st.DictID, DictBytes: st.DictBytes}
	if d := st.Format2Decompress; d != nil {
		c.Blocks, c.BlockSize, c.IndexBytes = d.Container.Blocks, d.Header.BlockSize, d.Container.IndexBytes
		c.FileBytes = d.Container.FileBytes
	}
	return c
}
