package v1

import (
	"bytes"
	"fmt"
	"io"

	"github.com/klauspost/compress/zstd"
	"github.com/rdbz/rdbz/listcodec/node"
	"github.com/rdbz/rdbz/rdbio"
	"github.com/rdbz/rdbz/rdbio/lzf"
)

// maxStreamWindow bounds the window of a zstd frame decoded as a stream
// (rdbz's encoders use 256 KiB).
const maxStreamWindow = 8 << 20

// bigNode handles a node over the cap without holding it whole: a zstd node
// whose frame was captured is decoded as a stream and written raw; an LZF
// node that decodes over the cap is written raw as a stream for ToRaw; the
// rest passes through unchanged. A zstd node whose frame itself is over the
// cap is never written by rdbz (it compresses only captured nodes, into
// smaller frames) and is refused.
func (d *decompressor) bigNode(n *rdbio.Node) error {
	t := d.t
	switch {
	case n.Enc == rdbio.EncZstd && n.Data == nil:
		return &rdbio.Error{Offset: n.Offset, Key: t.key, What: "zstd node",
			Err: fmt.Errorf("a %d-byte frame, over the cap (%d): rdbz never writes one", n.Size, t.flow.Cap)}
	case n.Enc == rdbio.EncZstd:
		dec, err := d.streamDecoder(n)
		if err != nil {
			return &rdbio.Error{Offset: n.Offset, Key: t.key, What: "zstd node", Err: err}
		}
		defer dec.Close()
		return d.writeRaw(n, dec)
	case n.Enc == rdbio.EncLZF && n.Data != nil && d.opt.To == ToRaw:
		return d.writeRaw(n, lzf.NewReader(bytes.NewReader(n.Data), int64(n.ULen)))
	}
	return t.passNode(n)
}

// streamDecoder returns a streaming decoder of the node's frame, with a
// bounded window, knowing the dictionary the frame names.
func (d *decompressor) streamDecoder(n *rdbio.Node) (*zstd.Decoder, error) {
	id, err := node.FrameDictID(n.Data)
	if err != nil {
		return nil, err
	}
	opts := []zstd.DOption{zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true),
		zstd.WithDecoderMaxWindow(maxStreamWindow)}
	if id != 0 {
		dict := d.dict(id)
		if dict == nil {
			return nil, fmt.Errorf("zstd frame needs dictionary ID %d, which is not loaded: %w", id, node.ErrUnknownDict)
		}
		opts = append(opts, zstd.WithDecoderDicts(dict.Bytes))
	}
	return zstd.NewReader(bytes.NewReader(n.Data), opts...)
}

// dict returns the dictionary with the given ID, or nil.
func (d *decompressor) dict(id uint32) *node.Dict {
	for _, dict := range d.dicts {
		if dict.ID == id {
			return dict
		}
	}
	return nil
}

// writeRaw writes the node as a raw string of its decoded length, copying
// the decoded bytes from src, which must hold exactly that many.
func (d *decompressor) writeRaw(n *rdbio.Node, src io.Reader) error {
	t := d.t
	var head []byte
	if n.Container != 0 {
		head = rdbio.AppendLen(head, n.Container)
	}
	head = rdbio.AppendStringHead(head, rdbio.EncRaw, 0, n.ULen, n.ULen)
	if _, err := t.ch.Write(head); err != nil {
		return err
	}
	buf := make([]byte, 64<<10)
	var got uint64
	for {
		k, rerr := src.Read(buf)
		got += uint64(k)
		if got > n.ULen {
			rerr = fmt.Errorf("decodes to more than %d bytes", n.ULen)
		} else if _, err := t.ch.Write(buf[:k]); err != nil {
			return err
		}
		if rerr == io.EOF && got != n.ULen {
			rerr = fmt.Errorf("decodes to %d bytes, want %d", got, n.ULen)
		}
		if rerr == io.EOF {
			return nil
		}
		if rerr != nil {
			return &rdbio.Error{Offset: n.Offset, Key: t.key, What: n.Enc.String() + " node", Err: rerr}
		}
	}
}
