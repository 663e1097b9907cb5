//go:build !unix

package main

// guardStdio does nothing where Go does not reopen closed descriptors.
func guardStdio() {}
