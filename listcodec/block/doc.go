// Package block is rdbz's format-2 container: a byte stream (the dump's
// record stream with every LZF string decoded, called T) cut into blocks at
// record boundaries, each block a column segment (format 2.2,
// listcodec/columns, in a skippable frame) or one zstd frame compressed
// with one dictionary (2.1), and an index at the end that names, per block, where it lies
// in the file and in T, where its first record starts, the writer's state
// there, and a filter of the keys of the records that start in it (cut
// into sections by value), so that one key's block can be found reading one
// section and decoding no other block. FORMAT.md §2 gives the layout byte by byte.
//
// Writer takes T record by record (Begin, then Write as many times as the
// record needs: a record larger than a block continues in the next blocks)
// and compresses blocks on a bounded pool of goroutines, writing them in
// order; Close writes the index. Reader streams T back from any io.Reader
// (stdin included), decoding blocks in parallel with bounded lookahead and
// checking every frame and the index. File reads the index of an
// io.ReaderAt, answers which blocks may hold a key (Lookup) and decodes one
// block alone (DecodeBlock) or T from a block on (StreamFrom).
//
// Memory is bounded by the options, never by the input: a Writer holds
// Workers+1 blocks (at most 16 MiB of them, and two of T in 2.2) and
// their frames, the encoders (one per worker, windows
// of one block), the index's entries (about 100 bytes a block) and its
// filters up to SpillAt bytes (then a temporary file holds them, held.go);
// a Reader holds Lookahead frames and decoded blocks, the dictionary (at
// most MaxDictSize), a 64 KiB read buffer and the decoders; a File holds
// the index's head and the sections its lookups read (at most MaxIndexSize,
// and never more than the file) and one frame per DecodeBlock call. Every length read from a file is
// checked against these bounds before it sizes an allocation, and every
// error about a file's content is an *Error naming the byte offset and
// wrapping one of ErrFormat, ErrTruncated, ErrChecksum, ErrDictionary,
// ErrLimit or ErrVersion.
//
// The whole file is a sequence of zstd frames (skippable frames for the
// header, the index and 2.2's segments), so `zstd -d -D DICT` reproduces T
// from a 2.1 file as well.
//
// block knows nothing of the RDB grammar: records are opaque bytes with an
// optional key. It does not train dictionaries (package train does) and does
// not decide what a record is (the grammar does).
package block
