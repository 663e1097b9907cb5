package listcodec

import (
	"fmt"
	"io"

	"github.com/rdbz/rdbz/rdbio/envelope"
)

// Envelope says whether Decompress writes its RDB in a VKCS envelope
// (Valkey's rdbcompression lz4: rdbio/envelope; `rdbz decompress
// --envelope`). Reading needs no option: rdbio reads an enveloped input as
// the RDB inside it.
type Envelope uint8

// Envelope choices.
const (
	// EnvelopeSource: with ToOriginal, the envelope the source was in, as
	// a format-2 file records it (FORMAT.md §2.2); else none.
	EnvelopeSource Envelope = iota
	// EnvelopeNone: a plain RDB.
	EnvelopeNone
	// EnvelopeLZ4: an LZ4 envelope — the source's (with ToOriginal, when
	// it had one), else envelope.LZ4().
	EnvelopeLZ4
)

// ParseEnvelope reads "lz4" or "none" ("" is EnvelopeSource).
func ParseEnvelope(s string) (Envelope, error) {
	switch s {
	case "":
		return EnvelopeSource, nil
	case "none":
		return EnvelopeNone, nil
	case "lz4":
		return EnvelopeLZ4, nil
	}
	return 0, fmt.Errorf("%w: envelope %q (want lz4 or none)", ErrOptions, s)
}

// outputEnvelope is the envelope Decompress writes, given the source
// record of a format-2 header (nil: none, or not format 2).
func (o DecompressOptions) outputEnvelope(source []byte) (envelope.Info, error) {
	var src envelope.Info
	if source != nil && o.To == ToOriginal {
		var err error
		if src, err = envelope.ParseRecord(source); err != nil {
			return src, fmt.Errorf("rdbz format 2: the header's source record: %w", err)
		}
	}
	switch {
	case o.Envelope == EnvelopeSource, o.Envelope == EnvelopeLZ4 && src.Codec == envelope.CodecLZ4:
		return src, nil
	case o.Envelope == EnvelopeLZ4:
		return envelope.LZ4(), nil
	}
	return envelope.Info{}, nil
}

// wrapped is Decompress's output: dst itself, or dst in the envelope
// start chose. Nothing may be written before start.
type wrapped struct {
	dst  counted
	w    io.Writer
	env  io.WriteCloser // nil: no envelope
	info envelope.Info
}

func newWrapped(dst io.Writer) *wrapped { return &wrapped{dst: counted{w: dst}} }

// start chooses the envelope (outputEnvelope) and writes its header.
func (o *wrapped) start(opt DecompressOptions, source []byte) error {
	info, err := opt.outputEnvelope(source)
	if err != nil {
		return err
	}
	o.w, o.info = &o.dst, info
	if !info.Enveloped() {
		return nil
	}
	if o.env, err = envelope.NewWriter(&o.dst, info); err != nil {
		return err
	}
	o.w = o.env
	return nil
}

func (o *wrapped) Write(p []byte) (int, error) { return o.w.Write(p) }

// close ends the envelope's stream, if any, and puts what was written in
// st (BytesOut: the bytes of the file, envelope included).
func (o *wrapped) close(st *Stats) error {
	st.OutputEnvelope = o.info
	if o.env != nil {
		if err := o.env.Close(); err != nil {
			return fmt.Errorf("VKCS envelope: %w", err)
		}
	}
	st.BytesOut = o.dst.n
	return nil
}

// counted counts the bytes written through it.
type counted struct {
	w io.Writer
	n int64
}

func (c *counted) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
