package crc64

import "golang.org/x/sys/cpu"

// canFold: the CPU has PCLMULQDQ. Folding with it sums 10-13 GB/s on the
// 2-core machine where the tables sum 3.3 (BenchmarkCRC64), and every byte
// rdbz reads or writes is summed: 16% of decompress's CPU on a 203 MB list
// dump went to the tables.
var canFold = cpu.X86.HasPCLMULQDQ && cpu.X86.HasSSE2

// canFoldWide: the CPU multiplies four pairs at once in 512-bit registers
// (AVX-512 and VPCLMULQDQ), which folds 256 bytes a step instead of 64:
// BenchmarkCRC64 at 256 KiB 13.8 -> 56 GB/s on the 2-core machine, where
// every command sums each byte it reads (info of a 166 MB dump spent 12 ms
// of its 90 on the sum).
var canFoldWide = canFold && cpu.X86.HasAVX512F && cpu.X86.HasAVX512VPCLMULQDQ

// fold reduces p (a multiple of 16 bytes, at least 64; with wide at least
// 256) after crc to the 16 bytes X (lo, hi little-endian) of the same
// remainder (foldKeys); wide takes the 512-bit registers.
//
//go:noescape
func fold(crc uint64, p []byte, k *[6]uint64, wide bool) (lo, hi uint64)
