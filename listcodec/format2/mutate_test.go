package format2

import (
	"bytes"
	"context"
	"io"
	"math/rand/v2"
	"os"
	"runtime/debug"
	"testing"
	"time"

	"github.com/rdbz/rdbz/listcodec/tstream"
)

// TestMutations: small.rdb in format 2 with bytes changed, inserted,
// cut or repeated decompresses to an RDB or an error, each within 10 s
// (a hang dumps every goroutine). RDBZ_LONG=1: 20,000 inputs, else 2,000.
func TestMutations(t *testing.T) {
	file := smallFormat2(t, 1<<10)
	n := 2000
	if os.Getenv("RDBZ_LONG") != "" {
		n = 20000
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < n; i++ {
		in := bytes.Clone(file)
		for k := rng.IntN(4) + 1; k > 0; k-- {
			in[rng.IntN(len(in))] = byte(rng.IntN(256))
		}
		switch rng.IntN(5) {
		case 0:
			in = in[:rng.IntN(len(in))]
		case 1:
			at := rng.IntN(len(in))
			ins := make([]byte, rng.IntN(64))
			for j := range ins {
				ins[j] = byte(rng.IntN(256))
			}
			in = append(in[:at:at], append(ins, in[at:]...)...)
		case 2:
			a, b := rng.IntN(len(in)), rng.IntN(len(in))
			in = append(in, in[min(a, b):max(a, b)]...)
		}
		done := make(chan struct{})
		go func() {
			Decompress(context.Background(), io.Discard, bytes.NewReader(in), DecompressOptions{To: tstream.Target(i % 3), Workers: 1, Cap: 1 << 20})
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Logf("input %d: %x", i, in)
			debug.SetTraceback("all")
			panic("Decompress did not return within 10 s")
		}
	}
}
