// Package analyze tells what an RDB file holds, in one streaming pass over
// an rdbio.Reader and bounded memory.
//
// Summarize counts records, keys per database and per type, serialized
// bytes and list nodes: what `rdbz info` prints. Analyze adds the producer,
// element counts, an in-memory size estimate, the largest keys and key
// prefixes, TTL buckets, list node statistics, the data problems servers
// refuse (duplicate keys, damaged blobs) and whether each server of
// rdbio/servers' table would load the file: what `rdbz analyze` prints.
// With Options.Keys it writes a CSV row per key; with Options.WhatIf it
// also predicts, from the same pass, what `rdbz compress --format 1` would
// write (listcodec/v1's WhatIf, which runs its Compress's own sampler and
// rules), and with Options.Format2 what `rdbz compress` would.
//
// The memory estimate is this package's own model of how Redis 7.0 holds
// each value after loading (memory.go, valuemem.go, listmem.go,
// quicklist.go, streammem.go, rax.go): the structs of each encoding, rounded
// up to jemalloc's size classes (jemalloc.go), checked against a real
// redis-server's MEMORY USAGE and used_memory_dataset by the tests.
//
// It reads through rdbio's public API only: rdbio walks the grammar, decodes
// the blobs and counts elements; this package adds them up and judges. It
// does not walk the RDB grammar itself, change or write files, or compress;
// counts it cannot tell cheaply (module values, Dragonfly sketches,
// rdbz-compressed nodes) are reported as unknown rather than decoded.
package analyze
