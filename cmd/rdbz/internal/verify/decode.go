package verify

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"fmt"
	"strconv"

	"github.com/hdt3213/rdb/core"
	"github.com/hdt3213/rdb/model"
	"github.com/rdbz/rdbz/rdbio"
	"github.com/rdbz/rdbz/rdbio/blob"
)

// semanticTypes are the value types whose values github.com/hdt3213/rdb
// decodes. Module values are not among them: without the module the
// decoder skips them and gives no content.
var semanticTypes = map[rdbio.Type]bool{
	rdbio.TypeString: true, rdbio.TypeList: true, rdbio.TypeSet: true, rdbio.TypeZset: true,
	rdbio.TypeHash: true, rdbio.TypeZset2: true, rdbio.TypeHashZipmap: true, rdbio.TypeListZiplist: true,
	rdbio.TypeSetIntset: true, rdbio.TypeZsetZiplist: true, rdbio.TypeHashZiplist: true,
	rdbio.TypeListQuicklist: true, rdbio.TypeStreamListpacks: true, rdbio.TypeHashListpack: true,
	rdbio.TypeZsetListpack: true, rdbio.TypeListQuicklist2: true, rdbio.TypeStream2: true,
	rdbio.TypeSetListpack: true, rdbio.TypeStream3: true, rdbio.TypeHashMetaPreGA: true,
	rdbio.TypeHashLpExPreGA: true, rdbio.TypeHashMetadata: true, rdbio.TypeHashListpackEx: true,
	rdbio.TypeHash2: true,
}

// semDecoder decodes one value at a time with hdt3213/rdb's decoder, fed a
// one-key RDB: the input's magic, the key record, the EOF opcode and a zero
// checksum. Only the key's own bytes reach the decoder, so opcodes it does
// not know elsewhere in the file do not matter.
type semDecoder struct {
	magic  string
	refuse string // why the decoder refuses this RDB version, or ""
	limit  int    // the most bytes a list node decodes to (Options.DecodeCap)
	rd     bytes.Reader
	br     *bufio.Reader
	// node is listDigest's decoded node (and blobDigest's blob), str
	// stringObject's string.
	node, str []byte
	// blobDigest's entries, end to end in blobStr, their ends in ends;
	// members and pairs sort them.
	blobStr []byte
	ends    []int
	members [][]byte
	pairs   [][2][]byte
	// dg digests the values, its SHA-256 reset for each (made for each, it
	// was 42 MB of verify's 1 GB of allocations on app-cache-nocompress
	// x4, the strings 218 MB more).
	dg digester
}

var semTrailer = []byte{rdbio.OpEOF, 0, 0, 0, 0, 0, 0, 0, 0}

func (d *semDecoder) init(h rdbio.Header, limit int) {
	d.magic, d.limit, d.dg.h = h.Magic, limit, sha256.New()
	d.br = bufio.NewReaderSize(&d.rd, 64<<10)
	// The decoder checks the magic on its own terms (its maximum version).
	probe := append([]byte(h.Magic), semTrailer...)
	d.rd.Reset(probe)
	d.br.Reset(&d.rd)
	if err := core.NewDecoder(d.br).Parse(func(model.RedisObject) bool { return true }); err != nil {
		d.refuse = fmt.Sprintf("%s (hdt3213/rdb: %v)", h.Magic, err)
	}
}

// whyNot says why values of type t are not decoded, or "".
func (d *semDecoder) whyNot(t rdbio.Type) string {
	switch {
	case d.refuse != "":
		return d.refuse
	case !semanticTypes[t]:
		return "type " + t.String()
	}
	return ""
}

// head appends the one-key RDB up to the value to dst.
func (d *semDecoder) head(dst []byte, typ byte, key []byte) []byte {
	dst = append(append(dst, d.magic...), typ)
	dst = rdbio.AppendLen(dst, uint64(len(key)))
	return append(dst, key...)
}

// decode decodes the one-key RDB in buf (head bytes, then the value) and
// sets e's semantic digest; nodes are the offsets in buf where the nodes of
// a list value start. It returns why the value could not be decoded, or "".
func (d *semDecoder) decode(buf []byte, head int, nodes []int, e *entry) string {
	if e.typ == rdbio.TypeString {
		if o, err := d.stringObject(buf[head:]); err == nil {
			e.class, e.count, err = d.dg.object(o, e.sem[:0])
			e.semOK = err == nil
			if err == nil {
				return ""
			}
		}
	}
	if t := rdbio.Type(e.typ); rdbio.IsList(t) { // list type bytes mean the same for every producer
		if n, err := d.listDigest(t, buf, nodes, e.sem[:0]); err == nil {
			e.class, e.count, e.semOK = model.ListType, n, true
			return ""
		}
	}
	if class, n, ok := d.blobDigest(rdbio.Type(e.typ), buf[head:], e.sem[:0]); ok {
		e.class, e.count, e.semOK = class, n, true
		return ""
	}
	o, err := d.parse(buf, e.id.key)
	if err != nil && e.typ == rdbio.TypeListQuicklist2 {
		// hdt3213/rdb v1.3.2 decodes a quicklist mixing PLAIN and PACKED
		// nodes but then panics sizing it (memprofiler); one node at a
		// time it does not.
		var err2 error
		if o, err2 = d.parseNodes(buf, head, nodes, e.id.key); err2 == nil {
			err = nil
		}
	}
	if err == nil {
		e.class, e.count, err = d.dg.object(o, e.sem[:0])
	}
	if err != nil {
		return fmt.Sprintf("type %s not decoded (hdt3213/rdb: %v)", e.tname, err)
	}
	e.semOK = true
	return ""
}

// parse decodes the one-key RDB in buf (without its trailer).
func (d *semDecoder) parse(buf []byte, key string) (model.RedisObject, error) {
	buf = append(buf, semTrailer...)
	d.rd.Reset(buf)
	d.br.Reset(&d.rd)
	dec := core.NewDecoder(d.br)
	var objs []model.RedisObject
	err := dec.Parse(func(o model.RedisObject) bool {
		objs = append(objs, o)
		return len(objs) == 1
	})
	switch {
	case err != nil:
		return nil, err
	case len(objs) != 1 || dec.GetReadCount() != len(buf):
		return nil, fmt.Errorf("read %d of %d bytes, %d objects", dec.GetReadCount(), len(buf), len(objs))
	case objs[0].GetKey() != key:
		return nil, fmt.Errorf("decoded key %q", objs[0].GetKey())
	}
	return objs[0], nil
}

// parseNodes decodes a quicklist2 value node by node, each as a list of one
// node, and returns the list of all their elements. The nodes are
// buf[nodes[i]:nodes[i+1]], the last one up to the end of buf.
func (d *semDecoder) parseNodes(buf []byte, head int, nodes []int, key string) (model.RedisObject, error) {
	list := &model.ListObject{}
	var one []byte
	for i, start := range nodes {
		end := len(buf)
		if i+1 < len(nodes) {
			end = nodes[i+1]
		}
		one = append(rdbio.AppendLen(append(one[:0], buf[:head]...), 1), buf[start:end]...)
		o, err := d.parse(one, key)
		if err != nil {
			return nil, fmt.Errorf("node %d: %w", i, err)
		}
		l, ok := o.(*model.ListObject)
		if !ok {
			return nil, fmt.Errorf("node %d decoded as %T", i, o)
		}
		list.Values = append(list.Values, l.Values...)
	}
	return list, nil
}

// stringObject decodes a string value, val, with rdbio's string decoder:
// what hdt3213/rdb makes of it (an integer as its digits, an LZF string
// decoded) without its decoder's copies. That decoder sizes every object
// for its memory report, parsing each string as an integer, and the
// error of a string that is not one holds a copy of it: on a dump of
// source files that was a tenth of verify's CPU. An error sends the value
// to hdt3213/rdb.
// The object's Value is d's buffer, valid until the next value.
func (d *semDecoder) stringObject(val []byte) (*model.StringObject, error) {
	s := rdbio.NewStringScanner(val, d.limit)
	str, _, err := s.String(d.str[:0])
	d.str = keepBuf(str)
	switch {
	case err != nil:
		return nil, err
	case s.Offset() != len(val):
		return nil, fmt.Errorf("%d bytes after the string", len(val)-s.Offset())
	}
	return &model.StringObject{Value: str}, nil
}

// listDigest sets sum to the digest digestObject gives of the list whose
// nodes start at the offsets nodes in buf, and returns its length: the
// elements are hashed as they are found (through the digester's buffer),
// instead of each cloned into a model.ListObject (a list of 28 MB of
// small elements spent most of verify's time allocating them), or all held
// in one buffer until their count was known (which the digest now takes
// after them: 28 MB grown by append for the Dragonfly seed's ten lists).
func (d *semDecoder) listDigest(typ rdbio.Type, buf []byte, nodes []int, sum []byte) (int64, error) {
	kind := rdbio.NodeBlob(typ)
	dg := &d.dg
	dg.reset()
	dg.str(model.ListType)
	n := 0
	var digits [20]byte
	add := func(v []byte) {
		dg.bytes(v)
		n++
	}
	for i, start := range nodes {
		end := len(buf)
		if i+1 < len(nodes) {
			end = nodes[i+1]
		}
		s := rdbio.NewStringScanner(buf[start:end], d.limit)
		container := uint64(2) // PACKED
		if typ == rdbio.TypeListQuicklist2 {
			var err error
			if container, err = s.Len(); err != nil {
				return 0, err
			}
		}
		str, isInt, err := s.String(d.node[:0])
		switch {
		case err != nil:
			return 0, fmt.Errorf("node %d: %w", i, err)
		case s.Offset() != end-start:
			return 0, fmt.Errorf("node %d: %d bytes after its string", i, end-start-s.Offset())
		case container == 1: // PLAIN: the element itself
			add(str)
			continue
		case isInt || container != 2:
			return 0, fmt.Errorf("node %d: container %d, stored as an integer %v", i, container, isInt)
		}
		err = blob.Entries(kind, str, func(e blob.Entry) error {
			if e.IsInt {
				add(strconv.AppendInt(digits[:0], e.Int, 10))
			} else {
				add(e.Str)
			}
			return nil
		})
		if err != nil {
			return 0, fmt.Errorf("node %d: %w", i, err)
		}
		d.node = keepBuf(str)
	}
	dg.num(uint64(n))
	dg.sum(sum)
	return int64(n), nil
}

// keepBuf is b emptied to be used again, or nil when it is larger than a
// side keeps between values (captureKeep).
func keepBuf(b []byte) []byte {
	if cap(b) > captureKeep {
		return nil
	}
	return b[:0]
}
