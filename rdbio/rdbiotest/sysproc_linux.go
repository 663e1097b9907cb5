package rdbiotest

import "syscall"

// childAttr makes the kernel kill the server when the test binary dies
// (a panic or a -timeout skips Main's clean-up).
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
