package rdbiotest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// LZ4Envelope wraps data as Valkey's `rdbcompression lz4` does
// (docs/rdb-format.md §8), without rdbz: the 8-byte VKCS header built here
// (version 1, codec 1 LZ4, flags, stream kind 0) and then the frame the
// lz4 command-line tool writes for `lz4 -c` and args (e.g.
// --no-frame-crc, -BX, -BD, --content-size). It skips the test when lz4
// is not installed (apt-get install lz4).
func LZ4Envelope(t testing.TB, data []byte, flags byte, args ...string) []byte {
	t.Helper()
	bin, err := exec.LookPath("lz4")
	if err != nil {
		t.Skip("the lz4 command-line tool is not installed (apt-get install -y lz4)")
	}
	in := filepath.Join(t.TempDir(), "in.rdb") // a file: lz4 knows its size (--content-size)
	if err := os.WriteFile(in, data, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, append(append([]string{"-c", "-q"}, args...), in)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	frame, err := cmd.Output()
	if err != nil {
		t.Fatalf("lz4 %v: %v: %s", args, err, stderr.String())
	}
	return append([]byte{'V', 'K', 'C', 'S', 1, 1, flags, 0}, frame...)
}

// LZ4Decompress is what `lz4 -d -c` makes of a frame (the bytes after a
// VKCS header), or skips the test when lz4 is not installed.
func LZ4Decompress(t testing.TB, frame []byte) ([]byte, error) {
	t.Helper()
	bin, err := exec.LookPath("lz4")
	if err != nil {
		t.Skip("the lz4 command-line tool is not installed (apt-get install -y lz4)")
	}
	cmd := exec.Command(bin, "-d", "-c", "-q", "-")
	cmd.Stdin = bytes.NewReader(frame)
	return cmd.Output()
}
