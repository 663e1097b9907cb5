package analyze

import (
	"encoding/binary"

	"github.com/rdbz/rdbz/rdbio"
	"github.com/rdbz/rdbz/rdbio/blob"
)

// Redis 7.0's default encoding limits (redis.conf), which decide how a
// loaded value is held.
const (
	hashMaxListpackEntries = 128
	hashMaxListpackValue   = 64
	zsetMaxListpackEntries = 128
	zsetMaxListpackValue   = 64
	setMaxIntsetEntries    = 512
	listMaxListpackSize    = 8192 // list-max-listpack-size -2
)

// zskiplistHeader is the allocation of a skiplist's header node (32
// levels); skiplistNodeMean the mean allocation of a node, whose level is
// random (p = 1/4): Σ P(level) × allocSize(24 + 16 × level).
var (
	zskiplistHeader  = allocSize(24 + 32*16)
	skiplistNodeMean = func() float64 {
		var m, p float64 = 0, 0.75
		for l := int64(1); l <= 32; l++ {
			m += p * float64(allocSize(24+16*l))
			p /= 4
		}
		return m
	}()
)

// valueMem estimates what Redis 7.0 holds for one value after loading it
// (what MEMORY USAGE's objectComputeSize counts with SAMPLES 0, the key
// apart), from the parts rdbio's Value.Visit reports. It keeps running sums,
// never the elements.
type valueMem struct {
	typ      rdbio.Type
	blobLen  int64 // a blob value's decoded bytes (-1: none)
	intset   int64 // the intset's member width from its header (0: none)
	strs     int64 // strings seen
	lp       int64 // listpack entries they make (with scores)
	sds      int64 // their sds allocations (members, fields and values)
	maxLen   int64 // longest member, field or value (zsets: member)
	allInt   bool
	width    int64 // intset width their integers need
	skiplist float64
	list     quicklistPack
	stream   streamMem
	enc      string // the encoding bytes found
}

func (m *valueMem) reset(typ rdbio.Type) {
	*m = valueMem{typ: typ, blobLen: -1, allInt: true, width: 2}
	m.list.reset()
	m.stream.reset()
}

// add takes one part of the value.
func (m *valueMem) add(e *rdbio.Elem) error {
	switch e.Kind {
	case rdbio.ElemString:
		m.str(e)
	case rdbio.ElemScore:
		m.lp += scoreEntrySize(e.Score)
	case rdbio.ElemBlob:
		m.blobLen = int64(e.Len)
		if e.Blob == blob.Intset && len(e.Data) >= 4 {
			m.intset = int64(binary.LittleEndian.Uint32(e.Data))
		}
	default:
		m.stream.add(e)
	}
	return nil
}

func (m *valueMem) str(e *rdbio.Elem) {
	n := int64(e.Len)
	v, isInt := int64(0), false
	if e.Data != nil {
		v, isInt = blob.RedisInt(e.Data)
	}
	entry := blob.ListpackStringSize(n)
	if isInt {
		entry = blob.ListpackIntSize(v)
		m.width = max(m.width, intsetWidth(v))
	} else {
		m.allInt = false
	}
	zsetScore := isZset(m.typ) && m.strs%2 == 1 && m.typ != rdbio.TypeZset && m.typ != rdbio.TypeZset2
	m.strs++
	m.lp += entry
	if zsetScore { // a score in a ziplist or listpack: no sds, no node
		return
	}
	m.sds += sdsAllocNonEmpty(n)
	m.maxLen = max(m.maxLen, n)
	m.skiplist += skiplistNodeMean
	if m.typ == rdbio.TypeList {
		m.list.push(n, entry)
	}
}

func intsetWidth(v int64) int64 {
	switch {
	case v >= -1<<15 && v < 1<<15:
		return 2
	case v >= -1<<31 && v < 1<<31:
		return 4
	}
	return 8
}

func isZset(t rdbio.Type) bool {
	return t == rdbio.TypeZset || t == rdbio.TypeZset2 || t == rdbio.TypeZsetZiplist || t == rdbio.TypeZsetListpack
}

// bytes is the value's memory, robj included, as objectComputeSize
// counts it (mu) and as the allocator sees it (alloc: jemalloc's classes of
// the structs objectComputeSize counts by their size, and the real nodes
// of stream trees); ok is false for a type the model does not cover.
func (m *valueMem) bytes() (mu, alloc int64, ok bool) {
	if m.blobLen >= 0 && m.strs == 0 { // a blob over the cap: loaded as it is
		m.enc = blobEncoding(m.typ)
		n := sizeRobj + allocSize(m.blobLen)
		return n, n, true
	}
	switch m.typ {
	case rdbio.TypeSet, rdbio.TypeSetIntset:
		mu, alloc = m.set()
	case rdbio.TypeSetListpack: // 7.2's listpack sets
		m.enc = encListpack
		mu = sizeRobj + allocSize(m.blobLen)
		alloc = mu
	case rdbio.TypeHash, rdbio.TypeHashZipmap, rdbio.TypeHashZiplist, rdbio.TypeHashListpack:
		mu, alloc = m.hash()
	case rdbio.TypeZset, rdbio.TypeZset2, rdbio.TypeZsetZiplist, rdbio.TypeZsetListpack:
		mu, alloc = m.zset()
	case rdbio.TypeList:
		m.enc = encQuicklist
		m.list.flush()
		mu = sizeRobj + quicklistBytes(m.list.nodes, m.list.alloc)
		alloc = sizeRobj + quicklistAlloc(m.list.nodes, m.list.alloc)
	case rdbio.TypeStreamListpacks, rdbio.TypeStream2, rdbio.TypeStream3:
		m.enc = encStream
		m.stream.finish()
		mu, alloc = sizeRobj+m.stream.mu, sizeRobj+m.stream.alloc
	default:
		return 0, 0, false
	}
	return mu, alloc, true
}

// set: an intset while every member is an integer and there are at most
// set-max-intset-entries, else a dict of sds members.
func (m *valueMem) set() (int64, int64) {
	n := m.strs
	if m.allInt && n <= setMaxIntsetEntries {
		w := m.width
		if m.intset > 0 {
			w = m.intset
		}
		m.enc = encIntset
		b := sizeRobj + allocSize(sizeIntsetHeader+w*n)
		return b, b
	}
	m.enc = encHashtable
	return m.dict(n)
}

// dict is a value held in a dict of n entries (robj included).
func (m *valueMem) dict(n int64) (int64, int64) {
	mu := sizeRobj + dictMemory(n, m.sds)
	return mu, mu + dictSlack(n)
}

// hash: a listpack within the limits, else a dict of field and value sds.
func (m *valueMem) hash() (int64, int64) {
	pairs := m.strs / 2
	if m.keepsListpack(pairs, hashMaxListpackEntries, hashMaxListpackValue) {
		m.enc = encListpack
		n := sizeRobj + m.listpack()
		return n, n
	}
	m.enc = encHashtable
	return m.dict(pairs)
}

// zset: a listpack within the limits, else a skiplist and a dict.
func (m *valueMem) zset() (int64, int64) {
	n := m.strs
	if m.typ != rdbio.TypeZset && m.typ != rdbio.TypeZset2 {
		n /= 2
	}
	if m.keepsListpack(n, zsetMaxListpackEntries, zsetMaxListpackValue) {
		m.enc = encListpack
		b := sizeRobj + m.listpack()
		return b, b
	}
	m.enc = encSkiplist
	mu, alloc := m.dict(n)
	zs := sizeZset + sizeZskiplist + zskiplistHeader + int64(m.skiplist)
	return mu + zs, alloc + zs
}

// keepsListpack says whether redis 7.0.15 holds a hash or sorted set of n
// entries as a listpack, as measured: a listpack from the file stays one
// whatever it holds; one converted from a ziplist unless it has more than
// maxEntries; one built from another encoding only within both limits.
func (m *valueMem) keepsListpack(n, maxEntries, maxValue int64) bool {
	switch m.typ {
	case rdbio.TypeHashListpack, rdbio.TypeZsetListpack:
		return true
	case rdbio.TypeHashZiplist, rdbio.TypeZsetZiplist:
		return n <= maxEntries
	}
	return n <= maxEntries && m.maxLen <= maxValue
}

// listpack is the allocation of the value as a listpack: a listpack blob
// is loaded as it is; other encodings are rebuilt entry by entry.
func (m *valueMem) listpack() int64 {
	if m.typ == rdbio.TypeHashListpack || m.typ == rdbio.TypeZsetListpack {
		return allocSize(m.blobLen)
	}
	return allocSize(listpackHeader + m.lp)
}

// Encoding names, as OBJECT ENCODING says them.
const (
	encInt       = "int"
	encEmbstr    = "embstr"
	encRaw       = "raw"
	encQuicklist = "quicklist"
	encListpack  = "listpack"
	encIntset    = "intset"
	encHashtable = "hashtable"
	encSkiplist  = "skiplist"
	encStream    = "stream"
)

// blobEncoding is how a blob value too large to decode is held: an intset
// stays one (beyond its limit it would be a hashtable, which is not
// costed), the others are listpacks.
func blobEncoding(t rdbio.Type) string {
	if t == rdbio.TypeSetIntset {
		return encIntset
	}
	return encListpack
}
