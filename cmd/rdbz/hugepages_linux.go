package main

import (
	"runtime"
	"syscall"
	"unsafe"
)

// hugePage is the size of a transparent huge page on amd64 and arm64 with
// 4 KiB pages; advice on other sizes only costs a syscall.
const hugePage = 2 << 20

// madvHugePage is MADV_HUGEPAGE (linux/mman.h; the syscall package does not
// name it).
const madvHugePage = 14

// adviseHugePages asks the kernel to back the next n bytes of the Go heap
// with transparent huge pages, where the system leaves that to programs
// (/sys/kernel/mm/transparent_hugepage/enabled set to madvise, the default
// of many distributions; the Go runtime itself has not asked since Go
// 1.21.1). It maps n bytes of heap by allocating them, untouched, marks
// their range and frees them: the allocations that follow reuse those
// addresses. It returns the range it marked, and the kernel's refusal.
//
// Why: a 4 KiB page costs 11-14 µs to fault in on the 2-core VM rdbz is
// measured on (a 256 MiB buffer: 0.73 s touched page by page, 16 ms as
// huge pages), and a command faults its heap in whole at least once:
// compress of the 0.7 MB Dragonfly seed (28 MB of list nodes) took 4,850
// faults and 116 ms, with the advice 1,200 and 63 ms; decompress of
// godev-raw 0.30 -> 0.20 s, of godev-lzf 0.58 -> 0.49 s. The pages the
// runtime later returns to stay under its memory limit split back into
// small ones, so a run that churns its heap gains less. It costs some
// 4 ms (the mapping, and the collection that frees the range), so only
// commands that fill a heap take it (expectBigHeap). It is advice: where
// the kernel has no huge pages, or none free, nothing changes; the peak
// RSS moves by at most the rounding to 2 MiB of what the heap touches
// (the RSS benchmark shows it).
func adviseHugePages(n int) (start, end uintptr, err error) {
	b := make([]byte, n)
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	start = (p + hugePage - 1) &^ (hugePage - 1)
	end = (p + uintptr(n)) &^ (hugePage - 1)
	if start < end {
		// An error (no THP in the kernel) leaves the pages as they were.
		if _, _, e := syscall.Syscall(syscall.SYS_MADVISE, start, end-start, madvHugePage); e != 0 {
			err = e
		}
	}
	runtime.KeepAlive(b)
	runtime.GC()
	return start, end, err
}
