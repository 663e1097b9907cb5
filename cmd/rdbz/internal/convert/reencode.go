package convert

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/rdbz/rdbz/rdbio"
	"github.com/rdbz/rdbz/rdbio/blob"
	"github.com/rdbz/rdbz/rdbio/lzf"
)

// blobConversion turns a value stored as one blob into a type the target
// reads, element by element (blob.Recode), within the string cap.
type blobConversion struct {
	from blob.Kind
	// to are the types tried, in order: a set listpack becomes an intset
	// when every member is an integer, else a plain set.
	to []rdbio.Type
}

// blobConversions are the blob values convert re-encodes for a target that
// does not read their type: listpack hashes and sorted sets as ziplists
// (redis ≤ 6.2), set listpacks as intsets or plain sets (redis ≤ 7.0).
var blobConversions = map[rdbio.Type]blobConversion{
	rdbio.TypeHashListpack: {from: blob.Listpack, to: []rdbio.Type{rdbio.TypeHashZiplist}},
	rdbio.TypeZsetListpack: {from: blob.Listpack, to: []rdbio.Type{rdbio.TypeZsetZiplist}},
	rdbio.TypeSetListpack:  {from: blob.Listpack, to: []rdbio.Type{rdbio.TypeSetIntset, rdbio.TypeSet}},
}

// reencode converts rec's value when a conversion exists whose types the
// target reads; it reports false (nothing read) when none does.
func (c *converter) reencode(rec *rdbio.Record, name string) (bool, error) {
	if done, err := c.upgrade(rec, name); done || err != nil {
		return done, err
	}
	if rdbio.IsStream(rec.Type) {
		to, ok := c.olderStream(rec.Type)
		if !ok {
			return false, nil
		}
		return true, c.streamAs(rec, name, to)
	}
	if rdbio.HasFieldExpiry(rec.Type) {
		to, ok := c.expiringType(rec.Type)
		if !ok {
			return false, nil
		}
		return true, c.expiringAs(rec, name, to)
	}
	if rec.Type == rdbio.TypeListQuicklist2 && c.target.ReadsType(rdbio.TypeListQuicklist) {
		return true, c.listToZiplists(rec, name)
	}
	conv, ok := blobConversions[rec.Type]
	if !ok {
		return false, nil
	}
	for _, t := range conv.to {
		if !c.target.ReadsType(t) {
			return false, nil
		}
	}
	capBytes := c.cap
	value, _, err := c.capture(rec, name)
	if err != nil {
		return true, err
	}
	b, err := rdbio.DecodeValueBlob(c.blob[:0], value, 0, capBytes)
	if err != nil {
		return true, fmt.Errorf("offset %d, key %q: %w", rec.Offset, rec.Key, err)
	}
	c.blob = b
	typ, value, err := c.recode(conv, b, capBytes)
	if err != nil {
		return true, fmt.Errorf("offset %d, key %q: re-encoding %s: %w", rec.Offset, rec.Key, name, err)
	}
	out := appendRaw([]byte{typ.Byte()}, rec.Key) // the type and the key, then the value
	out = append(out, value...)
	c.prefix = -1
	c.rep.Keys++
	c.rep.add(name, Reencoded, rec.Key, true, rec.Offset, fmt.Sprintf("as %v (type %d)", typ, typ.Byte()), "")
	// The value went around the gate; the record is replaced whole.
	c.g.cutOut(rec.Offset, c.r.Offset(), out)
	return true, c.g.skipTo(c.r.Offset())
}

// recode re-encodes src into the first of conv's types that takes it and
// returns that type and the value as the RDB stores it.
func (c *converter) recode(conv blobConversion, src []byte, capBytes int) (rdbio.Type, []byte, error) {
	for _, t := range conv.to {
		switch t {
		case rdbio.TypeHashZiplist, rdbio.TypeZsetZiplist:
			w := blob.NewZiplistWriter(capBytes)
			if err := blob.Recode(w, conv.from, src); err != nil {
				return 0, nil, err
			}
			return t, rawString(w.Bytes()), nil
		case rdbio.TypeSetIntset:
			w := blob.NewIntsetWriter(capBytes)
			err := blob.Recode(w, conv.from, src)
			if errors.Is(err, blob.ErrNotInteger) {
				continue
			}
			if err != nil {
				return 0, nil, err
			}
			return t, rawString(w.Bytes()), nil
		case rdbio.TypeSet:
			v, err := plainSet(conv.from, src, capBytes)
			return t, v, err
		}
	}
	return 0, nil, fmt.Errorf("no encoding of %v takes it", conv.to)
}

// rawString is b as an RDB string stored raw.
func rawString(b []byte) []byte { return appendRaw(nil, b) }

// plainSet is a set's members as a plain set value (type 2): the count,
// then each member as a string, at most twice the cap. It walks the blob
// twice, counting the members first, so that nothing but the output is
// held beside it.
func plainSet(from blob.Kind, src []byte, capBytes int) ([]byte, error) {
	n := uint64(0)
	if err := blob.Entries(from, src, func(blob.Entry) error { n++; return nil }); err != nil {
		return nil, err
	}
	out := rdbio.AppendLen(nil, n)
	var digits [24]byte
	err := blob.Entries(from, src, func(e blob.Entry) error {
		m := e.Str
		if e.IsInt {
			m = strconv.AppendInt(digits[:0], e.Int, 10)
		}
		out = appendRaw(out, m)
		if len(out) > 2*capBytes {
			return fmt.Errorf("plain set over %d bytes: %w", 2*capBytes, rdbio.ErrTooLarge)
		}
		return nil
	})
	return out, err
}

// listToZiplists writes a quicklist 2 (type 18) as a quicklist of ziplists
// (type 14), for redis ≤ 6.2, node by node. A PLAIN node (one element)
// of over 20 bytes becomes a one-entry ziplist whose element streams
// (plainNode): a node over the cap is converted too, its element never
// held. Other nodes are re-encoded within the cap
// (nodeZiplist): a PACKED node (a listpack) over the cap is refused with
// ErrTooLarge, naming its offset and key, as re-encoding its entries would
// mean holding it. The count of nodes stays; the type byte is replaced.
func (c *converter) listToZiplists(rec *rdbio.Record, name string) error {
	capBytes := c.cap
	c.g.cutOut(rec.Offset, rec.Offset+1, []byte{rdbio.TypeListQuicklist})
	c.prefix = -1
	c.rep.Keys++
	c.rep.add(name, Reencoded, rec.Key, true, rec.Offset, "as list-quicklist (type 14), each node a ziplist", "")
	if c.zw == nil {
		c.zw = blob.NewZiplistWriter(capBytes)
	}
	nodes, err := c.r.Value().Nodes()
	if err != nil {
		return err
	}
	for nodes.Next() {
		n := nodes.Node()
		if streamsPlain(n) {
			if err := c.plainNode(nodes); err != nil {
				return fmt.Errorf("offset %d, key %q: PLAIN list node of %d bytes as a ziplist: %w", n.Offset, rec.Key, n.ULen, err)
			}
			continue
		}
		zl, err := c.nodeZiplist(n, capBytes)
		if err != nil {
			return fmt.Errorf("offset %d, key %q: %w", n.Offset, rec.Key, err)
		}
		if err := c.g.replaced(rawString(zl), c.r.Offset()); err != nil {
			return err
		}
	}
	return nodes.Err()
}

// streamsPlain reports whether n is a PLAIN node that plainNode writes: its
// element, stored raw or LZF-compressed, is over 20 bytes (a shorter one
// may read as an integer, which a ziplist stores otherwise: ZiplistWriter).
func streamsPlain(n *rdbio.Node) bool {
	return n.Container == 1 && (n.Enc == rdbio.EncRaw || n.Enc == rdbio.EncLZF) && n.ULen > 20
}

// plainNode writes the current PLAIN node n (streamsPlain) as an RDB string holding
// a ziplist of its one element: the string's header with the ziplist's
// length, the ziplist head (blob.SingleEntryFrame), the element's decoded
// bytes and the ziplist tail. The element streams from Data when it was
// captured, else from the input (Nodes.CopyDecoded); an LZF payload
// is decoded as a stream. Memory stays bounded (an LZF window and buffers),
// whatever the element's size. The payload must decode to exactly ULen
// bytes (else ErrCorrupt).
func (c *converter) plainNode(nodes *rdbio.Nodes) error {
	n := nodes.Node()
	head, tail, err := blob.SingleEntryFrame(blob.Ziplist, n.ULen)
	if err != nil {
		return err
	}
	size := uint64(len(head)) + n.ULen + uint64(len(tail))
	head = append(rdbio.AppendStringHead(nil, rdbio.EncRaw, 0, size, 0), head...)
	body := func(w io.Writer) error {
		if n.Data == nil {
			_, err := nodes.CopyDecoded(w)
			return err
		}
		if n.Enc == rdbio.EncRaw {
			_, err := w.Write(n.Data)
			return err
		}
		z := lzf.NewReader(bytes.NewReader(n.Data), int64(n.ULen))
		got, err := io.Copy(w, z)
		if errors.Is(err, lzf.ErrCorrupt) {
			return fmt.Errorf("%w: LZF node of %d bytes does not decode to %d: %w", rdbio.ErrCorrupt, len(n.Data), n.ULen, err)
		}
		if err == nil && uint64(got) != n.ULen {
			err = fmt.Errorf("%w: LZF node decodes to %d bytes, not %d", rdbio.ErrCorrupt, got, n.ULen)
		}
		return err
	}
	return c.g.streamed(head, body, tail, c.r.Offset)
}

// nodeZiplist re-encodes one quicklist 2 node held within the cap as a
// ziplist: a PACKED node's listpack entry by entry, a PLAIN node's
// element (one not streamsPlain: integer-encoded, or of at most 20 bytes)
// through the ZiplistWriter. A node over the cap (Data nil) is refused.
func (c *converter) nodeZiplist(n *rdbio.Node, capBytes int) ([]byte, error) {
	if n.Data == nil {
		if n.Container == 1 {
			return nil, fmt.Errorf("PLAIN list node of %d bytes over the cap (%d bytes), stored as %v, not re-encoded: %w", n.Size, capBytes, n.Enc, rdbio.ErrTooLarge)
		}
		return nil, fmt.Errorf("PACKED list node (a listpack) of %d bytes over the cap (%d bytes), not re-encoded (its entries cannot be re-encoded without holding it; --cap raises the cap): %w",
			n.Size, capBytes, rdbio.ErrTooLarge)
	}
	data := n.Data
	switch n.Enc {
	case rdbio.EncRaw:
	case rdbio.EncLZF:
		b, err := rdbio.DecodeNodeLZF(c.blob[:0], n.Data, n.ULen, capBytes)
		if err != nil {
			return nil, err
		}
		c.blob, data = b, b
	case rdbio.EncInt:
		if n.Container != 1 {
			return nil, fmt.Errorf("PACKED list node stored as an integer: %w", rdbio.ErrCorrupt)
		}
		c.blob = strconv.AppendInt(c.blob[:0], rdbio.IntValue(n.Data), 10)
		data = c.blob
	default:
		return nil, fmt.Errorf("list node stored as %v: %w", n.Enc, rdbio.ErrCorrupt)
	}
	c.zw.Reset()
	if n.Container == 1 { // PLAIN: the node is one element
		if err := c.zw.AppendString(data); err != nil {
			return nil, err
		}
		return c.zw.Bytes(), nil
	}
	if err := blob.Recode(c.zw, blob.Listpack, data); err != nil {
		return nil, err
	}
	return c.zw.Bytes(), nil
}
