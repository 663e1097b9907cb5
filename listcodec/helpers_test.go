package listcodec

import (
	"bytes"
	"io"
	"testing"

	"github.com/rdbz/rdbz/listcodec/internal/codectest"
	"github.com/rdbz/rdbz/rdbio"
	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

// decompressBytes is Decompress of in --to to. A compressed file may keep a
// source's wrong CRC when it was copied unchanged; the tests check CRCs
// where they matter.
func decompressBytes(t *testing.T, in []byte, to Form) []byte {
	t.Helper()
	return codectest.Decompressed(t, to, func(w io.Writer) error {
		_, err := Decompress(w, bytes.NewReader(in), DecompressOptions{To: to, Flow: Flow{Options: rdbio.Options{IgnoreChecksum: true}, Workers: 2}})
		return err
	})
}

// compressFile compresses a corpus file, given the file itself.
func compressFile(t *testing.T, path string, opt CompressOptions) ([]byte, *Stats, error) {
	return codectest.CompressFile(t, path, func(w io.Writer, r io.Reader) (*Stats, error) { return Compress(w, r, opt) })
}

// judgeCorpusFile fails unless, for a corpus file redis loads, redis loads
// decompress --to lzf and --to raw of comp with the file's digest.
func judgeCorpusFile(t *testing.T, cf rdbiotest.File, comp []byte) {
	t.Helper()
	codectest.JudgeCorpusFile(t, cf, func(to Form) []byte { return decompressBytes(t, comp, to) }, ToLZF, ToRaw)
}
