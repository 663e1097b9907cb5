package envelope

import (
	"bytes"
	"errors"
	"io"
	"os"
	"testing"
)

// fuzzOutMax bounds what the fuzz target decodes of one input (a zstd RLE
// block turns 4 bytes into 128 KiB).
const fuzzOutMax = 16 << 20

// FuzzOpen: Open of arbitrary bytes never panics; an input without the
// magic comes back unchanged; every error about an enveloped input is an
// *Error wrapping one of the sentinels; a stream read to its end without
// error, written again with NewWriter and the Info Open gave, reads back
// the same bytes.
func FuzzOpen(f *testing.F) {
	data, _ := os.ReadFile(small)
	for _, i := range []Info{LZ4(), {Codec: CodecZstd, Version: 1, Flags: FlagChecksum}} {
		var b bytes.Buffer
		w, _ := NewWriter(&b, i)
		w.Write(data)
		w.Close()
		f.Add(b.Bytes())
	}
	f.Add([]byte("VKCS\x01\x01\x00\x00"))
	f.Add(data)
	f.Fuzz(func(t *testing.T, in []byte) {
		r, info, err := Open(bytes.NewReader(in))
		if err != nil {
			checkError(t, err)
			return
		}
		out, err := io.ReadAll(io.LimitReader(r, fuzzOutMax))
		if !info.Enveloped() {
			if err != nil || !bytes.Equal(out, in) {
				t.Fatalf("pass-through changed the input: %v", err)
			}
			return
		}
		if err != nil {
			checkError(t, err)
			return
		}
		if len(out) == fuzzOutMax {
			return
		}
		roundTrip(t, info, out)
	})
}

// checkError fails unless err is an *Error wrapping a sentinel.
func checkError(t *testing.T, err error) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) || !(errors.Is(err, ErrCorrupt) || errors.Is(err, ErrTruncated) || errors.Is(err, ErrUnsupported)) {
		t.Fatalf("error %v (%T) is not an *Error wrapping a sentinel", err, err)
	}
}

// roundTrip writes out with info's envelope and reads it back.
func roundTrip(t *testing.T, info Info, out []byte) {
	t.Helper()
	var b bytes.Buffer
	w, err := NewWriter(&b, info)
	if err != nil {
		t.Fatalf("NewWriter(%+v) of what Open accepted: %v", info, err)
	}
	w.Write(out)
	if err := w.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	back, _, err := openAll(b.Bytes())
	if err != nil || !bytes.Equal(back, out) {
		t.Fatalf("rewritten envelope reads back %d bytes (%v), want %d", len(back), err, len(out))
	}
}
