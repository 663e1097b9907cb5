//go:build unix

package main

import (
	"os"
	"syscall"
)

// fcntlGetfl returns a descriptor's status flags (F_GETFL).
func fcntlGetfl(fd int) (int, error) {
	r, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_GETFL, 0)
	if errno != 0 {
		return 0, errno
	}
	return int(r), nil
}

// guardStdio makes a standard descriptor the process was started without
// behave as closed. Go's runtime opens /dev/null read-write on fds 0-2 when
// they are closed at start (runtime.checkfds), where a report written to a
// closed stdout would vanish with exit 0. A standard descriptor that is
// /dev/null opened read-write (which a shell redirection does not do) is
// taken for that, and /dev/null is put there again opened for the other
// direction only, so that reading stdin or writing stdout fails as on a
// closed descriptor.
func guardStdio() {
	var null syscall.Stat_t
	if syscall.Stat(os.DevNull, &null) != nil {
		return
	}
	for fd, mode := range []int{syscall.O_WRONLY, syscall.O_RDONLY, syscall.O_RDONLY} {
		var st syscall.Stat_t
		flags, err := fcntlGetfl(fd)
		if err != nil || flags&syscall.O_ACCMODE != syscall.O_RDWR ||
			syscall.Fstat(fd, &st) != nil || st.Rdev != null.Rdev || st.Mode&syscall.S_IFMT != syscall.S_IFCHR {
			continue
		}
		if nfd, err := syscall.Open(os.DevNull, mode|syscall.O_CLOEXEC, 0); err == nil {
			syscall.Dup2(nfd, fd)
			syscall.Close(nfd)
		}
	}
}
