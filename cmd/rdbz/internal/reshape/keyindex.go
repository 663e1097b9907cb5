package reshape

import (
	"cmp"
	"encoding/binary"
	"hash/maphash"

	"github.com/rdbz/rdbz/cmd/rdbz/internal/extsort"
)

// keyIndex finds the keys that occur more than once among the inputs, in
// bounded memory whatever their number: every occurrence is a 32-byte
// keyRec — a 128-bit hash of the key's identity (its db and name), where it
// is and what it is — gathered in an external sort (extsort: runs of
// sortMem bytes spilled to os.TempDir, unlinked at once), and the
// occurrences with equal hashes come out side by side, in input order.
//
// Why a sort of hashes and not a set: a key set answers "seen before?" as
// keys come, but merge --on-duplicate last must know, at a key's first
// occurrence, that a later input holds it again, so the whole index is
// needed before anything is written; sorting it once gives every duplicate
// in one sequential pass. Measured (BenchmarkKeyIndex, 2 busy cores): for
// 10 million keys the sort took 6-7 s, a heap of ~25 MiB and 304 MiB of
// disk, a Go map of the same hashes 11-12 s and 540 MiB of heap (growing
// ~54 bytes a key). Why no key bytes: a hash equality is taken for a
// duplicate; two different keys collide with a probability of n²/2^129
// for n keys (3·10⁻²¹ for a billion keys), far below the error rates of
// the disks that hold the dumps, while keeping the keys' bytes to compare
// would cost their whole size on disk again.
// The random seeds (maphash) keep crafted keys from colliding on purpose.
type keyIndex struct {
	seeds [2]maphash.Seed
	s     *extsort.Sorter[keyRec]
	buf   []byte
}

// keyRec is one occurrence of a key: its hash, id (input<<48 | offset of
// its record) and meta (db<<1 | 1 when it has an expiry).
type keyRec struct{ h0, h1, id, meta uint64 }

// sortMem is the memory of an index's sort buffer.
const sortMem = 8 << 20 // beside split's three format-2 compressors: within 64 MiB

// offsetBits is the share of a keyRec id for the record's offset: 256 TB.
const offsetBits = 48

var keyRecCodec = extsort.Codec[keyRec]{Size: 32,
	Put: func(b []byte, k keyRec) {
		binary.LittleEndian.PutUint64(b[0:], k.h0)
		binary.LittleEndian.PutUint64(b[8:], k.h1)
		binary.LittleEndian.PutUint64(b[16:], k.id)
		binary.LittleEndian.PutUint64(b[24:], k.meta)
	},
	Get: func(b []byte) keyRec {
		le := binary.LittleEndian
		return keyRec{le.Uint64(b[0:]), le.Uint64(b[8:]), le.Uint64(b[16:]), le.Uint64(b[24:])}
	}}

// compareKeyRecs orders by hash, then input order (spelled out: cmp.Or
// evaluates every comparison, and this one runs n log n times).
func compareKeyRecs(a, b keyRec) int {
	switch {
	case a.h0 != b.h0:
		return cmp.Compare(a.h0, b.h0)
	case a.h1 != b.h1:
		return cmp.Compare(a.h1, b.h1)
	}
	return cmp.Compare(a.id, b.id)
}

func newKeyIndex() *keyIndex {
	return &keyIndex{seeds: [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()},
		s: extsort.New(keyRecCodec, compareKeyRecs, sortMem, "")}
}

// add records an occurrence of key in db (ident: the db it is identified
// by, which split's --db-to-0 sets to 0 for every key), at input and
// offset.
func (x *keyIndex) add(ident, db uint64, key []byte, input int, offset int64, expires bool) error {
	x.buf = binary.AppendUvarint(x.buf[:0], ident)
	x.buf = append(x.buf, key...)
	meta := db << 1
	if expires {
		meta |= 1
	}
	return x.s.Add(keyRec{maphash.Bytes(x.seeds[0], x.buf), maphash.Bytes(x.seeds[1], x.buf),
		makeID(input, offset), meta})
}

func makeID(input int, offset int64) uint64 { return uint64(input)<<offsetBits | uint64(offset) }

func splitID(id uint64) (int, int64) { return int(id >> offsetBits), int64(id & (1<<offsetBits - 1)) }

// pairs ends the adding and calls fn with each two successive occurrences
// of one key (prev before cur in input order): a key held three times
// gives two pairs.
func (x *keyIndex) pairs(fn func(prev, cur keyRec) error) error {
	it, err := x.s.Sort()
	if err != nil {
		return err
	}
	var prev keyRec
	for first := true; ; first = false {
		cur, ok, err := it.Next()
		if err != nil || !ok {
			return err
		}
		if !first && cur.h0 == prev.h0 && cur.h1 == prev.h1 {
			if err := fn(prev, cur); err != nil {
				return err
			}
		}
		prev = cur
	}
}

// close removes the index's files.
func (x *keyIndex) close() { x.s.Close() }
