package listcodec

import (
	"runtime"

	"github.com/rdbz/rdbz/rdbio"
)

// Flow configures how Compress and Decompress read and work. A zero field
// means its default.
type Flow struct {
	// Options say how the input is read: Cap is the capture cap (0:
	// rdbio.DefaultCap), IgnoreChecksum accepts an input whose CRC64 does
	// not match.
	rdbio.Options
	// Keep, when set, selects the keys read (rdbio.Filter); nil reads
	// every key.
	Keep    func(*rdbio.Record) bool
	Workers int // goroutines (de)compressing at once; 0 = DefaultWorkers()
	// QueueBytes bounds the bytes in flight in format 1's pipeline, which
	// reads format-1 files (v1.Flow; 0: v1.DefaultQueueBytes).
	QueueBytes int64
}

// DefaultWorkers is the number of workers: one per CPU.
func DefaultWorkers() int { return runtime.NumCPU() }

// withDefaults fills the zero fields that format 2 reads (format 1's
// pipeline fills its own).
func (f Flow) withDefaults() Flow {
	if f.Workers <= 0 {
		f.Workers = DefaultWorkers()
	}
	if f.Cap <= 0 {
		f.Cap = rdbio.DefaultCap
	}
	return f
}
