package listcodec

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/rdbz/rdbz/listcodec/block"
	"github.com/rdbz/rdbz/listcodec/format2"
	"github.com/rdbz/rdbz/listcodec/node"
	"github.com/rdbz/rdbz/listcodec/tstream"
	"github.com/rdbz/rdbz/listcodec/v1"
)

// Form is what Decompress turns node strings into (`rdbz decompress
// --to`). A server to load a file is a target (rdbio/servers); this is not.
type Form uint8

// The forms of decompressed nodes (FORMAT.md §A.3).
const (
	// ToOriginal stores each node as the source of Compress did: LZF when
	// flag bit 0 is set, else raw. The file comes back byte-identical.
	ToOriginal Form = iota
	// ToLZF stores every node as Redis saves it with rdbcompression yes.
	ToLZF
	// ToRaw stores every node raw (rdbcompression no).
	ToRaw
)

// formNames are the names ParseForm reads and String gives.
var formNames = [...]string{ToOriginal: "original", ToLZF: "lzf", ToRaw: "raw"}

// String is the target's name.
func (t Form) String() string {
	if int(t) < len(formNames) {
		return formNames[t]
	}
	return fmt.Sprintf("target(%d)", t)
}

// ParseForm reads "original", "lzf" or "raw" ("" is the default,
// ToOriginal).
func ParseForm(s string) (Form, error) {
	if s == "" {
		return ToOriginal, nil
	}
	for t, name := range formNames {
		if s == name {
			return Form(t), nil
		}
	}
	return 0, fmt.Errorf("%w %q (want original, lzf or raw)", ErrForm, s)
}

// DecompressOptions configure Decompress. A zero field means its default
// (To: ToOriginal).
type DecompressOptions struct {
	Flow
	To    Form
	Dicts []*node.Dict // external dictionaries (format-1 files written with v1's NoEmbed)
	// Envelope: whether the output is in a VKCS envelope (default: as
	// the source was, with ToOriginal).
	Envelope Envelope
}

// Decompress is DecompressContext without cancellation.
func Decompress(dst io.Writer, src io.Reader, opt DecompressOptions) (*Stats, error) {
	return DecompressContext(context.Background(), dst, src, opt)
}

// DecompressContext turns an rdbz file of either format back into an RDB
// that a stock redis-server loads (Peek tells the formats apart): format 2
// through package format2, format 1 through package v1. On an ordinary RDB
// it converts LZF and raw nodes into each other (ToLZF, ToRaw) or copies
// it unchanged (ToOriginal), as v1 does. Cancelling ctx stops it with
// ctx's error.
func DecompressContext(ctx context.Context, dst io.Writer, src io.Reader, opt DecompressOptions) (*Stats, error) {
	kind, src, err := Peek(src)
	if err != nil {
		return &Stats{}, err
	}
	out := newWrapped(dst)
	if kind == KindFormat2 {
		return decompress2(ctx, out, src, opt)
	}
	return decompress1(ctx, out, src, opt)
}

// decompress1 is Decompress for a format-1 file or an RDB, which package
// v1 reads; a format-1 file records no envelope.
func decompress1(ctx context.Context, out *wrapped, src io.Reader, opt DecompressOptions) (*Stats, error) {
	if err := out.start(opt, nil); err != nil {
		return &Stats{}, err
	}
	// v1's Flow and Form are this package's, field for field and value
	// for value.
	s1, err := v1.DecompressContext(ctx, out, src, v1.DecompressOptions{Flow: opt.Flow, To: v1.Form(opt.To), Dicts: opt.Dicts})
	st := &Stats{BytesIn: s1.BytesIn, BytesOut: s1.BytesOut, DictID: s1.DictID, DictBytes: s1.DictBytes,
		Format: s1.Format, Elapsed: s1.Elapsed, InputEnvelope: s1.InputEnvelope, Format1: s1}
	if err == nil {
		err = out.close(st)
	}
	return st, err
}

// decompress2 is Decompress for a format-2 input; the output is wrapped as
// the header's source record and opt.Envelope say.
func decompress2(ctx context.Context, out *wrapped, src io.Reader, opt DecompressOptions) (*Stats, error) {
	start := time.Now()
	flow := opt.Flow.WithDefaults()
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
