// Package listcodec compresses and decompresses the list values of RDB
// files: the quicklist node strings (ziplists, listpacks and PLAIN
// elements) inside list types 10, 14 and 18.
//
// It holds two layers. The node codecs turn one node's bytes into one zstd
// frame that names its dictionary by ID and back (Codec, Dict; LZF is
// rdbio's, as Redis writes it). The pipeline (Compress, Decompress) streams
// an RDB file through rdbio's Reader, cuts list values into node items,
// re-encodes them on a pool of workers, each with its own codecs, and
// writes everything back in input order through rdbio's Writer; everything
// that is not a list node passes through byte for byte. Memory is bounded by
// the options (queue bytes, capture cap, training sample), not by the file.
//
// Training the dictionary (BuildDict, NodeSampler) follows the same rules
// for Compress, its dry run WhatIf, and `rdbz train`. The defaults of every
// option live in defaults.go; the command line reads them from there.
//
// listcodec does not parse the RDB grammar (rdbio does), does not analyze
// files (rdbio/analyze does) and does not compare them (listcodec/verify).
package listcodec
