package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
)

// startProfile writes a CPU profile to the file named by RDBZ_CPUPROFILE,
// when it is set, until the returned function is called, and then a heap
// profile (allocations included) to RDBZ_MEMPROFILE: how the numbers in
// docs/performance.md were taken apart (go tool pprof FILE).
func startProfile() func() {
	if path := os.Getenv("RDBZ_MEMPROFILE"); path != "" {
		runtime.MemProfileRate = 64 << 10
		stopCPU := startCPUProfile()
		return func() {
			stopCPU()
			writeHeapProfile(path)
		}
	}
	return startCPUProfile()
}

func writeHeapProfile(path string) {
	// The profile is as of the last collection: one now takes in the
	// allocations since (on a small input, all of them).
	runtime.GC()
	f, err := os.Create(path)
	if err == nil {
		err = pprof.Lookup("allocs").WriteTo(f, 0)
		f.Close()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "rdbz: RDBZ_MEMPROFILE:", err)
	}
}

func startCPUProfile() func() {
	path := os.Getenv("RDBZ_CPUPROFILE")
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err == nil {
		err = pprof.StartCPUProfile(f)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "rdbz: RDBZ_CPUPROFILE:", err)
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}
