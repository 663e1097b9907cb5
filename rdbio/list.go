package rdbio

import (
	"errors"
	"fmt"
	"io"

	"github.com/rdbz/rdbz/rdbio/lzf"
)

// Node is one quicklist node string of a list value (types 10, 14, 18).
// Its bytes are not sent to the sink: the caller writes Raw and then the
// payload (Data, or Nodes.CopyData), changed or not, or the decoded payload
// (Nodes.CopyDecoded).
type Node struct {
	Offset    int64  // offset of the node's first byte
	Container uint64 // type 18: 1 PLAIN, 2 PACKED; 0 for types 10 and 14
	Enc       Enc    // how the payload is stored
	Flags     byte   // EncZstd: the flags byte
	Size      uint64 // stored payload bytes
	ULen      uint64 // decoded length (raw: Size; int: 0, decode Data)
	// Raw is the exact bytes before the payload: the container length (type
	// 18) and the string prefix with its lengths.
	Raw []byte
	// Data is the stored payload (raw bytes, LZF stream, integer bytes or
	// zstd frame) when Size is within the cap; nil otherwise.
	Data []byte
}

// startNodes starts reading the pending list value node by node and
// returns the number of nodes (Value.Nodes).
func (r *Reader) startNodes() (uint64, error) {
	if !IsList(r.rec.Type) {
		return 0, fmt.Errorf("rdb: Nodes on a value of type %v, not a list", r.rec.Type)
	}
	r.val.state = inList
	if r.rec.Type == TypeListZiplist {
		r.val.nodes = 1
		return 1, nil
	}
	n, err := r.readLen()
	if err != nil {
		return 0, r.fail("list node count", err)
	}
	r.val.nodes = n
	return n, nil
}

// nextNode reads the next node; io.EOF when the list has no more. The Node
// and its slices are valid until the next call on r.
func (r *Reader) nextNode() (*Node, error) {
	if r.err != nil {
		return nil, r.err
	}
	if r.val.state != inList {
		return nil, errors.New("rdb: next node read outside a list value")
	}
	if err := r.in.skip(r.dataLeft()); err != nil {
		return nil, r.fail("list node", err)
	}
	if r.val.nodes == 0 {
		r.val.state = noValue
		return nil, io.EOF
	}
	r.val.nodes--
	var n *Node
	err := r.divert(&r.bufs.rawBuf, "list node", func() (err error) {
		r.bufs.rawBuf = r.bufs.rawBuf[:0]
		n, err = r.readNodeHead()
		return err
	})
	if err == nil {
		n.Raw = r.bufs.rawBuf
		// The payload is checksummed, not passed on.
		err = r.divert(nil, "list node", func() error { return r.readNodeData(n) })
	}
	if err != nil {
		return nil, err
	}
	return n, nil
}

func (r *Reader) readNodeHead() (*Node, error) {
	n := &r.bufs.node
	*n = Node{Offset: r.in.offset()}
	if r.rec.Type == TypeListQuicklist2 {
		c, err := r.readLen()
		if err != nil {
			return nil, err
		}
		if c != 1 && c != 2 {
			return nil, fmt.Errorf("%w: quicklist container %d (want 1 or 2)", ErrCorrupt, c)
		}
		n.Container = c
	}
	h, err := r.strHeader()
	if err != nil {
		return nil, err
	}
	n.Enc, n.Size, n.ULen, n.Flags = h.enc, h.size, h.ulen, h.flags
	if n.Enc == EncZstd && n.Flags&^ZstdFlagLZF != 0 {
		return nil, fmt.Errorf("%w: zstd node with unknown flag bits 0x%02x", ErrCorrupt, n.Flags)
	}
	if n.Size == 0 || (n.Enc != EncInt && n.ULen == 0) {
		return nil, fmt.Errorf("%w: empty list node", ErrCorrupt)
	}
	return n, nil
}

func (r *Reader) readNodeData(n *Node) error {
	if n.Size > uint64(r.opt.Cap) {
		r.val.pending = n.Size
		return nil
	}
	d, err := r.in.appendN(r.bufs.nodeBuf[:0], n.Size)
	r.bufs.nodeBuf = d
	n.Data = d
	return err
}

// dataLeft is how many payload bytes of the last node were not read, and
// forgets them.
func (r *Reader) dataLeft() uint64 {
	n := r.val.pending
	r.val.pending = 0
	return n
}

// copyNodeData streams the payload of the last node nextNode returned
// (Nodes.CopyData).
func (r *Reader) copyNodeData(w io.Writer) error {
	n := r.dataLeft()
	return r.divert(w, "list node", func() error { return r.in.skip(n) })
}

// copyNodeDecoded streams the decoded payload of the last node nextNode
// returned (Nodes.CopyDecoded).
func (r *Reader) copyNodeDecoded(w io.Writer) (int64, error) {
	if r.err != nil {
		return 0, r.err
	}
	if r.val.state != inList || r.val.pending == 0 {
		return 0, errors.New("rdb: CopyDecoded without a node payload left to read")
	}
	n := &r.bufs.node
	if n.Enc != EncRaw && n.Enc != EncLZF {
		return 0, fmt.Errorf("rdb: offset %d: list node stored as %v, not decoded as a stream: %w", n.Offset, n.Enc, ErrUnsupported)
	}
	size := r.dataLeft()
	cw := &countWriter{w: w}
	if n.Enc == EncRaw {
		// The input hands the bytes to w itself (a failure of w is a
		// sinkError there).
		err := r.divert(cw, "list node", func() error { return r.in.skip(size) })
		return cw.n, err
	}
	err := r.divert(nil, "list node", func() error {
		z := lzf.NewReader(&payloadReader{in: r.in, left: size}, int64(n.ULen))
		if _, err := io.Copy(sinkWriter{cw}, z); err != nil {
			var se *sinkError
			if errors.As(err, &se) || !errors.Is(err, lzf.ErrCorrupt) {
				return err
			}
			return fmt.Errorf("%w: LZF node of %d bytes does not decode to %d: %w", ErrCorrupt, size, n.ULen, err)
		}
		if uint64(cw.n) != n.ULen {
			return fmt.Errorf("%w: LZF node decodes to %d bytes, not %d", ErrCorrupt, cw.n, n.ULen)
		}
		return nil
	})
	return cw.n, err
}

// payloadReader reads the next left bytes of the input, which it consumes
// (they reach the input's current sink and checksum as any consumed byte).
type payloadReader struct {
	in   *input
	left uint64
}

func (p *payloadReader) Read(b []byte) (int, error) {
	if p.left == 0 {
		return 0, io.EOF
	}
	if p.in.pos == p.in.end {
		if err := p.in.fill(1); err != nil {
			return 0, err
		}
	}
	k := min(uint64(len(b)), uint64(p.in.end-p.in.pos), p.left)
	copy(b, p.in.buf[p.in.pos:p.in.pos+int(k)])
	p.in.pos += int(k)
	p.left -= k
	return int(k), nil
}

func (p *payloadReader) ReadByte() (byte, error) {
	if p.left == 0 {
		return 0, io.EOF
	}
	b, err := p.in.byte()
	if err != nil {
		return 0, err
	}
	p.left--
	return b, nil
}

// countWriter counts the bytes written to w.
type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// sinkWriter marks the failures of w as the caller's (sinkError), not the
// input's.
type sinkWriter struct{ w io.Writer }

func (s sinkWriter) Write(p []byte) (int, error) {
	n, err := s.w.Write(p)
	if err != nil {
		err = &sinkError{err}
	}
	return n, err
}

// appender is a sink that appends to a byte slice.
type appender []byte

func (a *appender) Write(p []byte) (int, error) {
	*a = append(*a, p...)
	return len(p), nil
}

// ForEachNode walks the list nodes of an RDB stream and calls fn with each
// (and its list's key) until fn returns false or the stream ends. A record
// rdbio cannot walk (ErrUnsupported) ends the walk quietly: nothing after
// it is seen. Nodes over the cap come with Data nil.
func ForEachNode(src io.Reader, opt Options, fn func(key []byte, n *Node) (bool, error)) error {
	return ForEachKeptNode(src, opt, nil, fn)
}

// ForEachKeptNode is ForEachNode of the keys that keep keeps (a Filter;
// nil keeps every key).
func ForEachKeptNode(src io.Reader, opt Options, keep func(*Record) bool, fn func(key []byte, n *Node) (bool, error)) error {
	rr, err := NewReader(src, opt)
	if err != nil {
		return err
	}
	r := NewFilter(rr, keep)
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) || errors.Is(err, ErrUnsupported) {
			return nil
		}
		if err != nil {
			return err
		}
		if rec.Kind != KindKey || !IsList(rec.Type) {
			continue
		}
		nodes, err := r.Value().Nodes()
		if err != nil {
			return err
		}
		for nodes.Next() {
			if more, err := fn(rec.Key, nodes.Node()); err != nil || !more {
				return err
			}
		}
		if err := nodes.Err(); err != nil {
			return err
		}
	}
}

// ForEachAux calls fn with the name and value of each AUX record until fn
// returns false or the stream ends.
func ForEachAux(src io.Reader, fn func(name, value []byte) bool) error {
	return eachRecord(src, Options{}, func(_ *Reader, rec *Record) (bool, error) {
		return rec.Kind == KindAux && !fn(rec.Name, rec.Value), nil
	})
}

// ForEachKey calls fn with each key record of an RDB stream and the
// Reader that holds its value (read it through r.Value(), or leave it to
// be skipped) until fn returns an error or the stream ends.
func ForEachKey(src io.Reader, opt Options, fn func(r *Reader, rec *Record) error) error {
	return eachRecord(src, opt, func(r *Reader, rec *Record) (bool, error) {
		if rec.Kind != KindKey {
			return false, nil
		}
		return false, fn(r, rec)
	})
}

// eachRecord calls fn with each record of an RDB stream until fn stops it
// (true, or an error) or the stream ends.
func eachRecord(src io.Reader, opt Options, fn func(*Reader, *Record) (bool, error)) error {
	r, err := NewReader(src, opt)
	if err != nil {
		return err
	}
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if stop, err := fn(r, rec); stop || err != nil {
			return err
		}
	}
}
