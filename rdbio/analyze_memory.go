package rdbio

import (
	"bytes"
	"encoding/binary"

	"github.com/hdt3213/rdb/core"
	"github.com/hdt3213/rdb/model"
)

// MemoryStats says how the in-memory estimate was made.
type MemoryStats struct {
	// Bytes is the estimated memory of all keys (key, value and expiry
	// overhead, as hdt3213/rdb's memory profiler counts it for Redis).
	Bytes int64 `json:"bytes"`
	// Profiled keys went through hdt3213/rdb's decoder and memory
	// profiler; Formula keys (lists, strings) were costed from their
	// structure with the profiler's own formulas; Ratio keys were scaled
	// from the profiled keys of their type (or × 2 when none was).
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
const memFirst = 1000

// Overheads of the profiler's model (hdt3213/rdb memprofiler, 64-bit):
// a dictEntry and a robj per key, a second dictEntry and an int64 per
// expiry; quicklist headers and per-node structs.
const (
	memKeyOverhead    = 24 + 16 + 3 // dictEntry + robj + sds header of the key
	memExpireOverhead = 24 + 8
	memStringOverhead = 10 // sds header and terminator of a value
	memQuicklist2     = 40 // quicklist struct
	memQuicklist2Node = 36 // quicklistNode
	memQuicklist      = 32
	memQuicklistNode  = 48
	memNoProfileRatio = 2.0 // types nothing was profiled of: twice the serialized bytes
)

// memProfiler feeds values to hdt3213/rdb's core decoder, which computes
// memprofiler.SizeOfObject for every object it decodes: each value is
// wrapped in a tiny RDB file of its own (magic, expiry, type, key, value,
// EOF), so that a value the decoder rejects (or panics on: Parse recovers)
// costs only itself.
type memProfiler struct {
	magic []byte
	cap   int
	every int
	seen  map[string]int64
	file  []byte
	rd    bytes.Reader
}

func newMemProfiler(h Header, cap, every int) *memProfiler {
	magic := h.Magic
	switch {
	case h.Valkey:
		magic = "VALKEY080" // the only Valkey version the decoder reads
	case h.Version > 12:
		magic = "REDIS0011"
	}
	return &memProfiler{magic: []byte(magic), cap: cap, every: max(every, 1), seen: map[string]int64{}}
}

// profiles reports whether hdt3213/rdb's decoder reads type t as this
// file's producer means it (name is the type's name), without printing
// anything: not modules, not the types of Redis 8.6+ or Dragonfly.
func profiles(t byte, name string) bool {
	switch {
	case t == TypeModulePreGA || t == TypeModule2 || t == 8:
		return false
	case name == "json" || name == "path-hash":
		return false
	}
	return t <= TypeHashListpackEx
}

// want reports whether the next value of type name should be profiled.
func (m *memProfiler) want(t byte, name string) bool {
	if m.cap <= 0 || !profiles(t, name) {
		return false
	}
	n := m.seen[name]
	m.seen[name] = n + 1
	return n < memFirst || n%int64(m.every) == 0
}

// size runs the decoder on one value and returns the profiler's estimate.
func (m *memProfiler) size(t byte, key []byte, expire int64, value []byte) (int64, bool) {
	f := append(m.file[:0], m.magic...)
	if expire != -1 {
		f = binary.LittleEndian.AppendUint64(append(f, OpExpireMs), uint64(expire))
	}
	f = append(AppendLen(append(f, t), uint64(len(key))), key...)
	f = append(f, value...)
	f = append(f, OpEOF, 0, 0, 0, 0, 0, 0, 0, 0)
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

// keyOverhead is the profiler's cost of a key apart from its value.
func keyOverhead(key []byte, expire int64) int64 {
	n := int64(memKeyOverhead + len(key))
	if expire != -1 {
		n += memExpireOverhead
	}
	return n
}

// captureBuf is a sink that keeps at most max bytes; it records whether
// more came.
type captureBuf struct {
	buf  []byte
	max  int
	over bool
}

func (c *captureBuf) reset(max int) {
	c.buf, c.max, c.over = c.buf[:0], max, false
}

func (c *captureBuf) Write(p []byte) (int, error) {
	if !c.over {
		if len(c.buf)+len(p) > c.max {
			c.over = true
		} else {
			c.buf = append(c.buf, p...)
		}
	}
	return len(p), nil
}

// listMemory is the profiler's formula for a quicklist from its nodes:
// the list header, a node struct per node, and the decoded node bytes.
type listMemory struct {
	nodes, decoded int64
}

func (l listMemory) bytes(t byte) int64 {
	switch t {
	case TypeListQuicklist2:
		return memQuicklist2 + l.nodes*memQuicklist2Node + l.decoded
	case TypeListQuicklist:
		return memQuicklist + l.nodes*memQuicklistNode + l.decoded
	}
	return l.decoded // a ziplist
}
