// Package splitmerge is rdbz split and rdbz merge for any input rdbz
// reads: it gives rdbio/reshape the RDB inside an rdbz file (format 2 or
// 1.x, through listcodec.Open), compresses split's parts into format
// 2 with the input's dictionary when the input is an rdbz file, and, for
// merge --target, converts each input for the target (rdbio/convert)
// before it is merged. The pipelines themselves — routing records by hash
// slot, the duplicate keys, the merged magic — are reshape's.
package splitmerge

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/rdbz/rdbz/cmd/rdbz/internal/reshape"
	"github.com/rdbz/rdbz/listcodec"
	"github.com/rdbz/rdbz/listcodec/block"
	"github.com/rdbz/rdbz/rdbio"
)

// Source is an input as stored: a path opened again for each pass, or a
// stream read once (Once: stdin).
type Source struct {
	Name string
	Open func() (io.ReadCloser, error)
	Once bool
}

// opened is a source being read: its kind, and for a Once source the
// stream itself (read from where sniff left it).
type opened struct {
	src  Source
	kind listcodec.Kind
	once io.Reader
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
	kind, br, err := listcodec.Peek(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", s.Name, err)
	}
	o := &opened{src: s, kind: kind}
	if !s.Once {
		if o.kind == listcodec.KindFormat2 {
			o.dict, err = readDict(br)
		}
		f.Close()
		return o, named(s, err)
	}
	o.once, o.cl = br, f
	if o.kind == listcodec.KindFormat2 {
		var head bytes.Buffer
		o.dict, err = readDict(io.TeeReader(br, &head))
		o.once = io.MultiReader(&head, br)
	}
	return o, named(s, err)
}

// named names the source in err (nil stays nil).
func named(s Source, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", s.Name, err)
}

func readDict(r io.Reader) ([]byte, error) {
	h, err := block.ReadHeader(r)
	if err != nil {
		return nil, err // a *block.Error: "rdbz format 2: at byte N: header: ..."
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

// rdb opens the RDB the source holds, through listcodec.Open: an rdbz
// file is decoded, and checked to its end by Finish.
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
	// One decoding worker: the parts' compressors take the other CPUs,
	// and a second block decoder's buffers took split of a dump of source
	// files (gen-realdata's godev-lzf) into three parts to 67 MiB.
	in, err := listcodec.Open(ctx, f, listcodec.DecompressOptions{Flow: listcodec.Flow{Options: decodeOptions(ro), Workers: 1}})
	if err != nil {
		f.Close()
		return nil, err
	}
	return decoded{in, f}, nil
}

// decodeOptions are the options of the stages before reshape (decoding an
// rdbz file, converting): how to read, not which records to keep, which
// reshape's own Reader decides once.
func decodeOptions(ro rdbio.Options) rdbio.Options {
	return rdbio.Options{Cap: ro.Cap, IgnoreChecksum: ro.IgnoreChecksum}
}

// decoded is the RDB a source holds: Finish checks the rest of an rdbz
// file (reshape.Finisher); closing it stops the decoding, then closes the
// file.
type decoded struct {
	*listcodec.Input
	file io.Closer
}

func (d decoded) Close() error {
	d.Input.Close()
	return d.file.Close()
}
