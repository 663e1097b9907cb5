// Package listcodec is rdbz's file formats: it opens any input as the RDB
// it holds (Open, Peek, Sniff: the one place a format is told), compresses
// an RDB (Compress: format 2 through listcodec/format2, or format 1) and
// turns an rdbz file back into an RDB (Decompress), and predicts what
// compress writes (the what-if, WhatIf and Format2Estimate).
//
// Format 2 (FORMAT.md §2–§3) is package format2 over the container
// listcodec/block, whose blocks are column segments (listcodec/columns,
// 2.2) or zstd frames (2.1, with a dictionary) of T, the record stream
// listcodec/tstream makes from an RDB and turns back into one. Format 1 (FORMAT.md
// Appendix A) is the pipeline of this package's root (transcode.go,
// pipeline.go): it streams an RDB through rdbio's Reader, cuts list values
// into node items, re-encodes them on a pool of workers (listcodec/node)
// and writes everything back in input order; its AUX names are
// listcodec/format's. Memory is bounded by the options (queue bytes,
// capture cap, training sample), never by the file.
//
// listcodec does not parse the RDB grammar (rdbio does), nor analyze,
// convert or compare files (the tools under cmd/rdbz/internal do).
package listcodec
