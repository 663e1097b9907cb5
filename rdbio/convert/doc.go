// Package convert rewrites an RDB file so that another server loads it:
// `rdbz convert --target T`. It streams the file through rdbio's Reader and
// Writer, keeps every record the target reads byte for byte, and rewrites
// only what the target cannot read: the magic (RDB version, VALKEY →
// REDIS), Dragonfly's refusal of second-resolution expiries, and the records
// and values it cannot hold, which are dropped only when the caller names
// their kind (Options.Drop) and refused otherwise. What a target reads is
// rdbio/analyze's compatibility table (analyze.Target): one table decides
// both analyze's verdicts and what convert rewrites.
//
// rdbz-compressed list nodes (0xC4) are decoded on the way by a stage the
// caller injects (Options.Decode: listcodec's decompressor, wired by
// cmd/rdbz), so that this package stays on rdbio and rdbio/analyze and does
// not import the node codecs, as rdbio/analyze gets its what-if hook.
//
// Values the target reads only after element re-encoding (listpack →
// ziplist, quicklist 2 → quicklist, set listpack → intset, streams, hashes
// with field expiry) are not converted yet: they are refused, naming the
// key and the conversion needed, or dropped with Options.Drop.
package convert
