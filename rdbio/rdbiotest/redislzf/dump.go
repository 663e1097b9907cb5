package redislzf

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/rdbz/rdbz/rdbio"
	"github.com/rdbz/rdbz/rdbio/lzf"
)

// Dump is what LZFStrings found in an RDB file.
type Dump struct {
	// Items are its LZF strings (0xC3) that rdbio/lzf reproduces byte for
	// byte: the decoded bytes, the stream as stored, and the budget Redis
	// saves a string with (its length − 4).
	Items []Item
	// Unfaithful counts LZF strings rdbio/lzf does not reproduce (older
	// liblzf): left out of Items, as format 2 keeps them as they are.
	Unfaithful int
	// Unwalked counts values whose strings were not looked at (streams,
	// modules, the rarer hash and zset encodings).
	Unwalked int
}

// LZFStrings collects the LZF strings of the RDB file at path: keys,
// string values, the blobs of listpack, ziplist and intset values, the
// members and fields of hash table encoded sets, hashes and sorted sets, and
// list nodes.
func LZFStrings(path string) (*Dump, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r, err := rdbio.NewReader(f, rdbio.Options{IgnoreChecksum: true})
	if err != nil {
		return nil, err
	}
	c := &collector{d: new(Dump)}
	if err := r.SetSink(&c.rec); err != nil {
		return nil, err
	}
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) || errors.Is(err, rdbio.ErrUnsupported) {
			return c.d, nil
		}
		if err != nil {
			return nil, err
		}
		if rec.Kind == rdbio.KindKey {
			if err := c.key(r, rec); err != nil {
				return nil, fmt.Errorf("%s: key %q: %w", path, rec.Key, err)
			}
		}
		c.rec.Reset()
	}
}

// collector gathers one file's strings.
type collector struct {
	d   *Dump
	enc lzf.Encoder
	rec bytes.Buffer // the sink: bytes of the records read since the last key
	val bytes.Buffer // the current value, as stored
}

// maxString bounds the decoded length of the strings looked at.
const maxString = 1 << 30

// key takes the strings of one key record and its value.
func (c *collector) key(r *rdbio.Reader, rec *rdbio.Record) error {
	// Once flushed to the sink, the key record's bytes end it: its type
	// byte, then the key.
	if err := r.SetSink(&c.rec); err != nil {
		return err
	}
	if b, n := c.rec.Bytes(), int(r.Offset()-rec.Offset); n > 1 && n <= len(b) {
		if _, err := c.strings(b[len(b)-n+1:], 1, 0); err != nil {
			return err
		}
	}
	if rdbio.IsList(rec.Type) {
		return c.nodes(r)
	}
	c.val.Reset()
	if err := r.Value().Copy(&c.val); err != nil {
		return err
	}
	v := c.val.Bytes()
	if _, _, skip, ok := rec.Type.Blob(); ok && skip <= len(v) {
		_, err := c.strings(v[skip:], 1, 0)
		return err
	}
	switch rec.Type {
	case rdbio.TypeString:
		_, err := c.strings(v, 1, 0)
		return err
	case rdbio.TypeSet, rdbio.TypeList:
		return c.collection(v, 1, 0)
	case rdbio.TypeHash:
		return c.collection(v, 2, 0)
	case rdbio.TypeZset2:
		return c.collection(v, 1, 8) // each member is followed by a binary double
	}
	c.d.Unwalked++
	return nil
}

// nodes takes a list's LZF nodes.
func (c *collector) nodes(r *rdbio.Reader) error {
	ns, err := r.Value().Nodes()
	if err != nil {
		return err
	}
	for ns.Next() {
		n := ns.Node()
		if n.Enc != rdbio.EncLZF || n.Data == nil {
			continue
		}
		raw, err := lzf.Decode(nil, n.Data, int(n.ULen))
		if err != nil {
			return err
		}
		c.add(raw, n.Data)
	}
	return ns.Err()
}

// collection takes the strings of a value made of a length n and n
// elements, each per strings followed by gap bytes.
func (c *collector) collection(v []byte, per, gap int) error {
	sc := rdbio.NewStringScanner(v, maxString)
	n, err := sc.Len()
	if err != nil {
		return err
	}
	v = v[sc.Offset():]
	for range n {
		used, err := c.strings(v, per, gap)
		if err != nil {
			return err
		}
		v = v[used:]
	}
	return nil
}

// strings takes count strings at the start of v, each followed by gap
// bytes, and returns how many bytes they took.
func (c *collector) strings(v []byte, count, gap int) (int, error) {
	at := 0
	for range count {
		sc := rdbio.NewStringScanner(v[at:], maxString)
		s, _, err := sc.String(nil)
		if err != nil {
			return 0, err
		}
		stored := v[at : at+sc.Offset()]
		at += sc.Offset() + gap
		if at > len(v) {
			return 0, fmt.Errorf("value ends within an element")
		}
		if len(stored) > 0 && stored[0] == 0xC3 {
			c.addStored(bytes.Clone(s), stored)
		}
	}
	return at, nil
}

// addStored adds an LZF string stored as stored (its prefix, then the
// stream) that decodes to raw, if rdbio/lzf makes the same bytes of it.
func (c *collector) addStored(raw, stored []byte) {
	z, ok := c.enc.RedisSave(nil, raw)
	head := rdbio.AppendStringHead(nil, rdbio.EncLZF, 0, uint64(len(z)), uint64(len(raw)))
	if !ok || !bytes.Equal(stored, append(head, z...)) {
		c.d.Unfaithful++
		return
	}
	c.d.Items = append(c.d.Items, Item{Raw: raw, Comp: z, Budget: len(raw) - 4})
}

// add adds a list node's LZF stream comp that decodes to raw, if rdbio/lzf
// makes the same bytes of it. Its budget is Redis's for saving a string
// when the stream fits in it; quicklist's in-memory compression may have
// kept one that does not.
func (c *collector) add(raw, comp []byte) {
	budget := len(raw) - 4
	z, ok := c.enc.Encode(nil, raw, budget)
	if !ok {
		budget = len(raw) + len(raw)/32 + 8
		z, ok = c.enc.Encode(nil, raw, budget)
	}
	if !ok || !bytes.Equal(z, comp) {
		c.d.Unfaithful++
		return
	}
	c.d.Items = append(c.d.Items, Item{Raw: raw, Comp: z, Budget: budget})
}
