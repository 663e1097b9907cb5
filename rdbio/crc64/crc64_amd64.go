package crc64

import "golang.org/x/sys/cpu"

// canFold: the CPU has PCLMULQDQ. Folding with it sums 10-13 GB/s on the
// 2-core machine where the tables sum 3.3 (BenchmarkCRC64), and every byte
// rdbz reads or writes is summed: 16% of decompress's CPU on a 203 MB list
// dump went to the tables.
var canFold = cpu.X86.HasPCLMULQDQ && cpu.X86.HasSSE2

// fold reduces p (a multiple of 16 bytes, at least 64) after crc to the
// 16 bytes X (lo, hi little-endian) of the same remainder (foldKeys).
//
//go:noescape
func fold(crc uint64, p []byte, k *[4]uint64) (lo, hi uint64)
