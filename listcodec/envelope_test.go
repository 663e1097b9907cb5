package listcodec

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/rdbz/rdbz/listcodec/internal/codectest"
	"github.com/rdbz/rdbz/listcodec/v1"
	"github.com/rdbz/rdbz/rdbio"
	"github.com/rdbz/rdbz/rdbio/envelope"
	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

// wrapCorpusFile writes cf in a VKCS envelope made by the lz4 tool to a
// temporary file (half the files with the tool's checksums, half
// without) and returns its path, its bytes and the plain file's.
func wrapCorpusFile(t *testing.T, cf rdbiotest.File) (path string, wrapped, plain []byte) {
	t.Helper()
	plain, err := os.ReadFile(cf.Path)
	if err != nil {
		t.Fatal(err)
	}
	flags, args := byte(envelope.FlagChecksum), []string{"-BX"}
	if len(plain)%2 == 1 {
		flags, args = 0, []string{"--no-frame-crc"}
	}
	wrapped = rdbiotest.LZ4Envelope(t, plain, flags, args...)
	path = filepath.Join(t.TempDir(), "in.vkcs")
	if err := os.WriteFile(path, wrapped, 0o644); err != nil {
		t.Fatal(err)
	}
	return path, wrapped, plain
}

// decompressEnvelope is decompressBytes with an Envelope choice.
func decompressEnvelope(t *testing.T, in []byte, to Form, env Envelope) []byte {
	t.Helper()
	var out bytes.Buffer
	if _, err := Decompress(&out, bytes.NewReader(in), DecompressOptions{To: to, Envelope: env, Flow: Flow{Workers: 2}}); err != nil {
		t.Fatalf("decompress --to %s, envelope %d: %v", to, env, err)
	}
	return out.Bytes()
}

// TestEnvelopeCorpus: every corpus file (the generated ones up to
// SmallBytes unless RDBZ_LONG=1) in a VKCS envelope made by the lz4 tool
// compresses from a file to format 2, and decompress --to original gives the enveloped file back
// as checkRewrapped says, --envelope none the plain file byte for byte,
// and --to lzf, for mixed-all-types.rdb, what redis loads with the plain
// file's digest. Format 1 reads it too and gives the plain file back.
func TestEnvelopeCorpus(t *testing.T) {
	defer func() {
		t.Logf("rewrapped files byte-identical to the lz4 tool's: %d of %d", rewrapIdentical, rewrapChecked)
	}()
	for _, cf := range rdbiotest.Files(t) {
		if fi, err := os.Stat(cf.Path); err == nil && fi.Size() > rdbiotest.SmallBytes && !rdbiotest.Long() {
			continue
		}
		t.Run(cf.Name, func(t *testing.T) {
			path, wrapped, plain := wrapCorpusFile(t, cf)
			opt := CompressOptions{Flow: Flow{Workers: 2}, Dict: codectest.FixedDict(t), Level: zstd.SpeedFastest}
			comp, st, err := compressFile(t, path, opt)
			if err != nil {
				if _, _, perr := compressFile(t, cf.Path, opt); perr == nil || errors.Is(err, rdbio.ErrChecksum) != errors.Is(perr, rdbio.ErrChecksum) {
					t.Fatalf("compress: %v (the plain file: %v)", err, perr)
				}
				t.Logf("refused as the plain file is: %v", err)
				return
			}
			if !st.InputEnvelope.Enveloped() || st.Format2 == nil {
				t.Fatalf("input envelope %+v, format 2 %+v", st.InputEnvelope, st.Format2)
			}
			checkRewrapped(t, decompressEnvelope(t, comp, ToOriginal, EnvelopeSource), wrapped, plain)
			if back := decompressEnvelope(t, comp, ToOriginal, EnvelopeNone); !bytes.Equal(back, plain) {
				t.Fatalf("decompress --envelope none: %d bytes, not the %d of the plain file", len(back), len(plain))
			}
			if cf.Name == "mixed-all-types.rdb" { // every type; the others: the plain file's bytes, judged by TestFormat2Corpus
				want, err := rdbiotest.Digest(t, cf.Path)
				if err != nil {
					t.Fatal(err)
				}
				codectest.JudgeDecompressed(t, want, func(to Form) []byte { return decompressBytes(t, comp, to) }, ToLZF)
			}
			one, _, err := codectest.CompressFile(t, path, func(w io.Writer, r io.Reader) (*v1.Stats, error) {
				return v1.Compress(w, r, v1.CompressOptions{Flow: v1.Flow{Workers: 2}, Dict: codectest.FixedDict(t)})
			})
			if err != nil {
				t.Fatalf("compress --format 1: %v", err)
			}
			if back := decompressBytes(t, one, ToOriginal); !bytes.Equal(back, plain) {
				t.Fatalf("format 1: decompress gives %d bytes, not the %d of the plain file", len(back), len(plain))
			}
		})
	}
}

// rewrapIdentical counts the files checkRewrapped found identical to the
// lz4 tool's, of all it checked (logged by TestEnvelopeCorpus).
var rewrapIdentical, rewrapChecked int

// checkRewrapped fails unless back, what decompress --to original wrote
// for the enveloped file wrapped (of the RDB plain), holds plain byte for
// byte, starts with wrapped's envelope and LZ4 frame header byte for byte,
// has its length and its blocks but where the tool stored a block raw and
// rdbz compressed it to the same length (FORMAT.md §4.3): rdbz's LZ4
// blocks are LZ4_compress_fast's, as the lz4 tool's.
func checkRewrapped(t *testing.T, back, wrapped, plain []byte) {
	t.Helper()
	r, _, err := envelope.Open(bytes.NewReader(back))
	if err != nil {
		t.Fatal(err)
	}
	var inner bytes.Buffer
	if _, err := inner.ReadFrom(r); err != nil || !bytes.Equal(inner.Bytes(), plain) {
		t.Fatalf("the rewrapped inner RDB differs (%v)", err)
	}
	if cli, err := rdbiotest.LZ4Decompress(t, back[envelope.Size:]); err != nil || !bytes.Equal(cli, plain) {
		t.Fatalf("lz4 -d of the rewrapped frame: %d bytes, %v", len(cli), err)
	}
	const head = envelope.Size + 7 // envelope, frame magic, FLG, BD, HC (no content size)
	if len(back) != len(wrapped) || !bytes.Equal(back[:head], wrapped[:head]) {
		t.Fatalf("rewrapped: %d bytes starting %x; the lz4 tool's: %d bytes starting %x", len(back), back[:head], len(wrapped), wrapped[:head])
	}
	if !sameBlocksBut(lz4Blocks(t, wrapped), lz4Blocks(t, back)) {
		t.Fatal("the rewrapped frame's blocks differ otherwise than raw (the lz4 tool) against compressed to the same length (rdbz)")
	}
	rewrapChecked++
	if bytes.Equal(back, wrapped) {
		rewrapIdentical++
	}
}

// lz4Block is one data block of an LZ4 frame: stored raw (the size
// field's high bit) or compressed, and its bytes.
type lz4Block struct {
	raw  bool
	data []byte
}

// lz4Blocks walks the data blocks of the LZ4 frame after a VKCS header
// (the LZ4 frame format: a 4-byte size, the data, a checksum when FLG bit 4
// says so, until a size of 0).
func lz4Blocks(t *testing.T, file []byte) []lz4Block {
	t.Helper()
	flg := file[envelope.Size+4]
	off := envelope.Size + 7
	if flg&0x08 != 0 {
		off += 8
	}
	var out []lz4Block
	for off+4 <= len(file) {
		x := binary.LittleEndian.Uint32(file[off:])
		off += 4
		size := int(x &^ (1 << 31))
		if x == 0 || off+size > len(file) {
			return out
		}
		out = append(out, lz4Block{raw: x>>31 != 0, data: file[off : off+size]})
		off += size
		if flg&0x10 != 0 {
			off += 4
		}
	}
	t.Fatal("LZ4 frame without its end mark")
	return nil
}

// sameBlocksBut reports whether two frames' blocks are the same but where
// a raw block of tool became a compressed one of the same length in ours.
func sameBlocksBut(tool, ours []lz4Block) bool {
	if len(tool) != len(ours) {
		return false
	}
	for i, a := range tool {
		b := ours[i]
		if a.raw != b.raw || !bytes.Equal(a.data, b.data) {
			if !a.raw || b.raw || len(a.data) != len(b.data) {
				return false
			}
		}
	}
	return true
}

// TestEnvelopeRewrap: what compress records is what decompress writes
// again — for a stream too; a source of linked blocks (lz4 -BD) comes
// back in independent blocks (the inner RDB byte for byte, the frame
// otherwise as recorded); --envelope lz4 wraps a plain source in
// envelope.LZ4(), and ToLZF writes no envelope unless asked.
func TestEnvelopeRewrap(t *testing.T) {
	plain := codectest.SmallRDB(t)
	linked := rdbiotest.LZ4Envelope(t, plain, envelope.FlagChecksum, "-BD", "--content-size")
	var comp bytes.Buffer
	st, err := Compress(&comp, bytes.NewReader(linked), CompressOptions{Dict: codectest.FixedDict(t)})
	if err != nil || !st.InputEnvelope.Enveloped() {
		t.Fatalf("compress from a stream: %v, %+v", err, st.InputEnvelope)
	}
	back := decompressEnvelope(t, comp.Bytes(), ToOriginal, EnvelopeSource)
	r, info, err := envelope.Open(bytes.NewReader(back))
	if err != nil {
		t.Fatal(err)
	}
	inner := new(bytes.Buffer)
	if _, err := inner.ReadFrom(r); err != nil || !bytes.Equal(inner.Bytes(), plain) {
		t.Fatalf("the inner RDB differs (%v)", err)
	}
	want := st.InputEnvelope
	want.LZ4.FLG |= 0x20 // independent blocks
	if info != want || !info.LZ4.HasContentSize() {
		t.Fatalf("envelope %+v, want %+v", info, want)
	}
	if got := decompressEnvelope(t, comp.Bytes(), ToLZF, EnvelopeSource); bytes.HasPrefix(got, []byte(envelope.Magic)) {
		t.Fatal("--to lzf wrote an envelope")
	}
	var plainComp bytes.Buffer
	if _, err := Compress(&plainComp, bytes.NewReader(plain), CompressOptions{Dict: codectest.FixedDict(t)}); err != nil {
		t.Fatal(err)
	}
	if _, info, _ := envelope.Open(bytes.NewReader(decompressEnvelope(t, plainComp.Bytes(), ToRaw, EnvelopeLZ4))); info != envelope.LZ4() {
		t.Fatalf("--envelope lz4 of a plain source: %+v", info)
	}
}
