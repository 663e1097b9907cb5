package rdbio

import (
	"fmt"

	"github.com/rdbz/rdbz/rdbio/blob"
	"github.com/rdbz/rdbz/rdbio/lzf"
)

// Element counts of values and list nodes stored as blobs, read from the
// input: only as much of a blob is read or decoded as its count needs
// (blob.Count says what that is).

// nodeBlob is the blob kind of the nodes of list type t: listpacks in
// type 18, ziplists in 10 and 14.
func nodeBlob(t Type) blob.Kind {
	if t == TypeListQuicklist2 {
		return blob.Listpack
	}
	return blob.Ziplist
}

// blobBody reads the payload of a string (whose prefix h was read) that
// holds a blob of the given kind and counts its entries. It reads the
// header only, unless the header says "count unknown" and the blob is
// within the capture cap. A blob stored otherwise than raw or LZF, or
// larger than the cap when LZF-compressed, is skipped uncounted.
func (r *Reader) blobBody(kind blob.Kind, h strHead) (int64, bool, error) {
	switch h.enc {
	case EncRaw:
		k := min(h.size, blob.HeadSize)
		p, err := r.in.take(int(k))
		if err != nil {
			return 0, false, err
		}
		r.bufs.dec = append(r.bufs.dec[:0], p...)
		n, ok := blob.Count(kind, r.bufs.dec, k == h.size)
		if ok || k == h.size || h.size > uint64(r.opt.Cap) {
			return n, ok, r.in.skip(h.size - k)
		}
		if r.bufs.dec, err = r.in.appendN(r.bufs.dec, h.size-k); err != nil {
			return 0, false, err
		}
		n, ok = blob.Count(kind, r.bufs.dec, true)
		return n, ok, nil
	case EncLZF:
		if h.size > uint64(r.opt.Cap) || h.ulen > uint64(r.opt.Cap) {
			return 0, false, r.in.skip(h.size)
		}
		comp, err := r.in.appendN(r.bufs.scratch[:0], h.size)
		r.bufs.scratch = comp
		if err != nil {
			return 0, false, err
		}
		n, ok, err := r.lzfBlobCount(kind, comp, int(h.ulen))
		if err != nil {
			return 0, false, fmt.Errorf("%w: LZF blob does not decode", ErrCorrupt)
		}
		return n, ok, nil
	}
	return 0, false, r.in.skip(h.size)
}

// lzfBlobCount counts the entries of a blob stored as the LZF stream comp
// of ulen decoded bytes: from a decoded prefix, or from the whole blob when
// the header does not tell. The error says the prefix does not decode.
func (r *Reader) lzfBlobCount(kind blob.Kind, comp []byte, ulen int) (int64, bool, error) {
	var err error
	if r.bufs.dec, err = lzf.DecodePrefix(r.bufs.dec, comp, blob.HeadSize, ulen); err != nil {
		return 0, false, err
	}
	n, ok := blob.Count(kind, r.bufs.dec, len(r.bufs.dec) == ulen)
	if !ok && len(r.bufs.dec) < ulen {
		if r.bufs.dec, err = lzf.DecodePrefix(r.bufs.dec, comp, ulen, ulen); err == nil {
			n, ok = blob.Count(kind, r.bufs.dec, len(r.bufs.dec) == ulen)
		}
	}
	return n, ok, nil
}

// nodeElements counts the elements of the last node nextNode returned
// (Nodes.Elements).
func (r *Reader) nodeElements() (int64, bool, error) {
	n := &r.bufs.node
	if n.Container == 1 || n.Enc == EncInt {
		return 1, true, nil
	}
	kind := nodeBlob(r.rec.Type)
	switch n.Enc {
	case EncRaw:
		if n.Data != nil {
			c, ok := blob.Count(kind, n.Data, true)
			return c, ok, nil
		}
		r.bufs.head.reset(blob.HeadSize)
		if err := r.copyNodeData(&r.bufs.head); err != nil {
			return 0, false, err
		}
		c, ok := blob.Count(kind, r.bufs.head.buf, false)
		return c, ok, nil
	case EncLZF:
		if n.Data == nil {
			return 0, false, nil
		}
		if n.ULen > uint64(r.opt.Cap) { // the header only: never decoded whole
			var err error
			if r.bufs.dec, err = lzf.DecodePrefix(r.bufs.dec, n.Data, blob.HeadSize, int(min(n.ULen, uint64(r.opt.Cap)))); err != nil {
				return 0, false, nil
			}
			c, ok := blob.Count(kind, r.bufs.dec, false)
			return c, ok, nil
		}
		c, ok, err := r.lzfBlobCount(kind, n.Data, int(n.ULen))
		if err != nil {
			return 0, false, nil
		}
		return c, ok, nil
	}
	return 0, false, nil
}

// prefixBuf is a sink that keeps the first max bytes written to it.
type prefixBuf struct {
	buf []byte
	max int
}

func (p *prefixBuf) reset(max int) { p.buf, p.max = p.buf[:0], max }

func (p *prefixBuf) Write(b []byte) (int, error) {
	if k := p.max - len(p.buf); k > 0 {
		p.buf = append(p.buf, b[:min(k, len(b))]...)
	}
	return len(b), nil
}
