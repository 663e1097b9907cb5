//go:build !unix

package outfile

import "io/fs"

func umask() fs.FileMode { return 0o022 }
