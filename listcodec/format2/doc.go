// Package format2 compresses an RDB into rdbz's format 2 and back: the
// dump's T stream (rdbio.EncodeT: the records with every faithful LZF
// string decoded) cut into blocks at record boundaries by listcodec/block,
// each block one zstd frame with one dictionary trained on samples of the
// whole T, and an index of the blocks and their keys at the end.
//
// Compress reads a file twice (a sampling pass, then the compress pass) or
// a stream once (the first TrainBytes of T held and trained on, then
// written, then the rest as it streams by). Reading, LZF decoding and the
// faithfulness check run on the caller's goroutine; block compression on
// the block Writer's pool; writing on its writer goroutine: an ordered,
// bounded pipeline. Decompress streams T back through block.Reader (blocks
// decoded in parallel) and rdbio.DecodeT (strings stored as the target
// says).
//
// format2 does not know the RDB grammar (rdbio does), nor the container's
// bytes (block does), nor format 1 (listcodec reads both and calls this
// package for format 2).
package format2
