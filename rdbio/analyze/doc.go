// Package analyze tells what an RDB file holds, in one streaming pass over
// an rdbio.Reader and bounded memory.
//
// Summarize counts records, keys per database and per type, serialized
// bytes and list nodes: what `rdbz info` prints. Analyze adds the producer,
// element counts, an in-memory size estimate (hdt3213/rdb's memory
// profiler run on sampled values, formulas for strings and lists), the
// largest keys and key prefixes, TTL buckets, list node statistics and
// whether each Redis, Valkey and Dragonfly version would load the file:
// what `rdbz analyze` prints.
//
// It reads through rdbio's public API only: rdbio walks the grammar and
// counts elements (rdbio.Value.Count, Nodes.Elements); this package
// adds them up and judges. It does not walk the RDB grammar itself (it
// only wraps single values in a minimal RDB to hand them to hdt3213/rdb's
// decoder), change or write files, or compress; counts it cannot tell cheaply (module
// values, Dragonfly sketches, rdbz-compressed nodes) are reported as
// unknown rather than decoded.
package analyze
