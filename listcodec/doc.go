// Package listcodec is rdbz's file formats: it opens any input as the RDB
// it holds (Open, Peek, Sniff: the one place a format is told), compresses
// an RDB into format 2 (Compress), turns an rdbz file of either format back
// into an RDB (Decompress), and predicts what compress writes
// (Format2Estimate).
//
// Format 2 (FORMAT.md §2–§3), what Compress writes, is package format2 over
// the container listcodec/block, whose blocks are column segments
// (listcodec/columns, 2.2) or zstd frames (2.1, with a dictionary) of T,
// the record stream listcodec/tstream makes from an RDB and turns back into
// one; this package maps its options onto format2's. Format 1 (FORMAT.md
// Appendix A: list nodes only, the RDB's shape kept) is package
// listcodec/v1, which writes it (`rdbz compress --format 1`), reads it and
// predicts it (its what-if); this package calls v1 only to read a format-1
// file (Decompress, Open).
//
// listcodec does not parse the RDB grammar (rdbio does), nor analyze,
// convert or compare files (the tools under cmd/rdbz/internal do).
package listcodec
