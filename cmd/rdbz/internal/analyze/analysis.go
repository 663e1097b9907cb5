package analyze

import "github.com/rdbz/rdbz/listcodec/v1"

// Analysis is what Analyze finds in a file: everything Summarize counts
// (embedded, so that its JSON holds the fields of `rdbz info --json`) and
// the producer, element counts, memory estimate, rankings, TTLs, list node
// statistics and server compatibility.
type Analysis struct {
	Summary
	// TrailingBytes follow the EOF trailer (an AOF with RDB preamble).
	TrailingBytes int64                 `json:"trailing_bytes"`
	Producer      Producer              `json:"producer"`
	Rdbz          RdbzInfo              `json:"rdbz"`
	TypeStats     map[string]*TypeStats `json:"type_stats"`
	Memory        MemoryStats           `json:"memory"`
	TTL           TTLStats              `json:"ttl"`
	Rankings
	Lists  ListStats `json:"lists"`
	Compat []Compat  `json:"compat"`
	// WhatIf is what `rdbz compress` would write (Options.WhatIf); nil
	// when not asked for, or when the pass failed.
	WhatIf *v1.WhatIfReport `json:"whatif"`
	// WhatIfSeconds is what the what-if took beyond the pass (training,
	// the second sample's compression).
	WhatIfSeconds float64 `json:"whatif_seconds"`

	// What Combine merges beyond the fields: the node size histograms
	// (stored, decoded) and the prefix counters.
	hists    [2]*sizeHistogram
	prefixes *prefixTree
}

// Rankings are the largest keys and prefixes.
type Rankings struct {
	// TopBytes ranks keys by serialized bytes; TopElements ranks keys of
	// every type but strings by element count; TopMemory by estimated
	// memory.
	TopBytes    []KeyInfo `json:"top_bytes"`
	TopElements []KeyInfo `json:"top_elements"`
	TopMemory   []KeyInfo `json:"top_memory"`
	// Biggest is the biggest key of each type family, measured as
	// redis-cli --bigkeys does: strings by length, lists, sets, sorted
	// sets, hashes and streams by element count; other families (modules,
	// Dragonfly types) by serialized bytes.
	Biggest  map[string]*KeyInfo `json:"biggest"`
	Prefixes PrefixStats         `json:"prefixes"`
}

// Producer is who wrote the file, from the magic and the AUX fields.
type Producer struct {
	Name      string `json:"name"` // redis, valkey, dragonfly or unknown
	Version   string `json:"version"`
	RedisVer  string `json:"redis_ver,omitempty"`
	ValkeyVer string `json:"valkey_ver,omitempty"`
	DflyVer   string `json:"df_ver,omitempty"`
	Ctime     int64  `json:"ctime"`    // Unix seconds; 0 when absent
	UsedMem   int64  `json:"used_mem"` // bytes; 0 when absent
	AofBase   bool   `json:"aof_base"` // AUX aof-base = 1: the base of a multi-part AOF
}

// RdbzInfo says whether the file is rdbz-compressed (FORMAT.md).
type RdbzInfo struct {
	Compressed bool       `json:"compressed"` // AUX rdbz-format present
	Format     string     `json:"format,omitempty"`
	Dicts      []DictInfo `json:"dicts"`
	// ExternalDictIDs name dictionaries the file needs but does not
	// carry (AUX rdbz-dict-id).
	ExternalDictIDs []uint32 `json:"external_dict_ids,omitempty"`
	ZstdNodes       int64    `json:"zstd_nodes"`
	// An rdbz file read as the RDB it holds: its size, blocks and index
	// (the reader fills them; 0 for an RDB).
	FileBytes  int64 `json:"file_bytes,omitempty"`
	Blocks     int64 `json:"blocks,omitempty"`
	IndexBytes int64 `json:"index_bytes,omitempty"`
}

// DictInfo is one embedded zstd dictionary.
type DictInfo struct {
	ID    uint32 `json:"id"`
	Bytes int    `json:"bytes"`
}

// TypeStats is what the keys of one type/encoding hold.
type TypeStats struct {
	Family string `json:"family"`
	Keys   int64  `json:"keys"`
	Bytes  int64  `json:"bytes"`
	// Elements sums the element counts that are known (for strings: the
	// value lengths); UnknownKeys counts keys whose count is not.
	Elements    int64 `json:"elements"`
	UnknownKeys int64 `json:"elements_unknown_keys"`
	// MemoryBytes is the estimated in-memory size (see MemoryStats).
	MemoryBytes int64 `json:"memory_bytes"`
}

// TTLStats buckets keys by the time left to live at the reference time:
// none, already expired, under an hour, a day, a week, and longer.
type TTLStats struct {
	Reference   string      `json:"reference"` // "ctime" (the file's) or "now"
	ReferenceMs int64       `json:"reference_ms"`
	Buckets     []TTLBucket `json:"buckets"`
}

// TTLBucket is one row of TTLStats.
type TTLBucket struct {
	Bucket string `json:"bucket"`
	Keys   int64  `json:"keys"`
	Bytes  int64  `json:"bytes"`
}

// PrefixStats ranks key prefixes (the key up to its first separator byte,
// up to its second, ... to Depth) by estimated memory.
type PrefixStats struct {
	Separators string `json:"separators"`
	Depth      int    `json:"depth"`
	Tracked    int    `json:"tracked"`
	// Exact is false when more distinct prefixes came than were tracked:
	// the ranking is then Space-Saving's, whose Error bounds each count.
	Exact bool `json:"exact"`
	// Top lists the top prefixes of depth 1, each followed by its largest
	// prefixes of depth 2 (up to 5), each of those by its own, and so on.
	Top []PrefixInfo `json:"top"`
}

// ListStats describes the quicklist nodes of list values (types 10, 14, 18).
type ListStats struct {
	Keys  int64 `json:"keys"`
	Nodes int64 `json:"nodes"`
	// Elements sums the nodes' element counts that are known;
	// UnknownNodes counts nodes whose count is not (over the cap, or
	// rdbz-compressed).
	Elements     int64 `json:"elements"`
	UnknownNodes int64 `json:"elements_unknown_nodes"`
	OverCap      int64 `json:"over_cap_nodes"` // payload larger than the capture cap
	// By storage: raw, LZF (0xC3), rdbz zstd (0xC4), integer; and PLAIN
	// nodes (type 18 container 1: one large element) whatever their storage.
	Raw   NodeCount `json:"raw"`
	LZF   NodeCount `json:"lzf"`
	Zstd  NodeCount `json:"zstd"`
	Int   NodeCount `json:"int"`
	Plain NodeCount `json:"plain"`
	// StoredBytes counts node strings as stored (prefix and payload);
	// DecodedBytes their decoded payloads.
	StoredBytes  int64 `json:"stored_bytes"`
	DecodedBytes int64 `json:"decoded_bytes"`
	// LZFShare is the share of StoredBytes in LZF nodes.
	LZFShare    float64     `json:"lzf_share"`
	NodeStored  Percentiles `json:"node_stored_bytes"`
	NodeDecoded Percentiles `json:"node_decoded_bytes"`
}

// NodeCount counts nodes and their stored bytes.
type NodeCount struct {
	Nodes int64 `json:"nodes"`
	Bytes int64 `json:"bytes"`
}

func (c *NodeCount) add(b int64) { c.Nodes++; c.Bytes += b }

// countedFamilies are ranked by element count in Biggest (strings by
// length); the others by serialized bytes.
var countedFamilies = map[string]bool{"string": true, "list": true, "set": true, "zset": true, "hash": true, "stream": true}
