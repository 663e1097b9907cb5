package convert

import (
	"errors"
	"fmt"

	"github.com/rdbz/rdbz/rdbio"
	"github.com/rdbz/rdbz/rdbio/blob"
)

// Up-conversions of the old value types a target may not read (Dragonfly
// reads none of 1, 9 and 10) into the newer types that replaced them, each
// element kept as it was and in its place:
//
//   - a ziplist list (10) becomes a quicklist (14) of one node, that very
//     ziplist, streamed byte for byte whatever its size;
//   - a linked list (1) becomes a quicklist 2 (18) of listpack nodes of at
//     most 8 KiB, an element that does not fit one alone in a PLAIN node;
//     the value is held (within the cap) as the node count comes first;
//   - a zipmap hash (9) becomes a listpack hash (16), or a ziplist hash
//     (13) for a target that does not read 16, within the cap.
//
// The key and the records before it pass byte for byte; the type byte and
// the value are replaced.

// quicklistNodeBytes is the size of the listpack nodes a linked list is
// packed into: Redis's default list-max-listpack-size -2 (8 KiB).
const quicklistNodeBytes = 8 << 10

// upgrade converts rec's value when it is of an old type that a newer type
// the target reads replaced; it reports false (nothing read) otherwise.
func (c *converter) upgrade(rec *rdbio.Record, name string) (bool, error) {
	switch rec.Type {
	case rdbio.TypeListZiplist:
		if c.reads(rdbio.TypeListQuicklist) {
			return true, c.ziplistToQuicklist(rec, name)
		}
	case rdbio.TypeList:
		if c.reads(rdbio.TypeListQuicklist2) {
			return true, c.linkedToQuicklist2(rec, name)
		}
	case rdbio.TypeHashZipmap:
		for _, t := range []rdbio.Type{rdbio.TypeHashListpack, rdbio.TypeHashZiplist} {
			if c.reads(t) {
				return true, c.zipmapToHash(rec, name, t)
			}
		}
	}
	return false, nil
}

// reads says whether the target reads values of type t.
func (c *converter) reads(t rdbio.Type) bool { return c.target.ReadsType(t) }

// reencoded counts rec as kept and reports it re-encoded as type t.
func (c *converter) reencoded(rec *rdbio.Record, name string, t rdbio.Type, how string) {
	c.prefix = -1
	c.rep.Keys++
	c.rep.add(name, Reencoded, rec.Key, true, rec.Offset, fmt.Sprintf("as %v (type %d)%s", t, t.Byte(), how), "")
}

// ziplistToQuicklist writes a ziplist list (type 10) as a quicklist (type
// 14) whose one node is the same ziplist string, copied byte for byte
// (held only when within the cap, as a list node is).
func (c *converter) ziplistToQuicklist(rec *rdbio.Record, name string) error {
	nodes, err := c.r.Value().Nodes()
	if err != nil {
		return err
	}
	if !nodes.Next() {
		return nodes.Err() // not the end: a type 10 value is one node
	}
	n := nodes.Node()
	if n.Enc == rdbio.EncZstd {
		return fmt.Errorf("offset %d, key %q: %w", n.Offset, rec.Key, errZstdNode)
	}
	c.reencoded(rec, name, rdbio.TypeListQuicklist, ", its ziplist the one node")
	c.g.cutOut(rec.Offset, rec.Offset+1, []byte{rdbio.TypeListQuicklist})
	// The node count goes between the key and the ziplist string, whose
	// head went around the gate.
	head := append(rdbio.AppendLen(nil, 1), n.Raw...)
	if err := c.g.replaced(head, n.Offset+int64(len(n.Raw))); err != nil {
		return err
	}
	if n.Data != nil {
		_, err = through{c.g}.Write(n.Data)
	} else {
		err = nodes.CopyData(through{c.g})
	}
	if err != nil {
		return err
	}
	if nodes.Next() {
		return fmt.Errorf("offset %d, key %q: %w: ziplist list of more than one node", rec.Offset, rec.Key, rdbio.ErrCorrupt)
	}
	return nodes.Err()
}

// capture reads rec's value whole into c.module, within the cap, and
// returns it and the offset of its first byte.
func (c *converter) capture(rec *rdbio.Record, name string) ([]byte, int64, error) {
	c.module.Reset(c.cap)
	if _, err := c.r.Value().Count(&c.module); err != nil {
		return nil, 0, err
	}
	if c.module.Over {
		return nil, 0, fmt.Errorf("offset %d, key %q: %s value over the cap (%d bytes), not re-encoded: %w",
			rec.Offset, rec.Key, name, c.cap, rdbio.ErrTooLarge)
	}
	return c.module.Buf, c.r.Offset() - int64(len(c.module.Buf)), nil
}

// linkedToQuicklist2 writes a linked list (type 1) as a quicklist 2 (type
// 18): its elements packed into listpack nodes in order (packList). The
// value is held within the cap and packed twice: once to count the nodes,
// which come first, once to write them, so that no more than one node is
// held beside it.
func (c *converter) linkedToQuicklist2(rec *rdbio.Record, name string) error {
	value, at, err := c.capture(rec, name)
	if err != nil {
		return err
	}
	nodes := uint64(0)
	count := func(uint64, []byte) error { nodes++; return nil }
	if err := c.packList(value, at, rec, count); err != nil {
		return err
	}
	c.reencoded(rec, name, rdbio.TypeListQuicklist2, ", in listpack nodes of at most 8 KiB (an element too large for one in a PLAIN node)")
	c.g.cutOut(rec.Offset, rec.Offset+1, []byte{rdbio.TypeListQuicklist2})
	end := c.r.Offset()
	if err := c.g.replaced(rdbio.AppendLen(nil, nodes), end); err != nil {
		return err
	}
	var head []byte
	return c.packList(value, at, rec, func(container uint64, node []byte) error {
		head = rdbio.AppendStringHead(rdbio.AppendLen(head[:0], container), rdbio.EncRaw, 0, uint64(len(node)), 0)
		if err := c.g.replaced(head, end); err != nil {
			return err
		}
		return c.g.replaced(node, end)
	})
}

// packList reads the linked list value (`len n`, n × `str`, starting at
// input offset at) and calls node with each quicklist 2 node in turn, its
// container (1 PLAIN, 2 PACKED) and data: the elements in order, as many
// to a listpack as fit in quicklistNodeBytes; an element that does not fit
// in one alone is a PLAIN node. The data is valid during the call.
func (c *converter) packList(value []byte, at int64, rec *rdbio.Record, node func(container uint64, data []byte) error) error {
	// fail names the input offset of the element (or count) at pos.
	fail := func(pos int, err error) error {
		return fmt.Errorf("offset %d, key %q: linked list: %w", at+int64(pos), rec.Key, err)
	}
	s := rdbio.NewStringScanner(value, c.cap)
	n, err := s.Len()
	if err != nil {
		return fail(0, fmt.Errorf("element count: %w", err))
	}
	lp := blob.NewListpackWriter(quicklistNodeBytes)
	flush := func() error {
		if lp.Len() == 0 {
			return nil
		}
		err := node(2, lp.Bytes())
		lp.Reset()
		return err
	}
	for i := uint64(0); i < n; i++ {
		from := s.Offset()
		e, _, err := s.String(c.blob[:0])
		if err != nil {
			return fail(from, fmt.Errorf("element %d: %w", i, err))
		}
		c.blob = e
		err = lp.AppendString(e)
		if errors.Is(err, rdbio.ErrTooLarge) && lp.Len() > 0 {
			if err = flush(); err == nil {
				err = lp.AppendString(e)
			}
		}
		if errors.Is(err, rdbio.ErrTooLarge) {
			err = node(1, e) // too large for a listpack node alone
		}
		if err != nil {
			return fail(from, fmt.Errorf("element %d: %w", i, err))
		}
	}
	if s.Offset() != len(value) {
		return fail(s.Offset(), fmt.Errorf("%w: %d bytes after the list's %d elements", rdbio.ErrCorrupt, len(value)-s.Offset(), n))
	}
	if err := flush(); err != nil {
		return fail(s.Offset(), err)
	}
	return nil
}

// zipmapToHash writes a zipmap hash (type 9) as a hash of type t: a
// listpack (16) or a ziplist (13) of its fields and values in order.
func (c *converter) zipmapToHash(rec *rdbio.Record, name string, t rdbio.Type) error {
	value, _, err := c.capture(rec, name)
	if err != nil {
		return err
	}
	zm, err := rdbio.DecodeValueBlob(c.blob[:0], value, 0, c.cap)
	if err != nil {
		return fmt.Errorf("offset %d, key %q: %w", rec.Offset, rec.Key, err)
	}
	c.blob = zm
	hash, err := zipmapAs(t, zm, c.cap)
	if err != nil {
		return fmt.Errorf("offset %d, key %q: re-encoding %s: %w", rec.Offset, rec.Key, name, err)
	}
	c.reencoded(rec, name, t, "")
	c.g.cutOut(rec.Offset, rec.Offset+1, []byte{t.Byte()})
	return c.g.replaced(rawString(hash), c.r.Offset())
}

// zipmapAs re-encodes a zipmap as the blob of hash type t (16: a
// listpack, 13: a ziplist) of at most capBytes bytes.
func zipmapAs(t rdbio.Type, zipmap []byte, capBytes int) ([]byte, error) {
	var w blob.EntryWriter
	switch t {
	case rdbio.TypeHashListpack:
		w = blob.NewListpackWriter(capBytes)
	case rdbio.TypeHashZiplist:
		w = blob.NewZiplistWriter(capBytes)
	default:
		return nil, fmt.Errorf("convert: zipmap as type %d", t)
	}
	if err := blob.Recode(w, blob.Zipmap, zipmap); err != nil {
		return nil, err
	}
	if w.Len()%2 != 0 {
		return nil, fmt.Errorf("%w: zipmap of %d strings, not field/value pairs", rdbio.ErrCorrupt, w.Len())
	}
	return w.Bytes(), nil
}
