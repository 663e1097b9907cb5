package rdbio

import (
	"errors"
	"testing"

	"github.com/rdbz/rdbz/rdbio/lzf"
	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

// TestDecodeValueBlob: a value's string, raw, LZF or integer, gives its
// blob; a truncated or over-long one is an error.
func TestDecodeValueBlob(t *testing.T) {
	blob := rdbiotest.ZiplistOf("hello", "world", "hello", "again")
	raw := AppendStringHead(nil, EncRaw, 0, uint64(len(blob)), uint64(len(blob)))
	raw = append(raw, blob...)
	comp := lzfCompressForTest(blob)
	lz := append(AppendStringHead(nil, EncLZF, 0, uint64(len(comp)), uint64(len(blob))), comp...)
	for name, v := range map[string][]byte{"raw": raw, "lzf": lz, "raw after 8 bytes": append(make([]byte, 8), raw...)} {
		skip := 0
		if len(v) > len(raw) && v[0] == 0 && name != "lzf" {
			skip = 8
		}
		got, err := DecodeValueBlob(nil, v, skip, 1<<20)
		if err != nil || string(got) != string(blob) {
			t.Errorf("%s: %q, %v", name, got, err)
		}
	}
	if got, err := DecodeValueBlob(nil, []byte{0xC0, 7}, 0, 1<<20); err != nil || string(got) != "7" {
		t.Errorf("integer: %q, %v", got, err)
	}
	if _, err := DecodeValueBlob(nil, raw[:len(raw)-1], 0, 1<<20); !errors.Is(err, ErrCorrupt) {
		t.Errorf("truncated: %v", err)
	}
	if _, err := DecodeValueBlob(nil, lz, 0, 10); !errors.Is(err, ErrTooLarge) {
		t.Errorf("over the limit: %v", err)
	}
	short := append(AppendStringHead(nil, EncLZF, 0, uint64(len(comp)), uint64(len(blob)+5)), comp...)
	if _, err := DecodeValueBlob(nil, short, 0, 1<<20); !errors.Is(err, ErrCorrupt) {
		t.Errorf("LZF data shorter than it claims: %v", err)
	}
}

// lzfCompressForTest is src LZF-compressed as Redis would (never nil:
// the budget always suffices).
func lzfCompressForTest(src []byte) []byte {
	z, _ := new(lzf.Encoder).Encode(nil, src, len(src)+len(src)/32+8)
	return z
}
