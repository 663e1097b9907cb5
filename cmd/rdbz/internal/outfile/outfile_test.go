package outfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// entries lists a folder's names.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func write(t *testing.T, o *File, s string) {
	t.Helper()
	if _, err := o.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
}

func TestCommitPlacesCompleteFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out")
	o, err := Create(p, Options{Mode: 0o640})
	if err != nil {
		t.Fatal(err)
	}
	write(t, o, "hello")
	if _, err := os.Stat(p); err == nil {
		t.Fatal("output visible before Commit")
	}
	if names := entries(t, dir); len(names) != 0 && o.tmp == "" {
		t.Fatalf("unnamed output left names in the folder: %v", names)
	}
	if err := o.Commit(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p)
	if err != nil || string(b) != "hello" {
		t.Fatalf("read back %q, %v", b, err)
	}
	fi, _ := os.Stat(p)
	if fi.Mode().Perm() != 0o640 {
		t.Fatalf("mode %v, want 0640", fi.Mode().Perm())
	}
	if names := entries(t, dir); len(names) != 1 {
		t.Fatalf("folder holds %v, want only out", names)
	}
}

func TestAbortLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	o, err := Create(filepath.Join(dir, "out"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	write(t, o, "partial")
	o.Abort()
	if names := entries(t, dir); len(names) != 0 {
		t.Fatalf("abort left %v", names)
	}
}

func TestExistingNeedsForce(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out")
	os.WriteFile(p, []byte("old"), 0o644)
	if _, err := Create(p, Options{}); !errors.Is(err, ErrExists) {
		t.Fatalf("Create over an existing file without Force: %v, want ErrExists", err)
	}
	o, err := Create(p, Options{Force: true})
	if err != nil {
		t.Fatal(err)
	}
	write(t, o, "new")
	if err := o.Commit(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "new" {
		t.Fatalf("content %q, want new", b)
	}
	if names := entries(t, dir); len(names) != 1 {
		t.Fatalf("folder holds %v", names)
	}
}

// TestAppearedMeanwhile: without Force, a file created at the path while
// the output was written is not replaced.
func TestAppearedMeanwhile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out")
	o, err := Create(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	write(t, o, "ours")
	os.WriteFile(p, []byte("theirs"), 0o644)
	if err := o.Commit(); !errors.Is(err, ErrExists) {
		t.Fatalf("Commit: %v, want ErrExists", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "theirs" {
		t.Fatalf("the file that appeared was changed: %q", b)
	}
	if names := entries(t, dir); len(names) != 1 {
		t.Fatalf("folder holds %v", names)
	}
}

// TestSymlinkFollowed: the link stays a link; the file it names is written.
func TestSymlinkFollowed(t *testing.T) {
	dir := t.TempDir()
	target, link := filepath.Join(dir, "target"), filepath.Join(dir, "link")
	os.WriteFile(target, []byte("old"), 0o644)
	if err := os.Symlink("target", link); err != nil {
		t.Fatal(err)
	}
	o, err := Create(link, Options{Force: true})
	if err != nil {
		t.Fatal(err)
	}
	write(t, o, "new")
	if err := o.Commit(); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v %v", fi, err)
	}
	if b, _ := os.ReadFile(target); string(b) != "new" {
		t.Fatalf("target holds %q", b)
	}
}

// TestSpecialFilesWrittenInPlace: /dev/null and a FIFO are written, not
// replaced.
func TestSpecialFilesWrittenInPlace(t *testing.T) {
	o, err := Create(os.DevNull, Options{})
	if err != nil {
		t.Fatal(err)
	}
	write(t, o, "discarded")
	if err := o.Commit(); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(os.DevNull); err != nil || fi.Mode()&fs.ModeCharDevice == 0 {
		t.Fatalf("%s is no longer a character device: %v %v", os.DevNull, fi, err)
	}

	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	got := make(chan string)
	go func() {
		b, _ := os.ReadFile(fifo)
		got <- string(b)
	}()
	o, err = Create(fifo, Options{Force: true})
	if err != nil {
		t.Fatal(err)
	}
	write(t, o, "through")
	if err := o.Commit(); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != "through" {
		t.Fatalf("FIFO reader got %q", s)
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
		t.Fatalf("the FIFO was replaced: %v %v", fi, err)
	}
}

func TestFolderRefused(t *testing.T) {
	if _, err := Create(t.TempDir(), Options{Force: true}); err == nil {
		t.Fatal("Create on a folder succeeded")
	}
	if _, err := Create(filepath.Join(t.TempDir(), "no", "such"), Options{}); err == nil {
		t.Fatal("Create in a missing folder succeeded")
	}
}

func TestAbortAll(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"a", "b"} {
		o, err := Create(filepath.Join(dir, n), Options{})
		if err != nil {
			t.Fatal(err)
		}
		write(t, o, n)
	}
	AbortAll()
	if names := entries(t, dir); len(names) != 0 {
		t.Fatalf("AbortAll left %v", names)
	}
}
