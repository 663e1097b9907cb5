//go:build !linux

package main

// adviseHugePages does nothing where transparent huge pages are not
// Linux's (see hugepages_linux.go).
func adviseHugePages(int) (start, end uintptr, err error) { return 0, 0, nil }
