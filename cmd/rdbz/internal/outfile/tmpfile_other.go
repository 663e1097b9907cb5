//go:build !linux

package outfile

// createTemp opens a named temporary file beside the target (no unnamed
// files here).
func (o *File) createTemp() error { return o.createNamed() }

// linkUnnamed is never called: every output has a name.
func (o *File) linkUnnamed() error { return nil }
