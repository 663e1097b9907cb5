package envelope

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

const small = "../../testdata/small.rdb"

// payload is an RDB-sized input that spans several LZ4 blocks of 64 KiB:
// the test file repeated, with random bytes that do not compress.
func payload(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile(small)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	var b bytes.Buffer
	for b.Len() < 300<<10 {
		b.Write(data)
		b.Write(rdbiotest.RandomBytes(r, 5000))
	}
	return b.Bytes()
}

// openAll reads the whole inner stream of file.
func openAll(file []byte) ([]byte, Info, error) {
	r, info, err := Open(bytes.NewReader(file))
	if err != nil {
		return nil, info, err
	}
	out, err := io.ReadAll(r)
	return out, info, err
}

// TestOpenLZ4CLI: frames the lz4 tool writes, with and without its
// checksums, read back to the input, and the descriptor is reported.
func TestOpenLZ4CLI(t *testing.T) {
	data := payload(t)
	for _, tc := range []struct {
		name  string
		flags byte
		args  []string
		check func(Frame) bool
	}{
		{"default", FlagChecksum, nil, func(f Frame) bool { return f.ContentChecksum() && !f.BlockChecksum() && f.Independent() }},
		{"no checksum", 0, []string{"--no-frame-crc"}, func(f Frame) bool { return !f.ContentChecksum() && !f.BlockChecksum() }},
		{"block checksums, 64 KiB", FlagChecksum, []string{"-BX", "-B4"}, func(f Frame) bool { return f.BlockChecksum() && f.BlockMax() == 64<<10 }},
		{"linked blocks", FlagChecksum, []string{"-BD", "-B4"}, func(f Frame) bool { return !f.Independent() }},
		{"content size", FlagChecksum, []string{"--content-size"}, func(f Frame) bool { return f.HasContentSize() && f.ContentSize == uint64(len(data)) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := rdbiotest.LZ4Envelope(t, data, tc.flags, tc.args...)
			out, info, err := openAll(file)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(out, data) {
				t.Fatalf("read %d bytes, not the %d written", len(out), len(data))
			}
			if info.Codec != CodecLZ4 || info.Flags != tc.flags || !tc.check(info.LZ4) {
				t.Fatalf("info %+v (%s)", info, info)
			}
		})
	}
}

// TestPassThrough: inputs without the magic come back unchanged, however
// short.
func TestPassThrough(t *testing.T) {
	for _, in := range []string{"", "V", "VKC", "VKCX\x01\x01\x00\x00rest", "REDIS0011 and so on"} {
		out, info, err := openAll([]byte(in))
		if err != nil || string(out) != in || info.Enveloped() {
			t.Fatalf("%q: got %q, %+v, %v", in, out, info, err)
		}
	}
}

// TestWriterRoundTrip: what NewWriter writes, lz4 -d reads back, and Open
// reports the descriptor NewWriter was given.
func TestWriterRoundTrip(t *testing.T) {
	data := payload(t)
	plain := LZ4()
	plain.Flags, plain.LZ4.FLG = 0, flgVersion1|flgIndependent
	sized := LZ4()
	sized.LZ4.FLG |= flgContentSize
	sized.LZ4.BD = 4 << 4
	sized.LZ4.ContentSize = uint64(len(data))
	zstd := LZ4()
	zstd.Codec, zstd.LZ4 = CodecZstd, Frame{}
	for name, want := range map[string]Info{"default": LZ4(), "no checksums": plain, "sized 64 KiB": sized, "zstd": zstd} {
		t.Run(name, func(t *testing.T) {
			var b bytes.Buffer
			w, err := NewWriter(&b, want)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := w.Write(data); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			out, got, err := openAll(b.Bytes())
			if err != nil || !bytes.Equal(out, data) || got != want {
				t.Fatalf("read back %d bytes (%v), info %+v, want %+v", len(out), err, got, want)
			}
			if want.Codec == CodecLZ4 {
				cli, err := rdbiotest.LZ4Decompress(t, b.Bytes()[Size:])
				if err != nil || !bytes.Equal(cli, data) {
					t.Fatalf("lz4 -d: %d bytes, %v", len(cli), err)
				}
			}
		})
	}
}

// TestWriterLikeLZ4CLI: given the descriptor of a frame the lz4 tool
// wrote with independent blocks, NewWriter writes the tool's bytes.
func TestWriterLikeLZ4CLI(t *testing.T) {
	data := payload(t)
	for _, args := range [][]string{nil, {"--no-frame-crc"}, {"-BX", "-B4"}, {"--content-size", "-B5"}, {"-B6"}} {
		file := rdbiotest.LZ4Envelope(t, data, FlagChecksum, args...)
		_, info, err := openAll(file)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		w, err := NewWriter(&b, info)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(data)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b.Bytes(), file) {
			t.Fatalf("lz4 %v: rdbz's frame (%d bytes, %s) differs from lz4's (%d bytes)", args, b.Len(), info, len(file))
		}
	}
}

// TestRecord: Record and ParseRecord are inverse, and ParseRecord refuses
// what Open refuses.
func TestRecord(t *testing.T) {
	sized := LZ4()
	sized.LZ4.FLG |= flgContentSize
	sized.LZ4.ContentSize = 12345
	for _, i := range []Info{LZ4(), sized, {Codec: CodecZstd, Version: 1}} {
		got, err := ParseRecord(i.Record())
		if err != nil || got != i {
			t.Fatalf("%+v: parsed %+v, %v", i, got, err)
		}
	}
	bad := LZ4().Record()
	bad[4] = 2
	for _, b := range [][]byte{nil, []byte("VKCS"), bad, LZ4().Record()[:9], append(LZ4().Record(), 0)} {
		if _, err := ParseRecord(b); err == nil {
			t.Fatalf("%x: accepted", b)
		}
	}
}

// TestDamage: a damaged header, a truncated frame and a corrupted frame
// (with and without checksums) fail with an *Error naming the offset and
// wrapping the sentinel.
func TestDamage(t *testing.T) {
	data := payload(t)
	sum := rdbiotest.LZ4Envelope(t, data, FlagChecksum, "-BX", "-B4")
	nosum := rdbiotest.LZ4Envelope(t, data, 0, "--no-frame-crc", "-B4")
	set := func(b []byte, off int, v byte) []byte { b = bytes.Clone(b); b[off] = v; return b }
	flip := func(b []byte, off int) []byte { return set(b, off, b[off]^0x55) }
	cases := []struct {
		name  string
		file  []byte
		is    error
		where string
	}{
		{"version", set(sum, 4, 9), ErrUnsupported, "file offset 4: envelope version 9"},
		{"codec", set(sum, 5, 7), ErrUnsupported, "file offset 5: envelope codec 7"},
		{"flags", set(sum, 6, 0x81), ErrUnsupported, "file offset 6: envelope flags 0x81"},
		{"kind", set(sum, 7, 1), ErrUnsupported, "file offset 7: envelope stream kind 1"},
		{"short header", sum[:6], ErrTruncated, "file offset 6"},
		{"frame magic", flip(sum, 9), ErrCorrupt, "file offset 8: LZ4 frame magic"},
		{"frame header checksum", flip(sum, 14), ErrCorrupt, "LZ4 frame header"},
		{"truncated frame", sum[:len(sum)/2], ErrTruncated, "inner RDB offset"},
		{"truncated end mark", sum[:len(sum)-6], ErrTruncated, "file offset"},
		{"corrupt block, block checksums", flip(sum, len(sum)/2), ErrCorrupt, "LZ4 block at file offset"},
		{"corrupt block, no checksum", badMatch(nosum), ErrCorrupt, "LZ4 block at file offset 15"},
		{"corrupt content checksum", flip(sum, len(sum)-1), ErrCorrupt, "inner RDB offset"},
		{"data after the frame", append(bytes.Clone(sum), 0), ErrCorrupt, "after the LZ4 frame"},
		{"oversized block", set(nosum, 8+7+2, 0x7f), ErrCorrupt, "over the frame's"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, _, err := openAll(c.file)
			var e *Error
			if !errors.Is(err, c.is) || !errors.As(err, &e) || !strings.Contains(err.Error(), c.where) {
				t.Fatalf("got %v (after %d bytes); want %v naming %q", err, len(out), c.is, c.where)
			}
		})
	}
}

// badMatch makes the first sequence of the first block (a compressed one)
// a match 65535 bytes back, before anything was decoded.
func badMatch(file []byte) []byte {
	b := bytes.Clone(file)
	copy(b[8+7+4:], []byte{0x0f, 0xff, 0xff})
	return b
}

// TestCorruptNoChecksumIsNotSilent: without any checksum a flipped byte in
// a compressed block either fails to decode or changes the output (which
// the RDB's own CRC-64 then catches): Open never claims success with the
// original bytes' length unchanged and different content unnoticed by
// the caller. The test pins down that it is the caller's CRC that must
// judge those.
func TestCorruptNoChecksumIsNotSilent(t *testing.T) {
	data := payload(t)
	nosum := rdbiotest.LZ4Envelope(t, data, 0, "--no-frame-crc")
	bad := bytes.Clone(nosum)
	bad[len(bad)/2] ^= 0x55
	out, _, err := openAll(bad)
	if err == nil && bytes.Equal(out, data) {
		t.Fatal("a flipped byte changed nothing")
	}
}
