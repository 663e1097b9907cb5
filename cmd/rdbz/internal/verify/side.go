package verify

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"io"

	"github.com/rdbz/rdbz/listcodec"
	"github.com/rdbz/rdbz/rdbio"
	"github.com/rdbz/rdbz/rdbio/lzf"
)

// keyID identifies a key across the inputs; rest is the unparsed tail.
type keyID struct {
	db   uint64
	key  string
	rest bool
}

// captureKeep is the largest capture buffer a side keeps between values:
// the default decode cap, so that a buffer is not grown and cleared again
// for each value over 1 MiB (the earlier bound). On a dump of source files
// (gen-realdata's godev-raw) verify took 1.16 s at 1 MiB and 0.90 s at 4,
// its peak RSS 57.4-58.2 MiB and 56.5-56.8 (the peak is the largest value
// captured and decoded, kept or not).
const captureKeep = DefaultDecodeCap

// entry is what is kept of one key: its identity, type, expiry and the
// digests of its value.
type entry struct {
	id     keyID
	seq    int64
	typ    byte   // the stored type byte
	tname  string // its name (rdbio)
	expire int64  // absolute Unix ms; -1 for none
	// sum is the SHA-256 of the type byte and the stored bytes, when
	// hasSum: not for a value posted to or matched by the twins as its
	// bytes (unless it then failed to decode).
	sum    [sha256.Size]byte
	hasSum bool
	sem    [sha256.Size]byte
	semOK  bool // sem, class and count hold the decoded value's digest
	// twin: not decoded, as the other input holds the key with the same
	// type and stored bytes (twins); twinOf is the token of that input's
	// post, post the token of this entry's own (0: none).
	twin         bool
	twinOf, post uint64
	class        string // string, list, set, zset, hash, stream
	count        int64  // elements (collections), messages (streams)
	why          string // why the value was not decoded
}

type item struct {
	e   *entry
	err error
}

// side reads one input: the RDB it holds (listcodec.Open: an rdbz input is
// decoded on goroutines of its own), walked by a goroutine that sends one
// entry per key, its list nodes taken as raw (an LZF node decoded), so
// that the same list compares alike however its nodes are stored.
type side struct {
	name  string
	index int // 0 for A, 1 for B
	v     *verifier
	ch    chan item
	in    *listcodec.Input
	sem   semDecoder
	h     hash.Hash
	// capt holds the one-key RDB of the value being read, for the
	// decoder: a head (see semDecoder.head) and the value's stored bytes,
	// up to the decode cap; stored sends those bytes to capt (and h).
	capt   rdbio.CappedBuffer
	stored storedWriter
	// nodes are the offsets in capt.Buf where the nodes of the list value
	// being read start.
	nodes []int
	// recBuf is the reader's sink: the bytes of the record being read, so
	// that those of a record rdbio cannot walk can be digested with the
	// rest of the file.
	recBuf bytes.Buffer
	// node holds an LZF node decoded, and hdr a node's raw header.
	node, hdr []byte
	// bytePosts: small values go to the twins as their bytes (both inputs
	// decode values: verifier.decoding).
	bytePosts bool
}

// start starts reading input index (0: A, 1: B).
func (v *verifier) start(index int, src io.Reader) *side {
	s := &side{name: [2]string{"A", "B"}[index], index: index, v: v, ch: make(chan item, 256), h: sha256.New()}
	s.stored.s = s
	v.wg.Add(1)
	go func() {
		defer v.wg.Done()
		defer close(s.ch)
		defer v.tell(index, false) // (if it failed before telling)
		if err := s.read(src); err != nil {
			s.send(item{err: s.cause(err)})
		}
	}()
	return s
}

// read opens src and walks the RDB it holds to its end; for an rdbz input,
// to the end of its container.
func (s *side) read(src io.Reader) error {
	src = stopReader{r: src, stop: s.v.stop}
	in, err := listcodec.Open(context.Background(), src, listcodec.DecompressOptions{Flow: s.v.opt.Flow, Dicts: s.v.opt.Dicts})
	if err != nil {
		return err
	}
	s.in = in
	if err := s.walk(); err != nil {
		return err
	}
	return in.Finish()
}

// stopReader fails with errStopped once stop is closed, so that a side
// in the middle of a long value stops reading when the comparison has its
// answer.
type stopReader struct {
	r    io.Reader
	stop <-chan struct{}
}

func (s stopReader) Read(p []byte) (int, error) {
	select {
	case <-s.stop:
		return 0, errStopped
	default:
		return s.r.Read(p)
	}
}

// close stops the decoding of an rdbz input, if any.
func (s *side) close() {
	if s.in != nil {
		s.in.Close()
	}
}

// cause prefers the decoder's error (the input's own problem) to the
// error its pipe gave the reader.
func (s *side) cause(err error) error {
	if errors.Is(err, errStopped) {
		return err
	}
	if s.in != nil {
		err = s.in.Cause(err)
	}
	return fmt.Errorf("input %s: %w", s.name, err)
}

// send passes an item to the comparison unless it has stopped.
func (s *side) send(it item) bool {
	select {
	case s.ch <- it:
		return true
	case <-s.v.stop:
		return false
	}
}

// next returns the next entry; nil at the end.
func (s *side) next() (*entry, error) {
	it, ok := <-s.ch
	if !ok {
		return nil, nil
	}
	return it.e, it.err
}

// walk reads the RDB and sends an entry per key.
func (s *side) walk() error {
	r, err := rdbio.NewReader(s.in, s.v.opt.Options)
	if err != nil {
		return err
	}
	s.sem.init(r.Header(), s.v.opt.DecodeCap)
	if s.bytePosts, err = s.v.decoding(s.index, s.sem.refuse == ""); err != nil {
		return err
	}
	if err := r.SetSink(&s.recBuf); err != nil {
		return err
	}
	for seq := int64(0); ; seq++ {
		s.recBuf.Reset()
		rec, err := r.Next()
		if errors.Is(err, rdbio.ErrUnsupported) {
			n := s.recBuf.Len()
			h := s.h
			h.Reset()
			if err := r.SetSink(h); err != nil { // flushes the record's bytes to recBuf
				return err
			}
			h.Write(s.recBuf.Bytes()[n:])
			return s.rest(r, h, seq)
		}
		if err != nil {
			return err
		}
		switch rec.Kind {
		case rdbio.KindEOF:
			// What follows the trailer is checked by the Reader; an rdbz
			// input's container by Finish.
			_, err := r.CopyRest(io.Discard)
			return err
		case rdbio.KindKey:
			e, err := s.key(r, rec, seq)
			if err != nil {
				return err
			}
			if !s.send(item{e: e}) {
				return errStopped
			}
			if e.id.rest {
				return nil
			}
		}
	}
}

// rest digests everything from a record rdbio cannot walk to the trailer
// into h (which holds what was read of that record) and sends it as one
// entry.
func (s *side) rest(r *rdbio.Reader, h hash.Hash, seq int64) error {
	e, err := s.restEntry(r, h, seq)
	if err != nil {
		return err
	}
	if !s.send(item{e: e}) {
		return errStopped
	}
	return nil
}

func (s *side) restEntry(r *rdbio.Reader, h hash.Hash, seq int64) (*entry, error) {
	if _, err := r.PassBody(); err != nil {
		return nil, err
	}
	if _, err := r.CopyRest(io.Discard); err != nil {
		return nil, err
	}
	e := &entry{id: keyID{rest: true}, seq: seq, expire: -1, hasSum: true}
	h.Sum(e.sum[:0])
	return e, nil
}

// key reads a key's value and digests it: its decoded content when the
// decoder knows the type, its stored bytes when they are compared as they
// are (not decoded, or not handed to the twins).
func (s *side) key(r *rdbio.Reader, rec *rdbio.Record, seq int64) (*entry, error) {
	e := &entry{id: keyID{db: rec.DB, key: string(rec.Key)}, seq: seq, typ: rec.Op,
		tname: rec.Type.String(), expire: rec.Expire}
	h := s.h
	h.Reset()
	h.Write([]byte{rec.Op})
	e.why = s.sem.whyNot(rec.Type)
	var w io.Writer = h
	if e.why == "" {
		// The head is not hashed, and does not count against the cap.
		s.capt.Reset(s.v.opt.DecodeCap)
		s.capt.Buf = s.sem.head(s.capt.Buf, rec.Op, rec.Key)
		s.stored.head, s.stored.hashing = len(s.capt.Buf), false
		s.capt.Max += s.stored.head
		w = &s.stored
	}
	var err error
	var info rdbio.ValueInfo
	if rdbio.IsList(rec.Type) {
		err = s.listValue(r, w)
	} else {
		info, err = r.Value().Count(w)
	}
	if err != nil {
		if !errors.Is(err, rdbio.ErrUnsupported) {
			return nil, err
		}
		// A value rdbio cannot walk: it and the rest of the file are
		// compared as one run of bytes.
		if w == &s.stored {
			s.stored.catchUp()
		}
		h.Write(rec.Key)
		if err := r.SetSink(h); err != nil {
			return nil, err
		}
		return s.restEntry(r, h, seq)
	}
	if e.why != "" {
		h.Sum(e.sum[:0])
		e.hasSum = true
		return e, nil
	}
	head := s.stored.head
	if e.why = s.undecodable(info, rec.Type, len(s.capt.Buf)-head); e.why != "" {
		s.stored.sum(e)
	} else {
		s.twin(e)
		if !e.twin {
			if e.why = s.decode(head, e); e.why != "" {
				s.stored.sum(e) // the decoder leaves the captured bytes as they were
			}
		}
	}
	// The buffer is kept for the next value up to captureKeep: a larger
	// one (a decode cap over the default) is not held between values.
	if cap(s.capt.Buf) > captureKeep {
		s.capt.Buf = nil
	}
	return e, nil
}

// twin hands a decodable value captured whole to the twins: as its bytes
// when they are few enough and both inputs decode values, else as their
// digest (which it also takes when no post was made: the entry then may
// be compared as stored).
func (s *side) twin(e *entry) {
	var stored []byte // nil: posted or compared as its digest (match digests it)
	if b := s.capt.Buf[s.stored.head:]; len(b) <= postMax && !s.stored.hashing && s.bytePosts {
		stored = b
	}
	e.twin = s.v.twins.match(s.index, e, stored, func() { s.stored.sum(e) })
	if !e.twin && e.post == 0 {
		s.stored.sum(e)
	}
}

// storedWriter takes a decodable value's stored bytes for a side: into
// its capture, and into its digest (side.h, holding the type byte) only
// once they are more than postMax or the capture went over the cap, with
// what the capture held: a smaller value is digested from the capture if
// and when its digest is needed (sum), which twins spare most of them.
type storedWriter struct {
	s       *side
	head    int  // the one-key RDB's head in s.capt.Buf (not stored bytes)
	hashing bool // the bytes are digested as they come
}

func (w *storedWriter) Write(p []byte) (int, error) {
	c := &w.s.capt
	if w.hashing {
		c.Write(p)
		return w.s.h.Write(p)
	}
	n := len(c.Buf)
	c.Write(p)
	if !c.Over && len(c.Buf)-w.head <= postMax {
		return len(p), nil
	}
	// The capture holds p unless it went over the cap with p or before
	// it (listNodes).
	w.hashing = true
	w.s.h.Write(c.Buf[w.head:n])
	return w.s.h.Write(p)
}

// catchUp digests what the capture holds, unless the bytes went to the
// digest as they came; from then on they do.
func (w *storedWriter) catchUp() {
	if !w.hashing {
		w.hashing = true
		w.s.h.Write(w.s.capt.Buf[w.head:])
	}
}

// sum sets e's digest of the stored bytes, once.
func (w *storedWriter) sum(e *entry) {
	if e.hasSum {
		return
	}
	w.catchUp()
	w.s.h.Sum(e.sum[:0])
	e.hasSum = true
}

// bigValue is the captured size from which a side decodes a value only
// while the other decodes none that large: decoding takes about as much
// again as the value, so two sides decoding values near the decode cap at
// once would hold four times the cap.
const bigValue = 1 << 20

// decode decodes the captured value (after head) into e's digest.
func (s *side) decode(head int, e *entry) string {
	if len(s.capt.Buf) >= bigValue {
		s.v.bigDecode.Lock()
		defer s.v.bigDecode.Unlock()
	}
	return s.sem.decode(s.capt.Buf, head, s.nodes, e)
}

// undecodable says why a value of n stored bytes is not handed to the
// decoder, which sizes what it allocates by the counts and lengths the
// value claims: over the decode cap, a string that claims to decode to
// more than the cap, or more elements than the bytes can hold. "" when it
// may be decoded.
func (s *side) undecodable(info rdbio.ValueInfo, typ rdbio.Type, n int) string {
	limit := s.v.opt.DecodeCap
	switch {
	case s.capt.Over:
		return fmt.Sprintf("values over the decode cap (%d bytes)", limit)
	case info.MaxStringLen > uint64(limit):
		return fmt.Sprintf("values with a string that claims over the decode cap (%d bytes)", limit)
	case typ != rdbio.TypeString && info.Known && info.Elements > int64(n):
		return "values that claim more elements than their bytes hold"
	case typ != rdbio.TypeString && !rdbio.IsList(typ) && info.Known && info.Elements > int64(limit/elementCost):
		return fmt.Sprintf("values of more than %d elements (the decode cap / %d)", limit/elementCost, elementCost)
	case rdbio.IsStream(typ) && n > limit/streamCost:
		return fmt.Sprintf("streams of more than %d bytes (the decode cap / %d)", limit/streamCost, streamCost)
	}
	return ""
}

// streamCost bounds the stored bytes of a stream decoded: hdt3213/rdb
// decodes each entry (deleted ones and pending entries too, which its
// length does not count) into a few hundred bytes, from as few as 6
// stored: a 1.3 MB RDB of one stream of 200,000 entries took verify to
// 103 MiB. At a decode cap of 4 MiB, streams of up to 256 KiB are decoded.
const streamCost = 16

// elementCost bounds the elements of a value decoded, but for strings and
// lists (digested as they are read): a set, hash or sorted set is decoded
// into some 40-70 bytes per element whatever its stored size (slices,
// strings, a map), and an intset stores one in 2 bytes: a crafted 4 MiB
// intset of 2M members took verify to 156 MiB. At a decode cap of 4 MiB,
// values of up to 262,144 elements are decoded.
const elementCost = 16

// listValue sends a list value's stored bytes to w, as Value.Copy would, but
// node by node through rdbio (the node count reaches w as the reader's
// sink), and notes in s.nodes where each node starts in s.capt.Buf.
func (s *side) listValue(r *rdbio.Reader, w io.Writer) error {
	if err := r.SetSink(w); err != nil {
		return err
	}
	s.nodes = s.nodes[:0]
	err := s.listNodes(r, w)
	if err2 := r.SetSink(&s.recBuf); err == nil {
		err = err2
	}
	return err
}

// listNodes writes the nodes of the pending list value to w.
func (s *side) listNodes(r *rdbio.Reader, w io.Writer) error {
	nodes, err := r.Value().Nodes()
	if err != nil {
		return err
	}
	for nodes.Next() {
		n := nodes.Node()
		s.nodes = append(s.nodes, len(s.capt.Buf))
		lzfNode := n.Enc == rdbio.EncLZF
		head, size := n.Raw, n.Size
		if lzfNode { // taken as the raw node it decodes to
			s.hdr = s.hdr[:0]
			if n.Container != 0 {
				s.hdr = rdbio.AppendLen(s.hdr, n.Container)
			}
			s.hdr = rdbio.AppendLen(s.hdr, n.ULen)
			head, size = s.hdr, n.ULen
		}
		if uint64(len(s.capt.Buf)+len(head))+size > uint64(s.capt.Max) {
			// Over the decode cap whatever follows: capture none of it,
			// rather than the cap's worth of a node compared as stored.
			s.capt.Over = true
		}
		if _, err := w.Write(head); err != nil {
			return err
		}
		if err := s.nodeData(nodes, n, lzfNode, w); err != nil {
			return err
		}
	}
	return nodes.Err()
}

// nodeData writes the current node's payload to w, an LZF one decoded.
func (s *side) nodeData(nodes *rdbio.Nodes, n *rdbio.Node, lzfNode bool, w io.Writer) error {
	var err error
	switch {
	case n.Data == nil && lzfNode: // over rdbio's cap: streamed
		_, err = nodes.CopyDecoded(w)
	case n.Data == nil:
		err = nodes.CopyData(w)
	case lzfNode && n.ULen > captureKeep: // decoded as it is written
		if _, err = io.Copy(w, lzf.NewReader(bytes.NewReader(n.Data), int64(n.ULen))); err != nil {
			err = fmt.Errorf("rdb: offset %d: LZF list node: %w", n.Offset, err)
		}
	case lzfNode:
		if s.node, err = lzf.Decode(s.node[:0], n.Data, int(n.ULen)); err != nil {
			return fmt.Errorf("rdb: offset %d: LZF list node: %w", n.Offset, err)
		}
		_, err = w.Write(s.node)
	default:
		_, err = w.Write(n.Data)
	}
	return err
}
