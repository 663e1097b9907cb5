package analyze

import (
	"bytes"
	"encoding/binary"
	"time"
	"unsafe"

	"github.com/hdt3213/rdb/core"
	"github.com/hdt3213/rdb/memprofiler"
	"github.com/hdt3213/rdb/model"
	"github.com/rdbz/rdbz/rdbio"
)

// MemoryStats says how the in-memory estimate was made.
type MemoryStats struct {
	// Bytes is the estimated memory of all keys (key, value and expiry
	// overhead, as hdt3213/rdb's memory profiler counts it for Redis).
	Bytes int64 `json:"bytes"`
	// Profiled keys went through hdt3213/rdb's decoder and memory
	// profiler. Formula keys were costed without decoding: strings by
	// memprofiler.SizeOfObject on their length, lists by the profiler's
	// quicklist formula from the node sizes. Ratio keys were scaled from
	// the profiled keys of their type (or × 2 when none was).
	Profiled int64 `json:"profiled_keys"`
	Formula  int64 `json:"formula_keys"`
	Ratio    int64 `json:"ratio_keys"`
	// Cap and Every are the profiling limits used: values of at most Cap
	// serialized bytes; all of the first memFirst of each type, then one in
	// Every.
	Cap   int `json:"cap"`
	Every int `json:"every"`
}

// memFirst values of each type are all profiled before sampling starts.
const memFirst = 256

// The profiler's quicklist model (hdt3213/rdb memprofiler/list.go,
// 64-bit): a quicklist struct per list and a node struct per node, plus the
// node bytes.
const (
	memQuicklist2     = 40 // quicklist struct (RDB type 18)
	memQuicklist2Node = 36 // quicklistNode
	memQuicklist      = 32 // type 14
	memQuicklistNode  = 48
	memStringHeader   = 10 // sds header and terminator of a value too large to fake
	memNoProfileRatio = 2.0
)

// memFakeMax is the longest string value costed exactly (by handing the
// profiler a stand-in of that length); longer ones add their length and
// a header to the key's cost.
const memFakeMax = 1 << 20

// integerValue stands for any integer: the profiler costs them all 0.
var integerValue = []byte("0")

// memProfiler feeds values to hdt3213/rdb's core decoder, which computes
// memprofiler.SizeOfObject for every object it decodes: each value is
// wrapped in a tiny RDB file of its own (magic, expiry, type, key, value,
// EOF), so that a value the decoder rejects (or panics on: Parse recovers)
// costs only itself.
type memProfiler struct {
	magic []byte
	cap   int
	every int
	file  []byte
	rd    bytes.Reader
	fake  []byte
	base  model.BaseObject
	str   model.StringObject
	exp   time.Time
}

func newMemProfiler(h rdbio.Header, cap, every int) *memProfiler {
	magic := h.Magic
	switch {
	case h.Valkey:
		magic = "VALKEY080" // the only Valkey version the decoder reads
	case h.Version > 12:
		magic = "REDIS0011"
	}
	return &memProfiler{magic: []byte(magic), cap: cap, every: max(every, 1)}
}

// profiles reports whether values of type t go through hdt3213/rdb's
// decoder: types it reads as this file's producer means them (name is the
// type's name) without printing anything, so not modules, not the types of
// Redis 8.6+ or Dragonfly; and not strings and lists, which are costed by
// formula (the same numbers, without decoding).
func profiles(t byte, name string) bool {
	switch {
	case t == rdbio.TypeString || rdbio.IsList(t):
		return false
	case t == rdbio.TypeModulePreGA || t == rdbio.TypeModule2 || t == 8:
		return false
	case name == "json" || name == "path-hash":
		return false
	}
	return t <= rdbio.TypeHashListpackEx
}

// want reports whether the next value of type t named name should be
// profiled; seen counts the values of that type met so far.
func (m *memProfiler) want(t byte, name string, seen *int64) bool {
	if m.cap <= 0 || !profiles(t, name) {
		return false
	}
	n := *seen
	*seen = n + 1
	return n < memFirst || n%int64(m.every) == 0
}

// size runs the decoder on one value and returns the profiler's estimate.
func (m *memProfiler) size(t byte, key []byte, expire int64, value []byte) (int64, bool) {
	f := append(m.file[:0], m.magic...)
	if expire != -1 {
		f = binary.LittleEndian.AppendUint64(append(f, rdbio.OpExpireMs), uint64(expire))
	}
	f = append(rdbio.AppendLen(append(f, t), uint64(len(key))), key...)
	f = append(f, value...)
	f = append(f, rdbio.OpEOF, 0, 0, 0, 0, 0, 0, 0, 0)
	m.file = f
	m.rd.Reset(f)
	var got int64
	ok := false
	err := core.NewDecoder(&m.rd).Parse(func(o model.RedisObject) bool {
		got, ok = int64(o.GetSize()), true
		return false
	})
	if err != nil || !ok || got <= 0 {
		return 0, false
	}
	return got, true
}

// stringMemory is the profiler's estimate for a string key whose value
// is length bytes long (integer says it is an integer, which Redis shares):
// memprofiler.SizeOfObject on a stand-in value of that length, whose
// contents the profiler does not look at beyond "is it an integer".
func (m *memProfiler) stringMemory(key []byte, expire, length int64, integer bool) int64 {
	// One object reused for every call: the profiler keeps nothing.
	m.base = model.BaseObject{Key: unsafe.String(unsafe.SliceData(key), len(key))}
	if expire != -1 {
		m.exp = time.UnixMilli(expire)
		m.base.Expiration = &m.exp
	}
	m.str = model.StringObject{BaseObject: &m.base}
	switch {
	case integer:
		m.str.Value = integerValue
	case length <= memFakeMax:
		if int64(len(m.fake)) < length {
			m.fake = bytes.Repeat([]byte{'x'}, int(max(length, 4096)))
		}
		m.str.Value = m.fake[:length]
	default: // the key alone (plus an empty value's 8 bytes), then the value
		return int64(memprofiler.SizeOfObject(&m.str)) - 8 + length + memStringHeader
	}
	return int64(memprofiler.SizeOfObject(&m.str))
}

// valueMemory is the profiler's cost of a string value alone (an sds,
// rounded to the allocator's size class): also how it costs a PLAIN node.
func (m *memProfiler) valueMemory(length int64) int64 {
	return m.stringMemory(nil, -1, length, false) - m.stringMemory(nil, -1, 0, false) + 8
}

// keyMemory is the profiler's cost of a key apart from its value: a
// string key's estimate less that of an empty value (8 bytes).
func (m *memProfiler) keyMemory(key []byte, expire int64) int64 {
	return m.stringMemory(key, expire, 0, false) - 8
}

// listMemory is the profiler's formula for a quicklist from its nodes:
// the list header, a node struct per node, the decoded bytes of packed
// nodes and the sds cost of PLAIN ones. The profiler counts a type-14
// ziplist node from its elements, which this approximates by its bytes.
type listMemory struct {
	nodes, packed, plain int64
}

func (l listMemory) bytes(t byte) int64 {
	switch t {
	case rdbio.TypeListQuicklist2:
		return memQuicklist2 + l.nodes*memQuicklist2Node + l.packed + l.plain
	case rdbio.TypeListQuicklist:
		return memQuicklist + l.nodes*memQuicklistNode + l.packed
	}
	return l.packed // a ziplist
}
