package analyze

import (
	"strconv"

	"github.com/rdbz/rdbz/rdbio"
)

// list reads a list value node by node. Its memory is the quicklist Redis
// 7.0 builds (listmem.go): listpack nodes are costed from their decoded
// size, ziplist nodes are decoded (within the cap) to cost the listpack
// they become.
func (a *analyzer) list(rec *rdbio.Record, typ rdbio.Type) (keyFacts, error) {
	ls := &a.res.Lists
	nodes, err := a.r.Value().Nodes()
	if err != nil {
		return keyFacts{}, err
	}
	count := nodes.Len()
	kf := keyFacts{count: rdbio.ValueInfo{Known: true}}
	lm := listMem{typ: typ}
	ls.Keys++
	for i := uint64(0); nodes.Next(); i++ {
		n := nodes.Node()
		a.res.ListNodes.Add(n)
		a.compat.integ.node(rec, n)
		if a.whatIf != nil {
			if err := a.whatIf.Node(rec.Key, n, i, count); err != nil {
				return keyFacts{}, err
			}
		}
		if n.Enc == rdbio.EncZstd {
			kf.zstd = true
			a.res.Rdbz.ZstdNodes++
		}
		decoded := a.node(n)
		if err := lm.node(a, n, decoded); err != nil {
			return keyFacts{}, err
		}
		elems, ok, err := nodes.Elements()
		if err != nil {
			return keyFacts{}, err
		}
		if ok {
			kf.count.Elements += elems
			ls.Elements += elems
		} else {
			kf.count.Known = false
			ls.UnknownNodes++
		}
	}
	if err := nodes.Err(); err != nil {
		return keyFacts{}, err
	}
	mu, alloc := lm.bytes()
	kf.mem, kf.alloc, kf.enc, kf.modeled = sizeRobj+mu, sizeRobj+alloc, encQuicklist, true
	return kf, nil
}

// node counts one list node in the list statistics and returns its
// decoded size.
func (a *analyzer) node(n *rdbio.Node) int64 {
	ls := &a.res.Lists
	stored := int64(len(n.Raw)) + int64(n.Size)
	decoded := int64(n.ULen)
	if n.Enc == rdbio.EncInt {
		decoded = int64(n.Size)
		if n.Data != nil {
			decoded = int64(len(strconv.AppendInt(a.dec[:0], rdbio.IntValue(n.Data), 10)))
		}
	}
	ls.Nodes++
	ls.StoredBytes += stored
	ls.DecodedBytes += decoded
	switch n.Enc {
	case rdbio.EncRaw:
		ls.Raw.add(stored)
	case rdbio.EncLZF:
		ls.LZF.add(stored)
	case rdbio.EncZstd:
		ls.Zstd.add(stored)
	case rdbio.EncInt:
		ls.Int.add(stored)
	}
	if n.Container == 1 {
		ls.Plain.add(stored)
	}
	if n.Data == nil {
		ls.OverCap++
	}
	a.nodeHist.add(stored)
	a.decHist.add(decoded)
	return decoded
}
