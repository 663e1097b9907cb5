package verify

import (
	"bytes"
	"encoding/binary"
	"errors"
	"slices"
	"strconv"

	"github.com/hdt3213/rdb/model"
	"github.com/rdbz/rdbz/rdbio"
	"github.com/rdbz/rdbz/rdbio/blob"
)

// blobDigest sets sum to the digest digestObject gives of a set stored as
// an intset or a listpack, or of a hash stored as a listpack, whose value
// (after the one-key RDB's head) is val: its entries are read with
// rdbio/blob rather than decoded into hdt3213/rdb's model, whose maps and
// strings were a fifth of verify's CPU on app-cache-nocompress x4. ok is
// false, and nothing set, for any other type and wherever the blob is not
// as regular as hdt3213/rdb reads it the same way — a header count that is
// not the entries it holds, bytes after them, a hash field twice — so that
// hdt3213/rdb decodes those as before.
func (d *semDecoder) blobDigest(typ rdbio.Type, val []byte, sum []byte) (class string, n int64, ok bool) {
	var kind blob.Kind
	switch typ {
	case rdbio.TypeSetIntset:
		kind, class = blob.Intset, model.SetType
	case rdbio.TypeSetListpack:
		kind, class = blob.Listpack, model.SetType
	case rdbio.TypeHashListpack:
		kind, class = blob.Listpack, model.HashType
	default:
		return "", 0, false
	}
	s := rdbio.NewStringScanner(val, d.limit)
	b, isInt, err := s.String(d.node[:0])
	if err != nil || isInt || s.Offset() != len(val) || !regularBlob(kind, b) {
		return "", 0, false
	}
	count, _ := blob.Count(kind, b, false)
	d.node = keepBuf(b)
	// The entries as strings (integers in decimal, as hdt3213/rdb gives
	// them), end to end in d.blobStr, their ends in d.ends.
	d.blobStr, d.ends = d.blobStr[:0], d.ends[:0]
	defer func() { d.blobStr, d.ends = keepBuf(d.blobStr), keepSlice(d.ends) }()
	err = blob.Entries(kind, b, func(e blob.Entry) error {
		if e.IsInt {
			d.blobStr = strconv.AppendInt(d.blobStr, e.Int, 10)
		} else {
			d.blobStr = append(d.blobStr, e.Str...)
		}
		d.ends = append(d.ends, len(d.blobStr))
		if int64(len(d.ends)) > count {
			return errMoreEntries // than the header says: not read further
		}
		return nil
	})
	if err != nil || int64(len(d.ends)) != count {
		return "", 0, false
	}
	if class == model.SetType {
		n, ok = d.setDigest(sum), true
	} else {
		n, ok = d.hashDigest(sum)
	}
	return class, n, ok
}

var errMoreEntries = errors.New("more entries than the header's count")

// keptEntries is the most entries blobDigest's slices keep between values
// (a value of more leaves them to the collector).
const keptEntries = 1 << 14

// keepSlice is s emptied to be used again, or nil when it holds more than
// keptEntries.
func keepSlice[S ~[]E, E any](s S) S {
	if cap(s) > keptEntries {
		return nil
	}
	return s[:0]
}

// regularBlob reports whether b's header says what hdt3213/rdb reads of it:
// a listpack's count (not 65535, "unknown"); an intset's encoding and as
// many members as its bytes hold.
func regularBlob(kind blob.Kind, b []byte) bool {
	if kind == blob.Listpack {
		return len(b) >= 7 && binary.LittleEndian.Uint16(b[4:]) != 0xFFFF
	}
	if len(b) < 8 {
		return false
	}
	size, count := binary.LittleEndian.Uint32(b), binary.LittleEndian.Uint32(b[4:])
	return (size == 2 || size == 4 || size == 8) && uint64(len(b)-8) == uint64(size)*uint64(count)
}

// entry returns the i-th entry blobDigest gathered.
func (d *semDecoder) entry(i int) []byte {
	start := 0
	if i > 0 {
		start = d.ends[i-1]
	}
	return d.blobStr[start:d.ends[i]]
}

// setDigest digests the gathered entries as a set's members.
func (d *semDecoder) setDigest(sum []byte) int64 {
	m := d.members[:0]
	for i := range d.ends {
		m = append(m, d.entry(i))
	}
	d.dg.reset()
	d.dg.set(m)
	d.dg.sum(sum)
	clear(m)
	d.members = keepSlice(m)
	return int64(len(m))
}

// hashDigest digests the gathered entries as a hash's fields and values in
// turn; false when they are not pairs or a field comes twice (hdt3213/rdb
// keeps the last: decoded there).
func (d *semDecoder) hashDigest(sum []byte) (int64, bool) {
	if len(d.ends)%2 != 0 {
		return 0, false
	}
	pairs := d.pairs[:0]
	defer func() {
		clear(pairs)
		d.pairs = keepSlice(pairs)
	}()
	for i := 0; i < len(d.ends); i += 2 {
		pairs = append(pairs, [2][]byte{d.entry(i), d.entry(i + 1)})
	}
	slices.SortFunc(pairs, func(a, b [2][]byte) int { return bytes.Compare(a[0], b[0]) })
	for i := 1; i < len(pairs); i++ {
		if bytes.Equal(pairs[i-1][0], pairs[i][0]) {
			return 0, false
		}
	}
	d.dg.reset()
	d.dg.str(model.HashType)
	d.dg.num(uint64(len(pairs)))
	for _, p := range pairs {
		d.dg.bytes(p[0]) // as digestObject's str(field): its length, then its bytes
		d.dg.bytes(p[1])
		d.dg.num(0) // no field expiry in a plain listpack hash
	}
	d.dg.sum(sum)
	return int64(len(pairs)), true
}
