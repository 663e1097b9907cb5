//go:build !linux

package rdbiotest

import "syscall"

// childAttr: no parent-death signal outside Linux; Main stops the server.
func childAttr() *syscall.SysProcAttr { return nil }
