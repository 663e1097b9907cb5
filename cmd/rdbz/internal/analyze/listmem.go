package analyze

import (
	"github.com/rdbz/rdbz/rdbio"
	"github.com/rdbz/rdbz/rdbio/blob"
	"github.com/rdbz/rdbz/rdbio/lzf"
)

// listMem costs a list value as Redis 7.0 holds it after loading: a
// quicklist whose nodes are the file's listpack nodes as they are (type
// 18), its ziplist nodes rebuilt as listpacks (type 14), or the elements of
// an old ziplist value packed into new nodes (type 10).
type listMem struct {
	typ   rdbio.Type
	nodes int64
	alloc int64
	pack  quicklistPack // type 10
	entry valueMem      // listpack bytes of one rebuilt node
	buf   []byte
}

// node takes one node whose payload decodes to decoded bytes.
func (l *listMem) node(a *analyzer, n *rdbio.Node, decoded int64) error {
	if l.typ == rdbio.TypeListQuicklist2 || n.Enc == rdbio.EncZstd {
		l.nodes++
		l.alloc += allocSize(decoded)
		return nil
	}
	zl, ok := l.ziplist(n)
	if !ok { // over the cap: its listpack is about its size
		l.nodes++
		l.alloc += allocSize(decoded)
		return nil
	}
	l.entry.reset(rdbio.TypeHash) // any type that only sums entries
	// A malformed ziplist is costed as far as it goes (the walk of the
	// value does not judge blobs).
	if l.typ == rdbio.TypeListZiplist {
		_ = rdbio.BlobEntries(blob.Ziplist, zl, func(e *rdbio.Elem) error {
			l.entry.lp = 0
			l.entry.str(e)
			l.pack.push(int64(e.Len), l.entry.lp)
			return nil
		})
		return nil
	}
	_ = rdbio.BlobEntries(blob.Ziplist, zl, l.entry.add)
	l.nodes++
	l.alloc += allocSize(listpackHeader + l.entry.lp)
	return nil
}

// ziplist returns the decoded ziplist of a node when it is at hand.
func (l *listMem) ziplist(n *rdbio.Node) ([]byte, bool) {
	switch {
	case n.Data == nil:
		return nil, false
	case n.Enc == rdbio.EncRaw:
		return n.Data, true
	case n.Enc == rdbio.EncLZF && n.ULen <= listDecodeCap:
		var err error
		l.buf, err = lzf.Decode(l.buf, n.Data, int(n.ULen))
		return l.buf, err == nil
	}
	return nil, false
}

// listDecodeCap bounds the ziplist nodes decoded to be costed.
const listDecodeCap = rdbio.DefaultCap

// bytes is the quicklist's memory (robj apart), as objectComputeSize
// counts it and as allocated.
func (l *listMem) bytes() (int64, int64) {
	l.pack.flush()
	nodes, alloc := l.nodes+l.pack.nodes, l.alloc+l.pack.alloc
	return quicklistBytes(nodes, alloc), quicklistAlloc(nodes, alloc)
}
