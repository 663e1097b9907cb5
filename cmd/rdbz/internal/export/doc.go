// Package export writes the keys of an RDB file out as something other
// than an RDB: `rdbz export` and `rdbz get` (docs/export.md).
//
//   - RESP commands that `redis-cli --pipe` sends to a server: plain
//     commands (SET, RPUSH, SADD, ZADD, HSET, XADD with XSETID, XGROUP and
//     XCLAIM for stream state, PEXPIREAT, HPEXPIREAT for field TTLs,
//     FUNCTION LOAD, SELECT), batched so that no command passes
//     Limits; or RESTORE commands carrying each value's DUMP payload.
//   - JSON: one object per key, strings binary-safe (rdbio/escape).
//   - text: what `rdbz get` prints, Go-quoted.
//
// The value of each key is read element by element through rdbio's
// Value.Decode (ExpiringFields for hashes with field TTLs): a string over
// the cap streams through in pieces, so memory is bounded by the cap and
// Limits whatever the file holds. A walker (walk.go) turns the elements
// into the events a renderer takes (resp.go, restore.go, json.go,
// text.go). What a renderer cannot carry (module values for plain
// commands, what the target server lacks) is skipped and counted in the
// Report.
//
// Writer renders the keys a caller hands it (one at a time, with the
// Reader that holds the value): Export for a whole file, Scan for the keys
// `rdbz get` asks for, and listcodec/lookup for a format-2 file read
// through its index.
package export
