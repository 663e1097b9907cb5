package block

import (
	"bytes"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestZstdCLIReadsT checks FORMAT.md §2.1's claim: the file is a sequence
// of frames that `zstd -d -D DICT` turns into T.
func TestZstdCLIReadsT(t *testing.T) {
	if _, err := exec.LookPath("zstd"); err != nil {
		t.Skip("no zstd")
	}
	file, data, _, _ := smallFile(t)
	dir := t.TempDir()
	d := file[8+headerFixed : 8+headerFixed+int(binary.LittleEndian.Uint32(file[24:]))]
	os.WriteFile(filepath.Join(dir, "dict"), d, 0o644)
	os.WriteFile(filepath.Join(dir, "f.rdbz"), file, 0o644)
	out, err := exec.Command("zstd", "-q", "-d", "-c", "-D", filepath.Join(dir, "dict"), filepath.Join(dir, "f.rdbz")).Output()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, data) {
		t.Fatalf("zstd -d gives %d bytes, T is %d", len(out), len(data))
	}
}
