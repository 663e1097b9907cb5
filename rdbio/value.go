package rdbio

import (
	"errors"
	"fmt"
	"io"
)

// ErrValueUsed is the error of a value handle used when its value is no
// longer there to read: a second time, or after the next call to Next.
var ErrValueUsed = errors.New("rdb: value handle used twice or after Next")

// Value is the handle of a key record's value (Reader.Value). The value is
// read by one call to one of its methods — copied, counted, visited, walked
// node by node, read field by field, or copied as an older stream type —
// and only until the next call to Next; a value not read is skipped by
// Next. Any later call fails with ErrValueUsed, as does a call on the
// handle of a record that is not a key.
type Value struct {
	r   *Reader
	gen uint64
}

// Value is the handle of the value of the key record Next returned last;
// after any other record, a handle whose methods fail with ErrValueUsed.
func (r *Reader) Value() Value {
	if r.rec.Kind != KindKey {
		return Value{}
	}
	return Value{r: r, gen: r.gen}
}

// take claims the value for the method what: it must still be there.
func (v Value) take(what string) (*Reader, error) {
	r := v.r
	switch {
	case r == nil:
		return nil, fmt.Errorf("rdb: %s on the handle of a record that is not a key: %w", what, ErrValueUsed)
	case r.err != nil:
		return nil, r.err
	case v.gen != r.gen || r.val.state != valuePending:
		return nil, fmt.Errorf("rdb: %s: the value of key %q was already read or passed: %w", what, r.rec.Key, ErrValueUsed)
	}
	return r, nil
}

// Copy sends the value, as stored, to w (nil discards it) instead of the
// sink. It walks the value as Next does when it skips one, decoding
// nothing.
func (v Value) Copy(w io.Writer) error {
	r, err := v.take("Copy")
	if err != nil {
		return err
	}
	_, err = r.walkPending(w, false)
	return err
}

// Count is Copy that also tells what the value holds. To count blobs it
// reads their headers: for an LZF-compressed blob within the cap that means
// holding the compressed bytes and decoding a prefix, so it costs more
// than Copy.
func (v Value) Count(w io.Writer) (ValueInfo, error) {
	r, err := v.take("Count")
	if err != nil {
		return ValueInfo{}, err
	}
	return r.walkPending(w, true)
}

// Visit is Count (without a writer) that also reports the parts of the
// value to fn: the strings of sets, hashes, sorted sets and old lists,
// scores, blobs decoded within the cap, and the structure of streams
// (listpacks, groups, PELs, consumers). Values of other types (strings,
// quicklists, modules, Dragonfly's types, hashes with field expiry) are
// walked as Count walks them, with nothing reported. Strings are never held
// whole: only ShortString bytes, or a blob within the cap.
func (v Value) Visit(fn func(*Elem) error) (ValueInfo, error) {
	r, err := v.take("Visit")
	if err != nil {
		return ValueInfo{}, err
	}
	return r.visitValue(fn)
}

// ExpiringFields reads the value — a hash with field expiry (types 22–25,
// Valkey's HASH_2) or Dragonfly's hash or set with expiry (31, 32) — and
// calls fn with each field (or set member) in the order stored, its value
// (nil for a set) and its expiry in Unix milliseconds (0 for none). Each
// string is decoded within the cap: a longer one, or a listpack blob over
// the cap, fails with ErrTooLarge. The slices are valid during the call
// only. A value of another type is an error, and is left unread.
func (v Value) ExpiringFields(fn func(field, value []byte, expireMs int64) error) error {
	r, err := v.take("ExpiringFields")
	if err != nil {
		return err
	}
	return r.expiringFields(fn)
}

// CopyStreamAs sends the value, a stream, to w as a stream of the older
// (or the same) type to, as that type stores it (docs/rdb-format.md §4.1): the
// fields to has no place for are left out, everything else (the entries'
// listpacks, the groups, their PELs and consumers) passes byte for byte.
// The type byte, already read with the key, is the caller's to rewrite. A
// server loading the older type derives what it needs (Redis 7.0 counts
// entries_added from the length, marks entries_read unknown, and takes
// seen-time as active-time). Another pending type, or a newer to, is an
// error, and the value is left unread.
func (v Value) CopyStreamAs(w io.Writer, to Type) error {
	r, err := v.take("CopyStreamAs")
	if err != nil {
		return err
	}
	return r.copyStreamAs(w, to)
}

// Nodes starts walking the value, a list (IsList), node by node. The node
// count (types 14, 18) goes to the sink. The nodes a walk leaves unread
// are skipped (and sent to the sink) by Next.
func (v Value) Nodes() (*Nodes, error) {
	r, err := v.take("Nodes")
	if err != nil {
		return nil, err
	}
	n, err := r.startNodes()
	if err != nil {
		return nil, err
	}
	return &Nodes{r: r, gen: v.gen, len: n}, nil
}

// Nodes walks the nodes of a list value:
//
//	nodes, err := r.Value().Nodes()
//	...
//	for nodes.Next() {
//		n := nodes.Node()
//		...
//	}
//	if err := nodes.Err(); err != nil {
//
// A node's payload over the cap (Node.Data nil) is read through the
// walk: CopyData or CopyDecoded, or Elements; otherwise the next call to
// Next skips it.
type Nodes struct {
	r    *Reader
	gen  uint64
	len  uint64
	node *Node
	err  error
	done bool // the end was read
}

// Len is the number of nodes the list holds.
func (ns *Nodes) Len() uint64 { return ns.len }

// Next reads the next node and reports whether there is one: false at the
// end of the list or on an error (Err).
func (ns *Nodes) Next() bool {
	ns.node = nil
	if ns.err != nil || ns.done {
		return false
	}
	if ns.gen != ns.r.gen {
		ns.err = fmt.Errorf("rdb: Nodes.Next after Next: %w", ErrValueUsed)
		return false
	}
	n, err := ns.r.nextNode()
	if err != nil {
		if !errors.Is(err, io.EOF) {
			ns.err = err
		}
		ns.done = true
		return false
	}
	ns.node = n
	return true
}

// Node is the node Next read. It and its slices are valid until the next
// call to Next (of the walk, or of the Reader).
func (ns *Nodes) Node() *Node { return ns.node }

// Err is the error that ended the walk, nil at the end of the list.
func (ns *Nodes) Err() error { return ns.err }

// current checks that the walk is at a node whose payload the Reader has
// not passed yet.
func (ns *Nodes) current(what string) error {
	if ns.node == nil || ns.gen != ns.r.gen {
		return fmt.Errorf("rdb: Nodes.%s without a current node: %w", what, ErrValueUsed)
	}
	return ns.r.err
}

// CopyData streams the payload of the current node, when it was too large
// to capture (Data == nil), to w.
func (ns *Nodes) CopyData(w io.Writer) error {
	if err := ns.current("CopyData"); err != nil {
		return err
	}
	return ns.r.copyNodeData(w)
}

// CopyDecoded streams the decoded payload of the current node, when it was
// too large to capture (Data == nil), to w, and returns the number of bytes
// written (ULen). A raw payload is copied as stored; an LZF payload is
// decoded as it is read (LZFReader), so memory stays bounded whatever the
// node's size. The payload bytes are checksummed, not passed to the sink.
// It fails with an *Error naming the input offset when the input ends
// inside the payload or an LZF payload does not decode to exactly ULen
// bytes (ErrCorrupt), and, consuming nothing, when the payload is stored
// otherwise (ErrUnsupported: use CopyData). Call it at most once per node,
// instead of CopyData.
func (ns *Nodes) CopyDecoded(w io.Writer) (int64, error) {
	if err := ns.current("CopyDecoded"); err != nil {
		return 0, err
	}
	return ns.r.copyNodeDecoded(w)
}

// Elements counts the elements of the current node from its header: the
// count of its listpack or ziplist, or 1 for a PLAIN or integer node. It
// reports false when the count cannot be told (an rdbz-compressed node, an
// LZF node whose stored bytes are over the cap, an LZF stream that does not
// decode, a header that does not hold the count of a node that decodes
// over the cap: only its first bytes are decoded). For a raw node over the
// cap it reads the header off the input, which consumes the payload: call
// it after anything else that reads the payload (CopyData).
func (ns *Nodes) Elements() (int64, bool, error) {
	if err := ns.current("Elements"); err != nil {
		return 0, false, err
	}
	return ns.r.nodeElements()
}
