//go:build unix

package outfile

import (
	"io/fs"
	"sync"
	"syscall"
)

// umask reads the process's umask once (setting it back at once).
var umask = sync.OnceValue(func() fs.FileMode {
	m := syscall.Umask(0)
	syscall.Umask(m)
	return fs.FileMode(m)
})
