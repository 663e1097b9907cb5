// Package format2 compresses an RDB into rdbz's format 2 and back: the
// dump's T stream (tstream.EncodeT: the records with every faithful LZF
// string decoded) cut into blocks at record boundaries by listcodec/block,
// and an index of the blocks and their keys at the end. The blocks are
// column segments (2.2, Options.Columns: the records split into streams by
// role, listcodec/columns) or zstd frames with one dictionary trained on
// the first TrainBytes of T (2.1).
//
// Compress reads a file or a stream once. Reading, LZF decoding and the
// faithfulness check run on the caller's goroutine (and tstream's LZF
// workers); splitting a block into its streams on the block Writer's
// caller, compressing on its pool, writing on its writer goroutine: an
// ordered, bounded pipeline. Decompress streams T back through
// block.Reader (blocks decoded in parallel) and tstream.DecodeT (strings
// stored as the target says).
//
// format2 does not know the RDB grammar (rdbio does), nor the container's
// bytes (block does), nor format 1 (listcodec reads both and calls this
// package for format 2).
package format2
