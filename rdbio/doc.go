// Package rdbio reads and writes the Redis RDB file format as a stream of
// records, the way archive/tar reads and writes a tar stream.
//
// A Reader walks any RDB that Redis 1.x–8.x, Valkey 7.2–9.x or Dragonfly
// writes, one record at a time, without building whole values in memory:
// every byte it consumes (except the magic and the EOF trailer) is passed to
// an optional sink, so copying a file is "set the sink, call Next until
// io.EOF". Next returns a small decoded Record; a key record's value is read,
// at most once and only until the next call to Next, through its handle
// (Reader.Value):
//
//	for {
//		rec, err := r.Next()
//		...
//		if rec.Kind == rdbio.KindKey {
//			info, err := r.Value().Count(nil)
//			...
//		}
//	}
//
// The handle copies the value elsewhere (Copy), walks and describes it
// (Count: its element count, read from the structure — collection lengths,
// blob headers, stream lengths — never by decoding the elements), reports
// its parts (Visit), reads it whole for an exporter (Decode: every string
// with its bytes, in pieces over the cap), reads a hash's fields with their expiry
// (ExpiringFields), copies a stream as an older stream type (CopyStreamAs),
// or walks a list value of types 10, 14 and 18 node by node (Nodes), so
// that one node string can be re-encoded without touching anything else. A
// value not read is skipped by Next; a handle used twice or after Next
// fails with ErrValueUsed. A key's Type is what its type byte means for the
// file's producer (Redis or Valkey by the magic, Dragonfly by an AUX df-ver
// or its opcodes before the first key), decided once per file.
//
// A Filter is a stage around a Reader that leaves out the keys a test
// rejects (filter.go): such a key never reaches the sink nor Next, with its
// value and the records that belong to it; the key filter of rdbz's
// commands (cmd/rdbz/internal/filter) builds the test from Redis glob
// patterns, dbs, types and expiry.
//
// A StringHook (hook.go) sees each string as the Reader reads it —
// encoding, prefix, payload — and chooses what goes to the sink in its
// place: format 2 (listcodec/tstream) stores LZF strings decoded that way,
// and turns them back. The Reader itself knows nothing of what it is for.
//
// A Writer mirrors the Reader: it writes the magic, raw bytes, lengths and
// strings, keeps a running CRC-64 and writes the trailer on Close. Lengths
// and strings (FORMAT.md §5) have one decoder here, which the Reader and
// StringScanner (a value held whole) share.
//
// The encodings the grammar builds on are packages below it, each on the
// standard library alone: rdbio/lzf (LZF, the 0xC3 strings), rdbio/crc64
// (the trailer's checksum) and rdbio/blob (listpack, ziplist, intset and
// zipmap: counting, walking, checking and writing them, docs/codecs.md).
// rdbio reads a blob's string off the input and hands its bytes to
// rdbio/blob. Below the grammar, rdbio/envelope (on the standard library
// and two compression libraries) unwraps Valkey's VKCS envelope: NewReader
// reads an enveloped file as the RDB inside it (Header.Envelope).
//
// There is one walk of the grammar: the value walk that Next uses to skip
// a value is the one Value.Copy and Value.Count use. rdbio does not
// compress (listcodec does that), nor sum up or judge a file, nor decide
// how to convert one (the tools under cmd/rdbz/internal do, through this
// package's public API). Strings are held in memory only up to a cap
// (Options.Cap); larger ones stream through in bounded chunks.
package rdbio
