// Package splitmerge is rdbz split and rdbz merge for any input rdbz
// reads: it gives rdbio/reshape the RDB inside an rdbz file (format 2 or
// 1.x, through listcodec.Original), compresses split's parts into format
// 2 with the input's dictionary when the input is an rdbz file, and, for
// merge --target, converts each input for the target (rdbio/convert)
// before it is merged. The pipelines themselves — routing records by hash
// slot, the duplicate keys, the merged magic — are reshape's.
package splitmerge

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/rdbz/rdbz/listcodec"
	"github.com/rdbz/rdbz/listcodec/block"
	"github.com/rdbz/rdbz/listcodec/format"
	"github.com/rdbz/rdbz/listcodec/format2"
	"github.com/rdbz/rdbz/rdbio"
	"github.com/rdbz/rdbz/rdbio/reshape"
)

// Source is an input as stored: a path opened again for each pass, or a
// stream read once (Once: stdin).
type Source struct {
	Name string
	Open func() (io.ReadCloser, error)
	Once bool
}

// Kind is what a source holds.
type Kind uint8

// The kinds of source.
const (
	Plain   Kind = iota // an RDB
	Format1             // an rdbz file of format 1.x (an RDB with 0xC4 list nodes)
	Format2             // an rdbz file of format 2 (blocks)
)

// Sniff tells the kind of a stream from its first bytes, which it peeks
// at (br is read on from its start).
func Sniff(br *bufio.Reader) Kind {
	mark := append([]byte{rdbio.OpAux, byte(len(format.AuxFormat))}, format.AuxFormat...)
	head, _ := br.Peek(9 + len(mark))
	switch {
	case format2.IsFormat2(head):
		return Format2
	case len(head) == 9+len(mark) && bytes.Equal(head[9:], mark):
		return Format1
	}
	return Plain
}

// opened is a source being read: its kind, and for a Once source the
// stream itself (read from where sniff left it).
type opened struct {
	src  Source
	kind Kind
	once *bufio.Reader
	cl   io.Closer
	// dict is a format-2 source's dictionary (nil: its blocks have none).
	dict []byte
}

// open sniffs a source. A file is closed again (each pass opens it); a
// Once source stays open for its one pass, and a format-2 one has its
// header read to learn the dictionary (then given back to the reader).
func open(s Source) (*opened, error) {
	f, err := s.Open()
	if err != nil {
		return nil, err
	}
	br := bufio.NewReaderSize(f, 64<<10)
	o := &opened{src: s, kind: Sniff(br)}
	if !s.Once {
		if o.kind == Format2 {
			o.dict, err = readDict(br)
		}
		f.Close()
		return o, err
	}
	o.once, o.cl = br, f
	if o.kind == Format2 {
		var head bytes.Buffer
		o.dict, err = readDict(io.TeeReader(br, &head))
		o.once = bufio.NewReader(io.MultiReader(&head, br))
	}
	return o, err
}

func readDict(r io.Reader) ([]byte, error) {
	h, err := block.ReadHeader(r)
	if err != nil {
		return nil, fmt.Errorf("rdbz format 2 header: %w", err)
	}
	return h.Dict, nil
}

// close releases a Once source.
func (o *opened) close() {
	if o.cl != nil {
		o.cl.Close()
	}
}

// input is the source as reshape reads it: the RDB it holds.
func (o *opened) input(ctx context.Context, ro rdbio.Options) reshape.Input {
	return reshape.Input{Name: o.src.Name, Once: o.src.Once, Open: func() (io.ReadCloser, error) {
		return o.rdb(ctx, ro)
	}}
}

// errReadTwice: a Once source opened a second time.
var errReadTwice = errors.New("a stream can be read only once")

// rdb opens the RDB the source holds, through listcodec.Original for an
// rdbz file.
func (o *opened) rdb(ctx context.Context, ro rdbio.Options) (io.ReadCloser, error) {
	var f io.ReadCloser
	switch {
	case o.once != nil:
		f, o.once = io.NopCloser(o.once), nil
	case o.src.Once:
		return nil, errReadTwice
	default:
		var err error
		if f, err = o.src.Open(); err != nil {
			return nil, err
		}
	}
	if o.kind == Plain {
		return f, nil
	}
	orig := listcodec.Original(ctx, f, listcodec.DecompressOptions{Flow: listcodec.Flow{Options: decodeOptions(ro)}})
	return decoded{orig, f}, nil
}

// decodeOptions are the options of the stages before reshape (decoding an
// rdbz file, converting): how to read, not which records to keep, which
// reshape's own Reader decides once.
func decodeOptions(ro rdbio.Options) rdbio.Options {
	return rdbio.Options{Cap: ro.Cap, IgnoreChecksum: ro.IgnoreChecksum}
}

// decoded is the RDB an rdbz file holds: closing it stops the decoding,
// then closes the file.
type decoded struct {
	io.ReadCloser
	file io.Closer
}

func (d decoded) Close() error {
	err := d.ReadCloser.Close()
	if ferr := d.file.Close(); err == nil {
		err = ferr
	}
	return err
}
