// Package convert rewrites an RDB file so that another server loads it:
// `rdbz convert --target T`. It streams the file through rdbio's Reader and
// Writer, keeps every record the target reads byte for byte, and rewrites
// only what the target cannot read: the magic (RDB version, VALKEY →
// REDIS), Dragonfly's refusal of second-resolution expiries, and values of
// types the target does not read, re-encoded element by element into types
// it reads (reencode.go: listpack hashes and sorted sets → ziplists,
// quicklist 2 → quicklist, set listpacks → intsets or plain sets; older.go:
// newer streams → older ones, hashes with field expiry → what the target
// keeps of them; upgrade.go: for Dragonfly, linked lists, zipmaps and
// ziplist lists → the newer types). docs/convert.md lists every rewrite and
// what each loses. Records and values the target cannot hold are dropped
// only when the caller names their kind (Options.Drop) and refused
// otherwise. What a target reads is rdbio/servers' table: the same table
// decides rdbio/analyze's verdicts and what convert rewrites.
//
// Convert reads an RDB: the command line gives it the RDB an rdbz file
// holds (listcodec.Open); an rdbz-compressed list node (0xC4) left in its
// input is an error.
package convert
