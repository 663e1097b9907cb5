package rdbio

import (
	"bytes"
	"errors"
	"os"
	"testing"

	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

// tbuf is a TSink that keeps T and its record starts.
type tbuf struct {
	bytes.Buffer
	starts []int64
	keys   int
}

func (t *tbuf) Begin(key []byte, input int64) error {
	t.starts = append(t.starts, int64(t.Len()))
	if key != nil {
		t.keys++
	}
	return nil
}

// TestTRoundTrip: every corpus file → T → original is the file byte for
// byte; → raw and → lzf are RDBs the reader walks with a good checksum.
func TestTRoundTrip(t *testing.T) {
	for _, f := range rdbiotest.Files(t) {
		if f.Folder == "generated" && f.Fields["bytes"] > "" && len(f.Fields["bytes"]) > 7 {
			continue // the large dumps go through listcodec's format-2 tests
		}
		src, err := os.ReadFile(f.Path)
		if err != nil {
			t.Fatal(err)
		}
		var tb tbuf
		st, err := EncodeT(&tb, bytes.NewReader(src), Options{})
		if err != nil {
			if errors.Is(err, ErrCorrupt) || errors.Is(err, ErrChecksum) {
				continue // files the reader refuses are refused alike
			}
			t.Errorf("%s: EncodeT: %v", f.Name, err)
			continue
		}
		if st.TBytes != int64(tb.Len()) || st.InBytes != int64(len(src)) {
			t.Errorf("%s: stats %+v, T %d bytes, input %d", f.Name, st, tb.Len(), len(src))
		}
		for _, target := range []Target{TargetOriginal, TargetRaw, TargetLZF} {
			var out bytes.Buffer
			if _, err := DecodeT(&out, bytes.NewReader(tb.Bytes()), target, Options{}); err != nil {
				t.Errorf("%s: DecodeT %v: %v", f.Name, target, err)
				continue
			}
			if target == TargetOriginal {
				if !bytes.Equal(out.Bytes(), src) {
					t.Errorf("%s: original differs from the source (%d vs %d bytes)", f.Name, out.Len(), len(src))
				}
				continue
			}
			if _, err := Copy(new(bytes.Buffer), bytes.NewReader(out.Bytes()), Options{}); err != nil && !errors.Is(err, ErrUnsupported) {
				t.Errorf("%s: %v output does not read back: %v", f.Name, target, err)
			}
		}
	}
}
