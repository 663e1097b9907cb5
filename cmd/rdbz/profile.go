package main

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// startProfile writes a CPU profile to the file named by RDBZ_CPUPROFILE,
// when it is set, until the returned function is called: how the numbers in
// docs/performance.md were taken apart (go tool pprof FILE).
func startProfile() func() {
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
