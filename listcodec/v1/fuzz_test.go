package v1

import (
	"bytes"
	"errors"
	"runtime"
	"testing"
	"time"

	"github.com/rdbz/rdbz/listcodec/node"
	"github.com/rdbz/rdbz/rdbio"
	"github.com/rdbz/rdbz/rdbio/lzf"
	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

// fuzzFlow keeps memory small: a 1 MiB cap and queue.
var fuzzFlow = Flow{Options: rdbio.Options{Cap: 1 << 20, IgnoreChecksum: true}, Workers: 2, QueueBytes: 1 << 20}

// FuzzRoundTrip compresses arbitrary bytes with the test dictionary and,
// when that succeeds, decompresses them in every mode: nothing panics or
// allocates by a claimed length, and --to original gives the input back
// (unless its stored CRC was wrong: compress then writes a right one).
func FuzzRoundTrip(f *testing.F) {
	rdbiotest.FuzzSeeds(f, "../../testdata")
	d := testDict(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		defer watchdog(t)()
		opt := DefaultCompressOptions()
		opt.Flow, opt.Dict = fuzzFlow, d
		var comp bytes.Buffer
		if _, err := Compress(&comp, bytes.NewReader(data), opt); err != nil {
			return
		}
		for _, to := range []Form{ToOriginal, ToLZF, ToRaw} {
			var out bytes.Buffer
			_, err := Decompress(&out, bytes.NewReader(comp.Bytes()), DecompressOptions{Flow: fuzzFlow, To: to})
			if err != nil {
				t.Fatalf("decompress --to %d of what compress wrote: %v", to, err)
			}
			if to == ToOriginal && !bytes.Equal(out.Bytes(), data) && !crcMismatch(data) {
				t.Fatalf("--to original differs from the input")
			}
		}
	})
}

// crcMismatch reports an RDB whose stored CRC64 does not match.
func crcMismatch(data []byte) bool {
	r, err := rdbio.NewReader(bytes.NewReader(data), rdbio.Options{IgnoreChecksum: true, Cap: 1 << 20})
	if err != nil {
		return false
	}
	eof, err := rdbio.Drain(r)
	if errors.Is(err, rdbio.ErrUnsupported) {
		eof, err = r.PassBody()
	}
	return err == nil && eof.Checksum == rdbio.ChecksumMismatch
}

// FuzzDecompressNode decompresses an rdbz file holding one fuzzed 0xC4 node
// (flags, claimed decoded length, frame) in every mode: an error or data,
// never a panic or an allocation by the claimed length.
func FuzzDecompressNode(f *testing.F) {
	d := testDict(f)
	codec, err := node.NewCodec([]*node.Dict{d}, d, DefaultLevel)
	if err != nil {
		f.Fatal(err)
	}
	node := bytes.Repeat([]byte(`{"user":"alice","event":"click"}`), 100)
	f.Add(byte(0), uint64(len(node)), codec.Compress(nil, node))
	f.Add(byte(1), uint64(1<<40), codec.Compress(nil, node))
	f.Fuzz(func(t *testing.T, flags byte, ulen uint64, frame []byte) {
		defer watchdog(t)()
		var buf bytes.Buffer
		w, err := rdbio.NewWriter(&buf, rdbio.Header{Magic: "REDIS0011", Version: 11})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(formatAux())
		w.Write(dictAux(d, false))
		w.Write([]byte{rdbio.TypeListQuicklist2})
		w.WriteString([]byte("k"))
		w.WriteLen(1)
		w.WriteNode(2, rdbio.EncZstd, flags, ulen, frame)
		w.Close()
		for _, to := range []Form{ToOriginal, ToLZF, ToRaw} {
			Decompress(&bytes.Buffer{}, bytes.NewReader(buf.Bytes()), DecompressOptions{Flow: fuzzFlow, To: to})
		}
	})
}

// FuzzDecodeLZFNode decodes a fuzzed LZF node with a fuzzed claimed length
// through compress and decompress --to raw.
func FuzzDecodeLZFNode(f *testing.F) {
	var enc lzf.Encoder
	node := bytes.Repeat([]byte("abcdefgh"), 300)
	z, _ := enc.Encode(nil, node, len(node))
	f.Add(uint64(len(node)), z)
	f.Add(uint64(1<<40), z)
	d := testDict(f)
	f.Fuzz(func(t *testing.T, ulen uint64, stream []byte) {
		defer watchdog(t)()
		var buf bytes.Buffer
		w, _ := rdbio.NewWriter(&buf, rdbio.Header{Magic: "REDIS0011", Version: 11})
		w.Write([]byte{rdbio.TypeListQuicklist2})
		w.WriteString([]byte("k"))
		w.WriteLen(1)
		w.WriteNode(2, rdbio.EncLZF, 0, ulen, stream)
		w.Close()
		opt := DefaultCompressOptions()
		opt.Flow, opt.Dict = fuzzFlow, d
		Compress(&bytes.Buffer{}, bytes.NewReader(buf.Bytes()), opt)
		Decompress(&bytes.Buffer{}, bytes.NewReader(buf.Bytes()), DecompressOptions{Flow: fuzzFlow, To: ToRaw})
	})
}

// watchdog fails the test with every goroutine's stack when the input takes
// longer than 20 s (a hang); call the function it returns when done.
func watchdog(t *testing.T) func() {
	timer := time.AfterFunc(20*time.Second, func() {
		buf := make([]byte, 1<<20)
		n := runtime.Stack(buf, true)
		panic("input hangs:\n" + string(buf[:n]))
	})
	return func() { timer.Stop() }
}
