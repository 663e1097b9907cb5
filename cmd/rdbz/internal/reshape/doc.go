// Package reshape splits an RDB into one RDB per cluster node and merges
// several RDBs into one (rdbz split, rdbz merge), streaming records
// through rdbio's Reader and Writer: every value is copied as it is stored,
// its record's bytes passing from the input to its output without being
// decoded or held (gate.go holds the few records that wait for their
// destination: a key's expiry, idle and freq records, an AUX field until
// its bytes are complete).
//
// Split routes each key by its hash slot (rdbio/cluster) to the part that
// serves it, copies AUX fields, function libraries and module AUX data
// into every part, writes each part's own SELECTDB 0 and RESIZEDB and
// CRC64 trailer, and writes the parts concurrently through bounded queues
// (queue.go). Merge reads its inputs twice: a first pass indexes every key
// in an external sort of hashes (keyindex.go, rdbio/internal/extsort) to
// find the keys more than one input holds, before anything is written;
// the second writes.
//
// reshape knows nothing of rdbz's compressed formats: listcodec/splitmerge
// gives it the RDB inside an rdbz input, and compresses its outputs. The
// inputs' version rules are rdbio/convert's (convert.MergedHeader).
package reshape
