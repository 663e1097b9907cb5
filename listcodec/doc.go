// Package listcodec is rdbz's compress/decompress pipeline for the list
// values of RDB files: the quicklist node strings (ziplists, listpacks and
// PLAIN elements) inside list types 10, 14 and 18.
//
// The pipeline (Compress, Decompress; transcode.go, pipeline.go) streams an
// RDB file through rdbio's Reader, cuts list values into node items,
// re-encodes them on a pool of workers, each with its own codec
// (listcodec/node), and writes everything back in input order through
// rdbio's Writer; everything that is not a list node passes through byte
// for byte. Memory is bounded by the options (queue bytes, capture cap,
// training sample), not by the file. The file format it writes is
// FORMAT.md; its AUX names are listcodec/format's.
//
// Training (training.go: BuildDict, NodeSampler) follows the same rules for
// Compress, `rdbz train` and the what-if (whatif.go: WhatIf, Compress's dry
// run, which rdbio/analyze runs). The defaults of every option live in
// defaults.go; a zero option field means its default, and the command line
// shows the same values.
//
// listcodec does not parse the RDB grammar (rdbio does), does not analyze
// files (rdbio/analyze does) and does not compare them (listcodec/verify).
package listcodec
