package outfile

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
)

// createTemp opens an unnamed file (O_TMPFILE) in the target's folder, or
// a named one where the file system does not support it.
func (o *File) createTemp() error {
	dir := filepath.Dir(o.path)
	fd, err := unix.Open(dir, unix.O_TMPFILE|unix.O_WRONLY|unix.O_CLOEXEC, uint32(o.mode()))
	if err != nil {
		return o.createNamed()
	}
	f := os.NewFile(uintptr(fd), o.path)
	if err := f.Chmod(o.mode()); err != nil {
		f.Close()
		return fmt.Errorf("create output: %w", err)
	}
	o.f = f
	return nil
}

// linkUnnamed gives the unnamed file its name. Without Force the link
// fails if the path exists; with Force the file is linked under a
// temporary name and renamed over the path (a named file exists only
// between those two calls).
func (o *File) linkUnnamed() error {
	if !o.opt.Force {
		err := o.link(o.path)
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("%s appeared while writing: %w", o.path, ErrExists)
		}
		if err != nil {
			return fmt.Errorf("put output %s in place: %w", o.path, unwrapPath(err))
		}
		return nil
	}
	for range 10 {
		tmp := filepath.Join(filepath.Dir(o.path), "."+filepath.Base(o.path)+".tmp-"+strconv.FormatUint(rand.Uint64(), 36))
		err := o.link(tmp)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("put output %s in place: %w", o.path, unwrapPath(err))
		}
		if err := os.Rename(tmp, o.path); err != nil {
			os.Remove(tmp)
			return fmt.Errorf("put output %s in place: %w", o.path, unwrapPath(err))
		}
		return nil
	}
	return errors.New("put output in place: no free temporary name")
}

// link names the unnamed file path, through /proc (any user) or, without
// /proc, AT_EMPTY_PATH (needs CAP_DAC_READ_SEARCH).
func (o *File) link(path string) error {
	proc := "/proc/self/fd/" + strconv.Itoa(int(o.f.Fd()))
	err := unix.Linkat(unix.AT_FDCWD, proc, unix.AT_FDCWD, path, unix.AT_SYMLINK_FOLLOW)
	if err != nil && !errors.Is(err, unix.EEXIST) {
		if err2 := unix.Linkat(int(o.f.Fd()), "", unix.AT_FDCWD, path, unix.AT_EMPTY_PATH); err2 == nil || errors.Is(err2, unix.EEXIST) {
			err = err2
		}
	}
	if err != nil {
		return &os.LinkError{Op: "link", Old: proc, New: path, Err: err}
	}
	return nil
}
