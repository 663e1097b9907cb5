// Package rdbio reads and writes the Redis RDB file format as a stream of
// records, the way archive/tar reads and writes a tar stream.
//
// A Reader walks any RDB that Redis 1.x–8.x, Valkey 7.2–9.x or Dragonfly
// writes, one record at a time, without building whole values in memory:
// every byte it consumes (except the magic and the EOF trailer) is passed to
// an optional sink, so copying a file is "set the sink, call Next until
// io.EOF". List values of types 10, 14 and 18 can instead be taken node by
// node, so that one node string can be re-encoded without touching anything
// else. A Writer mirrors it: it writes the magic, raw bytes, lengths and
// strings, keeps a running CRC64 (Jones) and writes the trailer on Close.
//
// rdbio knows the grammar only. It does not compress or decide anything;
// listcodec does that. Strings are held in memory only up to a cap
// (Options.Cap); larger ones stream through in bounded chunks.
package rdbio
