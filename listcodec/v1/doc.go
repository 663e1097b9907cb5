// Package v1 is rdbz's format 1 (FORMAT.md Appendix A): an RDB whose list
// nodes are zstd frames with one dictionary (listcodec/node), everything
// else as it was, marked by AUX fields (listcodec/format's names). It is
// written only by `rdbz compress --format 1`, for readers that know no
// other format (rdbz releases before format 2). listcodec calls this
// package only to read it (listcodec.Decompress and listcodec.Open tell
// the formats apart).
//
// Compress streams an RDB through rdbio's Reader, cuts list values into
// node items, re-encodes them on a pool of workers and writes everything
// back in input order (transcode.go, pipeline.go); without a dictionary it
// trains one on a sample of the list nodes (training.go: the sampler and
// trainer `rdbz train` uses too), from a first pass over a file or from
// the nodes a stream holds back. Decompress runs the same pipeline the
// other way (and turns an ordinary RDB's nodes LZF or raw). WhatIf
// predicts Compress's output from one pass (`rdbz analyze`). Memory is
// bounded by the options (queue bytes, capture cap, training sample),
// never by the file.
package v1
