package rdbiotest

import (
	"os"
	"runtime/debug"
	"testing"
)

// testGCPercent is the collector's target in every test binary that
// imports this package (unless GOGC is set): tests allocate and drop whole
// dumps' worth of buffers, and at Go's default of 100 the collector's
// cycles, and the pages it gave back to the kernel faulted in again by the
// next test, took a large share of the suite's CPU on a 2-core VM
// (listcodec's tests: 21.2 CPU s at 100, 13.5 at 400; listcodec/block 26.9
// and 23.3; rdbio 24.0 and 21.5). The rdbz processes the tests start keep
// their own settings. Tests that measure a peak heap run at the default
// again (DefaultGC).
const testGCPercent = 400

func init() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(testGCPercent)
	}
}

// DefaultGC sets the collector back to Go's default target (GOGC=100), the
// tools' own, for the rest of t: a peak heap measured at testGCPercent
// would count several times the garbage the tools leave. t must not be
// parallel (the setting is the process's).
func DefaultGC(t testing.TB) {
	t.Helper()
	old := debug.SetGCPercent(100)
	t.Cleanup(func() { debug.SetGCPercent(old) })
}
