// Package flow is the settings both of rdbz's pipelines share (format 2's,
// listcodec, and format 1's, listcodec/v1): how the input is read, which
// keys are kept, how many goroutines work. It is declared here once, and
// each pipeline names it as its own Flow.
package flow

import (
	"runtime"

	"github.com/rdbz/rdbz/rdbio"
)

// Flow configures how a pipeline reads and works. A zero field means its
// default.
type Flow struct {
	// Options say how the input is read: Cap is the capture cap (0:
	// rdbio.DefaultCap), IgnoreChecksum accepts an input whose CRC64 does
	// not match.
	rdbio.Options
	// Keep, when set, selects the keys read (rdbio.Filter); nil reads
	// every key.
	Keep    func(*rdbio.Record) bool
	Workers int // goroutines (de)compressing at once; 0 = DefaultWorkers()
	// QueueBytes bounds the bytes in flight in format 1's pipeline (0:
	// v1.DefaultQueueBytes); format 2 does not use it.
	QueueBytes int64
}

// DefaultWorkers is the number of workers: one per CPU.
func DefaultWorkers() int { return runtime.NumCPU() }

// SmallInput is the size of an input file under which one worker is the
// default (WorkersFor): a second worker's encoder and buffers, faulted in
// at ~12 µs a page, cost more than it saves. Measured on two cores
// (compress; decompress of its output): the corpus's Dragonfly seed (0.7 MB,
// 28 MB of list nodes) 158 -> 120 ms and 40 -> 26 MiB (64 -> 52 ms, 21 -> 17
// MiB); dumps of 150-310 KB within 2 ms either way; from about 10 MB on,
// two workers are as fast or faster.
const SmallInput = 1 << 20

// WorkersFor is the default number of workers for an input file of size
// bytes.
func WorkersFor(size int64) int {
	if size < SmallInput {
		return 1
	}
	return DefaultWorkers()
}

// WithDefaults fills Workers and Cap when they are zero.
func (f Flow) WithDefaults() Flow {
	if f.Workers <= 0 {
		f.Workers = DefaultWorkers()
	}
	if f.Cap <= 0 {
		f.Cap = rdbio.DefaultCap
	}
	return f
}
