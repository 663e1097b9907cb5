package rdbio

import (
	"runtime"

	"github.com/rdbz/rdbz/rdbio/crc64"
)

// bgSum sums a window of consumed bytes on another goroutine while the
// reader goes on in the window's spare buffer: the CRC-64 of every byte
// read was a quarter of info's CPU on a dump of 166 MB (60 of 260 ms),
// all on the reading goroutine. One window is summed at a time, and it
// ends before the next is moved (input.settle); bytes consumed past the
// window meanwhile (tailCheck) are summed at once on their own, and the
// CRC being linear, the two fold into the digest in their order
// (crc64.Combine) when the window's sum is in.
type bgSum struct {
	done    chan uint64 // the window's sum, once; nil: none running
	n       int         // the window's bytes
	tail    uint64      // the CRC-64 (from 0) of the spans flushed since
	tailLen int
}

// bgMin is the smallest span summed in the background: a goroutine and
// two Combines cost a few microseconds, a span of 64 KiB some 25.
const bgMin = 64 << 10

// start sums p in the background and reports true, or reports false when
// p is better summed at once (small, one CPU, or a CPU that folds: at
// 13.8 GB/s the goroutine cost more than it saved, info of app-cache x4
// 116 -> 110 ms and copy 169 -> 152 ms without it). No sum may be running.
func (s *bgSum) start(d *crc64.Digest, p []byte) bool {
	if len(p) < bgMin || runtime.GOMAXPROCS(0) < 2 || crc64.Folds {
		return false
	}
	done := make(chan uint64, 1)
	go func() { done <- crc64.Update(0, p) }()
	s.done, s.n = done, len(p)
	return true
}

// busy reports whether a window is being summed.
func (s *bgSum) busy() bool { return s.done != nil }

// after sums p, flushed while a window is being summed, and reports true;
// false when none is.
func (s *bgSum) after(p []byte) bool {
	if s.done == nil {
		return false
	}
	s.tail = crc64.Update(s.tail, p)
	s.tailLen += len(p)
	return true
}

// wait folds the window's sum and the spans after it into d.
func (s *bgSum) wait(d *crc64.Digest) {
	if s.done == nil {
		return
	}
	d.AddSum(<-s.done, s.n)
	if s.tailLen > 0 {
		d.AddSum(s.tail, s.tailLen)
	}
	*s = bgSum{}
}
