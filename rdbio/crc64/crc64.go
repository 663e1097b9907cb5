// Package crc64 is Redis's CRC-64 (redis src/crc64.c), the checksum in the
// trailer of an RDB file: the Jones polynomial 0xad93d23594c935a9,
// bit-reflected, initial value 0, no final xor; the check value of
// "123456789" is 0xe9c6d914c4b8d9ca. It is a hash.Hash64 (New), a one-shot
// Checksum, and Combine, which joins the CRCs of two parts without reading
// them again. It is not the ECMA or ISO CRC-64 of the standard library's
// hash/crc64, whose initial value and final xor differ.
//
// Every byte rdbz reads or writes passes through it, so it is written here
// for speed rather than taken from hdt3213/rdb's crc64jones (slicing by 8
// on Go's generic path, ~1.3 GB/s on the 2-core machine): on amd64 with
// PCLMULQDQ, inputs of 64 bytes and more are folded with carry-less
// multiplications (13.8 GB/s, and 56 from 256 bytes on in 512-bit
// registers where the CPU has AVX-512 and VPCLMULQDQ; no library does it
// for this polynomial),
// the rest and other CPUs go by slicing by 16 over tables indexed by byte
// (no bounds checks), the xors summed as a tree (3.3 GB/s)
// (BenchmarkCRC64 in crc64_test.go). Tables and keys are built at init
// from the polynomial.
package crc64

import (
	"encoding/binary"
	"hash"
)

const crcPolyReflected = 0x95ac9329ac4bc9b5 // 0xad93d23594c935a9 bit-reversed

var crcTables = makeCRCTables()

func makeCRCTables() *[16][256]uint64 {
	t := new([16][256]uint64)
	for i := range 256 {
		c := uint64(i)
		for range 8 {
			if c&1 == 1 {
				c = c>>1 ^ crcPolyReflected
			} else {
				c >>= 1
			}
		}
		t[0][i] = c
	}
	for i := range 256 {
		c := t[0][i]
		for j := 1; j < 16; j++ {
			c = t[0][byte(c)] ^ c>>8
			t[j][i] = c
		}
	}
	return t
}

// Update returns the CRC of the bytes that gave crc followed by p.
func Update(crc uint64, p []byte) uint64 {
	if len(p) >= foldMin && canFold {
		n := len(p) &^ 15
		lo, hi := fold(crc, p[:n], &foldKeys, len(p) >= foldWideMin && FoldsWide)
		var x [16]byte
		binary.LittleEndian.PutUint64(x[:], lo)
		binary.LittleEndian.PutUint64(x[8:], hi)
		crc, p = updateTables(0, x[:]), p[n:]
	}
	return updateTables(crc, p)
}

// updateTables is Update by the tables alone.
func updateTables(crc uint64, p []byte) uint64 {
	t := crcTables
	for len(p) >= 16 {
		a := crc ^ binary.LittleEndian.Uint64(p)
		b := binary.LittleEndian.Uint64(p[8:])
		// Four independent sums, not one chain of 15 xors: the chain's
		// latency, not the table loads, would set the speed.
		x0 := (t[15][byte(a)] ^ t[14][byte(a>>8)]) ^ (t[13][byte(a>>16)] ^ t[12][byte(a>>24)])
		x1 := (t[11][byte(a>>32)] ^ t[10][byte(a>>40)]) ^ (t[9][byte(a>>48)] ^ t[8][byte(a>>56)])
		x2 := (t[7][byte(b)] ^ t[6][byte(b>>8)]) ^ (t[5][byte(b>>16)] ^ t[4][byte(b>>24)])
		x3 := (t[3][byte(b>>32)] ^ t[2][byte(b>>40)]) ^ (t[1][byte(b>>48)] ^ t[0][byte(b>>56)])
		crc = (x0 ^ x1) ^ (x2 ^ x3)
		p = p[16:]
	}
	for _, c := range p {
		crc = t[0][byte(crc)^c] ^ crc>>8
	}
	return crc
}

// Digest is a running Redis CRC-64, a hash.Hash64 whose Sum appends the
// value little-endian, as the RDB trailer stores it. The zero value is
// ready to use.
type Digest struct{ sum uint64 }

var _ hash.Hash64 = (*Digest)(nil)

// New returns a Digest at 0.
func New() *Digest { return &Digest{} }

// Write adds p; it never fails.
func (d *Digest) Write(p []byte) (int, error) {
	d.sum = Update(d.sum, p)
	return len(p), nil
}

// AddSum adds n bytes whose CRC (computed elsewhere, e.g. on another
// goroutine) is sum, as if they had been written: Combine(Sum64(), sum, n).
func (d *Digest) AddSum(sum uint64, n int) { d.sum = Combine(d.sum, sum, n) }

func (d *Digest) Sum64() uint64  { return d.sum }
func (d *Digest) Reset()         { d.sum = 0 }
func (d *Digest) Size() int      { return 8 }
func (d *Digest) BlockSize() int { return 16 }
func (d *Digest) Sum(b []byte) []byte {
	return binary.LittleEndian.AppendUint64(b, d.sum)
}

// Checksum returns the CRC of p.
func Checksum(p []byte) uint64 { return Update(0, p) }

// Combine returns the CRC of A followed by B from crcA, crcB and B's
// length. Redis's CRC starts at 0 and has no final xor, so it is linear:
// CRC(A‖B) = CRC(A)·x^(8·|B|) mod P ⊕ CRC(B), the multiplication done on
// the bit-reflected polynomials (bit 63 is x^0).
func Combine(crcA, crcB uint64, lenB int) uint64 {
	return crcMulMod(crcA, crcShift(lenB)) ^ crcB
}

// Folding (where the CPU multiplies polynomials without carries: fold in
// the files of each architecture) reduces the data 16 bytes at a time to a
// 16-byte value X with the same remainder: X(x) ≡ (crc·x^(8n-64) + p(x))
// mod P. The CRC of X from 0, X(x)·x^64 mod P, is then Update's. Each step
// multiplies the 128 bits so far by x^128 mod P, two 64-bit products of
// its halves by foldKeys, and adds the next 16 bytes; four lanes 64 bytes
// apart do the bulk (x^512), then join (x^128). In the bit-reflected form
// the halves' products come out one bit short of a 128-bit reflection,
// which the keys make up: x^(d+63) for the first half and x^(d-1) for the
// second, folding d bits ahead (checked against the tables by the tests).
// The wide fold (sixteen lanes 256 bytes apart) folds 2048 bits ahead.
var foldKeys = [6]uint64{xPow(512 + 63), xPow(512 - 1), xPow(128 + 63), xPow(128 - 1), xPow(2048 + 63), xPow(2048 - 1)}

// FoldsWide reports whether Update folds in 512-bit registers (on this
// CPU), from foldWideMin bytes on. (A variable so that tests can take the
// other path.)
var FoldsWide = canFoldWide

// foldWideMin is the shortest input folded in 512-bit registers, the
// least they take: from it on faster than 128-bit ones (35 GB/s against
// 15 at 256 bytes, 48 against 15 at 1 KiB, 56 against 14 at 256 KiB).
const foldWideMin = 256

// Folds reports whether Update folds (on this CPU), summing some 4 times
// faster than by the tables alone: whether summing on another goroutine
// still pays. (A variable so that tests can take the other path.)
var Folds = canFold

// foldMin is the shortest input folded: fold needs 64 bytes, and from 64
// on it is faster than the tables (4.8 GB/s against 3.5 at 64 bytes, 9.8
// against 3.4 at 256, 13.8 against 3.5 at 256 KiB: BenchmarkCRC64).
const foldMin = 64

// xPow returns x^n mod P, bit-reflected (bit 63 is x^0).
func xPow(n int) uint64 {
	r := uint64(1) << 63
	for range n {
		if r&1 != 0 {
			r = r>>1 ^ crcPolyReflected
		} else {
			r >>= 1
		}
	}
	return r
}

// crcMulMod returns a·b mod P.
func crcMulMod(a, b uint64) uint64 {
	var p uint64
	for m := uint64(1) << 63; m != 0 && a != 0; m >>= 1 {
		if a&m != 0 {
			p ^= b
			a ^= m
		}
		// b = b·x mod P
		if b&1 != 0 {
			b = b>>1 ^ crcPolyReflected
		} else {
			b >>= 1
		}
	}
	return p
}

// crcPow2 holds x^(8·2^i) mod P: the shift by 2^i bytes.
var crcPow2 = func() (t [64]uint64) {
	x := uint64(1) << 55 // x^8
	for i := range t {
		t[i] = x
		x = crcMulMod(x, x)
	}
	return t
}()

// crcShift returns x^(8·n) mod P.
func crcShift(n int) uint64 {
	r := uint64(1) << 63 // x^0
	for i := 0; n != 0; i, n = i+1, n>>1 {
		if n&1 != 0 {
			r = crcMulMod(r, crcPow2[i])
		}
	}
	return r
}
