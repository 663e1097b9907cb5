package listcodec

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hdt3213/rdb/core"
	"github.com/hdt3213/rdb/model"
	"github.com/rdbz/rdbz/rdbio"
)

// DefaultDecodeCap is the default VerifyOptions.DecodeCap.
const DefaultDecodeCap = 64 << 20

// VerifyOptions configure Verify.
type VerifyOptions struct {
	// Flow configures the decompression of each input (Workers per input;
	// IgnoreChecksum accepts an input whose CRC64 does not match).
	Flow
	// Dicts are external dictionaries, for files compressed with NoEmbed.
	Dicts []*Dict
	// DecodeCap bounds the stored bytes of one value that is decoded to be
	// compared semantically (the decoder holds the whole value in memory);
	// a larger value is compared by its stored bytes. 0 = DefaultDecodeCap.
	DecodeCap int
}

// VerifyResult is what Verify found.
type VerifyResult struct {
	Keys     int64 // keys compared (present in both inputs)
	Semantic int64 // of which compared by decoded value
	ByteWise int64 // of which compared by stored bytes
	// ByteWiseWhy lists (a few of) the reasons why keys were compared by
	// their stored bytes, e.g. `A: RDB version 13 (hdt3213/rdb: cannot
	// parse version: 13)` or `A: type module`.
	ByteWiseWhy []string
	// Unparsed reports that both inputs hold records rdbio cannot walk
	// (unknown types or opcodes), and that everything from there to the
	// trailer was compared as one run of bytes.
	Unparsed bool
	// Diff is the first difference found; nil when the inputs hold the
	// same data.
	Diff *Difference
}

// Difference is the first difference Verify found.
type Difference struct {
	DB  uint64
	Key string // the key's bytes
	// What differs: "missing in A", "missing in B", "type: ...", "element
	// count: ...", "value: ...", "expiry: ..." (the last one may follow
	// another after "; ").
	What string
	// Unparsed: the difference is in the part after a record rdbio cannot
	// walk; DB and Key are then not known.
	Unparsed bool
}

// String names the database, the key (quoted) and what differs.
func (d *Difference) String() string {
	if d.Unparsed {
		return "the unparsed rest of the files (from a record rdbio cannot walk to the trailer): " + d.What
	}
	return fmt.Sprintf("db %d, key %s: %s", d.DB, quoteKey(d.Key), d.What)
}

// quoteKey quotes a key for a message, shortened when long.
func quoteKey(k string) string {
	const max = 200
	if len(k) > max {
		return strconv.Quote(k[:max]) + "..."
	}
	return strconv.Quote(k)
}

// Verify reports whether two RDB streams hold the same data: per database
// the same keys, each with the same type, value and expiry, whatever the
// encodings (a list stored as a ziplist in one and as a quicklist in the
// other is the same list; an LZF-compressed string equals its raw form).
// Either input may be rdbz-compressed: each is decompressed to raw list
// nodes on the fly (opt.Dicts supplies external dictionaries). AUX fields,
// functions, module AUX data, LRU/LFU hints, key metadata and the seen and
// active times of stream consumers are not compared.
//
// Each key's value is compared semantically when github.com/hdt3213/rdb
// decodes it in both inputs: a SHA-256 over its decoded content in a
// canonical form (list elements in order; hash fields, set members and
// sorted-set members sorted; stream messages, groups, consumers and
// pending entries). Otherwise (RDB versions or types that decoder does not
// know, module values, values over DecodeCap) the key is compared byte-wise:
// its type byte and its stored value bytes after decompression to raw
// nodes, which tells a file and its rdbz-compressed form apart from a
// different file, but calls two encodings of the same data different.
//
// Verify stops at the first difference and returns it in the result's Diff;
// an error means an input could not be read.
func Verify(a, b io.Reader, opt VerifyOptions) (*VerifyResult, error) {
	if opt.DecodeCap <= 0 {
		opt.DecodeCap = DefaultDecodeCap
	}
	v := &verifier{opt: opt, stop: make(chan struct{}), res: &VerifyResult{}, why: map[string]bool{}}
	sa, sb := v.start("A", a), v.start("B", b)
	err := v.compare(sa, sb)
	close(v.stop)
	sa.pr.CloseWithError(errVerifyStopped)
	sb.pr.CloseWithError(errVerifyStopped)
	v.wg.Wait()
	if err != nil {
		return nil, err
	}
	return v.res, nil
}

// errVerifyStopped ends the goroutines of a Verify that has its answer.
var errVerifyStopped = errors.New("verify: stopped")

type verifier struct {
	opt  VerifyOptions
	stop chan struct{}
	wg   sync.WaitGroup
	res  *VerifyResult
	why  map[string]bool
}

// vkey identifies a key across the inputs; rest is the unparsed tail.
type vkey struct {
	db   uint64
	key  string
	rest bool
}

// ventry is what is kept of one key: its identity, type, expiry and the
// digests of its value.
type ventry struct {
	id     vkey
	seq    int64
	typ    byte   // the stored type byte
	tname  string // its name (rdbio)
	expire int64  // absolute Unix ms; -1 for none
	sum    [sha256.Size]byte
	sem    [sha256.Size]byte
	semOK  bool   // sem, class and count hold the decoded value's digest
	class  string // string, list, set, zset, hash, stream
	count  int64  // elements (collections), messages (streams)
	why    string // why the value was not decoded
}

type vitem struct {
	e   *ventry
	err error
}

// vside reads one input: a goroutine decompresses it to raw list nodes into
// a pipe, another walks the result and sends one entry per key.
type vside struct {
	name    string
	v       *verifier
	ch      chan vitem
	pr      *io.PipeReader
	decErr  error
	decDone chan struct{}
	sem     semDecoder
	h       hash.Hash
	capt    capture
	recBuf  appenderBuf
}

func (v *verifier) start(name string, src io.Reader) *vside {
	pr, pw := io.Pipe()
	s := &vside{name: name, v: v, ch: make(chan vitem, 256), pr: pr, decDone: make(chan struct{}), h: sha256.New()}
	s.capt.limit = v.opt.DecodeCap
	v.wg.Add(2)
	go func() {
		defer v.wg.Done()
		dopt := DecompressOptions{Flow: v.opt.Flow, To: ToRaw, Dicts: v.opt.Dicts}
		_, err := Decompress(pw, src, dopt)
		s.decErr = err
		pw.CloseWithError(err) // nil: the reader sees io.EOF
		close(s.decDone)
	}()
	go func() {
		defer v.wg.Done()
		defer close(s.ch)
		if err := s.walk(); err != nil {
			s.send(vitem{err: s.cause(err)})
		}
	}()
	return s
}

// cause prefers the decompressor's error (the input's own problem) to the
// error the pipe gave the reader.
func (s *vside) cause(err error) error {
	if errors.Is(err, errVerifyStopped) {
		return err
	}
	s.pr.CloseWithError(errVerifyStopped)
	<-s.decDone
	if s.decErr != nil && !errors.Is(s.decErr, errVerifyStopped) {
		err = s.decErr
	}
	return fmt.Errorf("input %s: %w", s.name, err)
}

// send passes an item to the comparison unless it has stopped.
func (s *vside) send(it vitem) bool {
	select {
	case s.ch <- it:
		return true
	case <-s.v.stop:
		return false
	}
}

// next returns the next entry; nil at the end.
func (s *vside) next() (*ventry, error) {
	it, ok := <-s.ch
	if !ok {
		return nil, nil
	}
	return it.e, it.err
}

// walk reads the decompressed stream and sends an entry per key.
func (s *vside) walk() error {
	r, err := rdbio.NewReader(s.pr, rdbio.Options{Cap: s.v.opt.Cap})
	if err != nil {
		return err
	}
	s.sem.init(r.Header())
	// Record bytes go to recBuf (reset before each record), so that the
	// bytes of a record rdbio cannot walk can be digested with the rest.
	if err := r.SetSink(&s.recBuf); err != nil {
		return err
	}
	for seq := int64(0); ; seq++ {
		s.recBuf = s.recBuf[:0]
		rec, err := r.Next()
		if errors.Is(err, rdbio.ErrUnsupported) {
			n := len(s.recBuf)
			h := s.h
			h.Reset()
			if err := r.SetSink(h); err != nil { // flushes the record's bytes to recBuf
				return err
			}
			h.Write(s.recBuf[n:])
			return s.rest(r, h, seq)
		}
		if err != nil {
			return err
		}
		switch rec.Kind {
		case rdbio.KindEOF:
			// Drain the pipe so that the decompressor finishes.
			_, err := r.CopyRest(io.Discard)
			return err
		case rdbio.KindKey:
			e, err := s.key(r, rec, seq)
			if err != nil {
				return err
			}
			if !s.send(vitem{e: e}) {
				return errVerifyStopped
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
func (s *vside) rest(r *rdbio.Reader, h hash.Hash, seq int64) error {
	e, err := s.restEntry(r, h, seq)
	if err != nil {
		return err
	}
	if !s.send(vitem{e: e}) {
		return errVerifyStopped
	}
	return nil
}

func (s *vside) restEntry(r *rdbio.Reader, h hash.Hash, seq int64) (*ventry, error) {
	if _, err := r.PassBody(); err != nil {
		return nil, err
	}
	if _, err := r.CopyRest(io.Discard); err != nil {
		return nil, err
	}
	e := &ventry{id: vkey{rest: true}, seq: seq, expire: -1}
	h.Sum(e.sum[:0])
	return e, nil
}

// key reads a key's value and digests it: always its stored bytes, and its
// decoded content when the decoder knows the type.
func (s *vside) key(r *rdbio.Reader, rec *rdbio.Record, seq int64) (*ventry, error) {
	e := &ventry{id: vkey{db: rec.DB, key: string(rec.Key)}, seq: seq, typ: rec.Type,
		tname: r.TypeName(rec.Type), expire: rec.Expire}
	h := s.h
	h.Reset()
	h.Write([]byte{rec.Type})
	e.why = s.sem.whyNot(e.tname)
	var w io.Writer = h
	if e.why == "" {
		s.capt.reset(h)
		s.capt.buf = s.sem.head(s.capt.buf, rec.Type, rec.Key)
		s.capt.head = len(s.capt.buf)
		w = &s.capt
	}
	if err := r.CopyValue(w); err != nil {
		if !errors.Is(err, rdbio.ErrUnsupported) {
			return nil, err
		}
		// A value rdbio cannot walk: it and the rest of the file are
		// compared as one run of bytes.
		h.Write(rec.Key)
		if err := r.SetSink(h); err != nil {
			return nil, err
		}
		return s.restEntry(r, h, seq)
	}
	h.Sum(e.sum[:0])
	if e.why != "" {
		return e, nil
	}
	if s.capt.over {
		e.why = fmt.Sprintf("values over the decode cap (%d bytes)", s.capt.limit)
		s.capt.release()
		return e, nil
	}
	e.why = s.sem.decode(s.capt.buf, s.capt.head, e)
	s.capt.release()
	return e, nil
}

// compare reads both inputs in step. While they hold the same keys in the
// same order, each pair is compared as it arrives and nothing is kept. A
// key that does not match the other input's current key waits in a map
// until its partner arrives: memory is O(keys out of order), so O(keys)
// when the two orders differ throughout (e.g. dumps of two servers).
func (v *verifier) compare(a, b *vside) error {
	pendA, pendB := map[vkey]*ventry{}, map[vkey]*ventry{}
	aDone, bDone := false, false
	for !aDone || !bDone {
		var ea, eb *ventry
		var err error
		if !aDone {
			if ea, err = a.next(); err != nil {
				return err
			}
			aDone = ea == nil
		}
		if !bDone {
			if eb, err = b.next(); err != nil {
				return err
			}
			bDone = eb == nil
		}
		if ea != nil && eb != nil && ea.id == eb.id {
			if v.pair(ea, eb) {
				return nil
			}
			continue
		}
		if ea != nil {
			if m := pendB[ea.id]; m != nil {
				delete(pendB, ea.id)
				if v.pair(ea, m) {
					return nil
				}
			} else {
				pendA[ea.id] = ea
			}
		}
		if eb != nil {
			if m := pendA[eb.id]; m != nil {
				delete(pendA, eb.id)
				if v.pair(m, eb) {
					return nil
				}
			} else {
				pendB[eb.id] = eb
			}
		}
	}
	if e := first(pendA); e != nil {
		v.res.Diff = missing(e, "missing in B")
	} else if e := first(pendB); e != nil {
		v.res.Diff = missing(e, "missing in A")
	}
	v.finish()
	return nil
}

// first is the entry of m that came first in its input.
func first(m map[vkey]*ventry) *ventry {
	var f *ventry
	for _, e := range m {
		if f == nil || e.seq < f.seq {
			f = e
		}
	}
	return f
}

func missing(e *ventry, what string) *Difference {
	if e.id.rest {
		return &Difference{Unparsed: true, What: "only one input has records rdbio cannot walk: " + what}
	}
	return &Difference{DB: e.id.db, Key: e.id.key, What: what}
}

// pair compares the entries of one key; it reports whether they differ
// (the result's Diff is then set).
func (v *verifier) pair(a, b *ventry) bool {
	if a.id.rest {
		v.res.Unparsed = true
		if a.sum != b.sum {
			v.res.Diff = &Difference{Unparsed: true, What: "the bytes differ"}
		}
		return v.res.Diff != nil
	}
	v.res.Keys++
	var what []string
	if a.semOK && b.semOK {
		v.res.Semantic++
		switch {
		case a.class != b.class:
			what = append(what, fmt.Sprintf("type: %s in A, %s in B", a.class, b.class))
		case a.count != b.count:
			what = append(what, fmt.Sprintf("element count: %d in A, %d in B", a.count, b.count))
		case a.sem != b.sem:
			what = append(what, fmt.Sprintf("value: the %s's decoded content differs", a.class))
		}
	} else {
		v.res.ByteWise++
		why := v.noteWhy(a, b)
		switch {
		case a.typ != b.typ:
			what = append(what, fmt.Sprintf("type: %s (%d) in A, %s (%d) in B (compared as stored: %s)",
				a.tname, a.typ, b.tname, b.typ, why))
		case a.sum != b.sum:
			what = append(what, fmt.Sprintf("value: the stored bytes differ (compared as stored: %s)", why))
		}
	}
	if a.expire != b.expire {
		what = append(what, fmt.Sprintf("expiry: %s in A, %s in B", fmtExpire(a.expire), fmtExpire(b.expire)))
	}
	if len(what) == 0 {
		return false
	}
	v.res.Diff = &Difference{DB: a.id.db, Key: a.id.key, What: strings.Join(what, "; ")}
	v.finish()
	return true
}

// noteWhy records why a pair was compared byte-wise and returns it.
func (v *verifier) noteWhy(a, b *ventry) string {
	var ws []string
	for _, s := range []struct {
		name string
		e    *ventry
	}{{"A", a}, {"B", b}} {
		if s.e.why == "" {
			continue
		}
		w := s.name + ": " + s.e.why
		ws = append(ws, w)
		if !v.why[w] && len(v.why) < 8 {
			v.why[w] = true
		}
	}
	return strings.Join(ws, ", ")
}

func (v *verifier) finish() {
	v.res.ByteWiseWhy = v.res.ByteWiseWhy[:0]
	for w := range v.why {
		v.res.ByteWiseWhy = append(v.res.ByteWiseWhy, w)
	}
	sort.Strings(v.res.ByteWiseWhy)
}

func fmtExpire(ms int64) string {
	if ms == -1 {
		return "none"
	}
	return fmt.Sprintf("%s (%d ms)", time.UnixMilli(ms).UTC().Format(time.RFC3339Nano), ms)
}

// appenderBuf is a sink that appends to a byte slice.
type appenderBuf []byte

func (a *appenderBuf) Write(p []byte) (int, error) {
	*a = append(*a, p...)
	return len(p), nil
}

// capture hashes a value's bytes and keeps them, after a prefix, up to a
// limit.
type capture struct {
	h     hash.Hash
	buf   []byte
	head  int
	limit int
	over  bool
}

// reset starts a value: the caller appends the prefix to buf and sets head.
func (c *capture) reset(h hash.Hash) {
	c.h, c.over, c.buf, c.head = h, false, c.buf[:0], 0
}

func (c *capture) Write(p []byte) (int, error) {
	c.h.Write(p)
	if !c.over {
		if len(c.buf)-c.head+len(p) > c.limit {
			c.over = true
			c.buf = c.buf[:c.head]
		} else {
			c.buf = append(c.buf, p...)
		}
	}
	return len(p), nil
}

// release drops a large buffer after use.
func (c *capture) release() {
	if cap(c.buf) > 4<<20 {
		c.buf = nil
	}
}

// semanticTypes are the value types (as rdbio names them) whose values
// github.com/hdt3213/rdb decodes. Module values are not among them: without
// the module the decoder skips them and gives no content.
var semanticTypes = map[string]bool{
	"string": true, "list": true, "set": true, "zset": true, "hash": true, "zset2": true,
	"hash-zipmap": true, "list-ziplist": true, "set-intset": true, "zset-ziplist": true,
	"hash-ziplist": true, "list-quicklist": true, "stream": true, "hash-listpack": true,
	"zset-listpack": true, "list-quicklist2": true, "stream2": true, "set-listpack": true,
	"stream3": true, "hash-metadata-pre-ga": true, "hash-listpack-ex-pre-ga": true,
	"hash-metadata": true, "hash-listpack-ex": true, "hash2": true,
}

// semDecoder decodes one value at a time with hdt3213/rdb's decoder, fed a
// one-key RDB: the input's magic, the key record, the EOF opcode and a zero
// checksum. Only the key's own bytes reach the decoder, so opcodes it does
// not know elsewhere in the file do not matter.
type semDecoder struct {
	magic  string
	refuse string // why the decoder refuses this RDB version, or ""
	rd     bytes.Reader
	br     *bufio.Reader
}

var semTrailer = []byte{rdbio.OpEOF, 0, 0, 0, 0, 0, 0, 0, 0}

func (d *semDecoder) init(h rdbio.Header) {
	d.magic = h.Magic
	d.br = bufio.NewReaderSize(&d.rd, 64<<10)
	// The decoder checks the magic on its own terms (its maximum version).
	probe := append([]byte(h.Magic), semTrailer...)
	d.rd.Reset(probe)
	d.br.Reset(&d.rd)
	if err := core.NewDecoder(d.br).Parse(func(model.RedisObject) bool { return true }); err != nil {
		d.refuse = fmt.Sprintf("%s (hdt3213/rdb: %v)", h.Magic, err)
	}
}

// whyNot says why values of the named type are not decoded, or "".
func (d *semDecoder) whyNot(tname string) string {
	switch {
	case d.refuse != "":
		return d.refuse
	case !semanticTypes[tname]:
		return "type " + tname
	}
	return ""
}

// head appends the one-key RDB up to the value to dst.
func (d *semDecoder) head(dst []byte, typ byte, key []byte) []byte {
	dst = append(append(dst, d.magic...), typ)
	dst = rdbio.AppendLen(dst, uint64(len(key)))
	return append(dst, key...)
}

// decode decodes the one-key RDB in buf (head bytes, then the value) and
// sets e's semantic digest. It returns why the value could not be decoded,
// or "".
func (d *semDecoder) decode(buf []byte, head int, e *ventry) string {
	o, err := d.parse(buf, e.id.key)
	if err != nil && e.typ == rdbio.TypeListQuicklist2 {
		// hdt3213/rdb v1.3.2 decodes a quicklist mixing PLAIN and PACKED
		// nodes but then panics sizing it (memprofiler); one node at a
		// time it does not.
		var err2 error
		if o, err2 = d.parseNodes(buf, head, e.id.key); err2 == nil {
			err = nil
		}
	}
	if err == nil {
		e.class, e.count, err = digestObject(o, e.sem[:0])
	}
	if err != nil {
		return fmt.Sprintf("type %s not decoded (hdt3213/rdb: %v)", e.tname, err)
	}
	e.semOK = true
	return ""
}

// parse decodes the one-key RDB in buf (without its trailer).
func (d *semDecoder) parse(buf []byte, key string) (model.RedisObject, error) {
	buf = append(buf, semTrailer...)
	d.rd.Reset(buf)
	d.br.Reset(&d.rd)
	dec := core.NewDecoder(d.br)
	var objs []model.RedisObject
	err := dec.Parse(func(o model.RedisObject) bool {
		objs = append(objs, o)
		return len(objs) == 1
	})
	switch {
	case err != nil:
		return nil, err
	case len(objs) != 1 || dec.GetReadCount() != len(buf):
		return nil, fmt.Errorf("read %d of %d bytes, %d objects", dec.GetReadCount(), len(buf), len(objs))
	case objs[0].GetKey() != key:
		return nil, fmt.Errorf("decoded key %q", objs[0].GetKey())
	}
	return objs[0], nil
}

// parseNodes decodes a quicklist2 value node by node, each as a list of one
// node, and returns the list of all their elements.
func (d *semDecoder) parseNodes(buf []byte, head int, key string) (model.RedisObject, error) {
	p := buf[head:]
	n, _, k, err := rdbLen(p)
	if err != nil {
		return nil, err
	}
	p = p[k:]
	var one []byte
	list := &model.ListObject{}
	for i := uint64(0); i < n; i++ {
		_, _, kc, err := rdbLen(p)
		if err != nil {
			return nil, err
		}
		ks, err := rdbStringSize(p[kc:])
		if err != nil {
			return nil, err
		}
		one = append(append(append(one[:0], buf[:head]...), 1), p[:kc+ks]...)
		p = p[kc+ks:]
		o, err := d.parse(one, key)
		if err != nil {
			return nil, fmt.Errorf("node %d: %w", i, err)
		}
		l, ok := o.(*model.ListObject)
		if !ok {
			return nil, fmt.Errorf("node %d decoded as %T", i, o)
		}
		list.Values = append(list.Values, l.Values...)
	}
	if len(p) != 0 {
		return nil, fmt.Errorf("%d bytes after the last node", len(p))
	}
	return list, nil
}

var errShort = errors.New("value ends early")

// rdbLen reads an RDB length (or special string encoding) at the start of
// p and returns it and its size in bytes.
func rdbLen(p []byte) (n uint64, special bool, size int, err error) {
	if len(p) == 0 {
		return 0, false, 0, errShort
	}
	switch b := p[0]; {
	case b>>6 == 0:
		return uint64(b), false, 1, nil
	case b>>6 == 1:
		if len(p) < 2 {
			return 0, false, 0, errShort
		}
		return uint64(b&0x3f)<<8 | uint64(p[1]), false, 2, nil
	case b>>6 == 3:
		return uint64(b & 0x3f), true, 1, nil
	case b == 0x80 && len(p) >= 5:
		return uint64(binary.BigEndian.Uint32(p[1:])), false, 5, nil
	case b == 0x81 && len(p) >= 9:
		return binary.BigEndian.Uint64(p[1:]), false, 9, nil
	case b == 0x80 || b == 0x81:
		return 0, false, 0, errShort
	}
	return 0, false, 0, fmt.Errorf("bad length byte 0x%02x", p[0])
}

// rdbStringSize is the size in bytes of the RDB string at the start of p.
func rdbStringSize(p []byte) (int, error) {
	n, special, k, err := rdbLen(p)
	if err != nil {
		return 0, err
	}
	if special {
		switch n {
		case 0, 1, 2: // int8, int16, int32
			n = 1 << n
		case 3: // LZF: clen, ulen, data
			c, _, kc, err := rdbLen(p[k:])
			if err != nil {
				return 0, err
			}
			_, _, ku, err := rdbLen(p[k+kc:])
			if err != nil {
				return 0, err
			}
			k, n = k+kc+ku, c
		default:
			return 0, fmt.Errorf("string encoding %d", n)
		}
	}
	if uint64(len(p)-k) < n {
		return 0, errShort
	}
	return k + int(n), nil
}

// digestObject writes the SHA-256 of o's decoded content in canonical form
// into sum (len 0, cap ≥ 32) and returns its type class and element count.
func digestObject(o model.RedisObject, sum []byte) (string, int64, error) {
	var d digester
	d.h = sha256.New()
	var class string
	var n int
	switch o := o.(type) {
	case *model.StringObject:
		class = model.StringType
		d.str(class)
		d.bytes(o.Value)
	case *model.ListObject:
		class, n = model.ListType, len(o.Values)
		d.str(class)
		d.num(uint64(n))
		for _, v := range o.Values {
			d.bytes(v)
		}
	case *model.SetObject:
		class, n = model.SetType, len(o.Members)
		d.str(class)
		d.num(uint64(n))
		m := append([][]byte(nil), o.Members...)
		sort.Slice(m, func(i, j int) bool { return bytes.Compare(m[i], m[j]) < 0 })
		for _, v := range m {
			d.bytes(v)
		}
	case *model.HashObject:
		class, n = model.HashType, len(o.Hash)
		d.str(class)
		d.num(uint64(n))
		for _, f := range sortedKeys(o.Hash) {
			d.str(f)
			d.bytes(o.Hash[f])
			ttl := o.FieldExpirations[f] // absolute ms; 0 (or absent): none
			d.num(uint64(max(ttl, 0)))
		}
	case *model.ZSetObject:
		class, n = model.ZSetType, len(o.Entries)
		d.str(class)
		d.num(uint64(n))
		es := append([]*model.ZSetEntry(nil), o.Entries...)
		sort.Slice(es, func(i, j int) bool {
			if es[i].Member != es[j].Member {
				return es[i].Member < es[j].Member
			}
			return math.Float64bits(es[i].Score) < math.Float64bits(es[j].Score)
		})
		for _, e := range es {
			d.str(e.Member)
			d.num(math.Float64bits(e.Score))
		}
	case *model.StreamObject:
		class, n = model.StreamType, int(o.Length)
		d.str(class)
		d.stream(o)
	default:
		return "", 0, fmt.Errorf("decoded as %T", o)
	}
	d.h.Sum(sum)
	return class, int64(n), nil
}

// digester writes length-prefixed fields into a hash.
type digester struct {
	h   hash.Hash
	scr [8]byte
}

func (d *digester) num(v uint64) {
	binary.LittleEndian.PutUint64(d.scr[:], v)
	d.h.Write(d.scr[:])
}

func (d *digester) bytes(b []byte) {
	d.num(uint64(len(b)))
	d.h.Write(b)
}

func (d *digester) str(s string) {
	d.num(uint64(len(s)))
	io.WriteString(d.h, s)
}

// id writes a stream ID; nil (absent in this stream version) is a marker.
func (d *digester) id(id *model.StreamId) {
	if id == nil {
		d.num(0)
		return
	}
	d.num(1)
	d.num(id.Ms)
	d.num(id.Sequence)
}

// stream digests what the model gives of a stream: length, IDs and
// counters, the live messages in order (fields sorted: the decoder keeps
// them in a map), and the consumer groups by name with their pending
// entries (ID, delivery time and count) and consumers (name, pending IDs).
// Not part of the digest: how messages are grouped into listpack nodes,
// deleted messages still stored in them, and the consumers' seen and active
// times, which like LRU/LFU hints record access (two dumps of the same data
// taken apart differ in them; Redis's DEBUG DIGEST leaves them out too).
func (d *digester) stream(o *model.StreamObject) {
	d.num(o.Length)
	d.id(o.LastId)
	d.id(o.FirstId)
	d.id(o.MaxDeletedId)
	d.num(o.AddedEntriesCount)
	for _, e := range o.Entries {
		for _, m := range e.Msgs {
			if m.Deleted {
				continue
			}
			d.num(1)
			d.id(m.Id)
			d.num(uint64(len(m.Fields)))
			for _, f := range sortedKeys(m.Fields) {
				d.str(f)
				d.str(m.Fields[f])
			}
		}
	}
	d.num(0) // end of messages
	gs := append([]*model.StreamGroup(nil), o.Groups...)
	sort.Slice(gs, func(i, j int) bool { return gs[i].Name < gs[j].Name })
	d.num(uint64(len(gs)))
	for _, g := range gs {
		d.str(g.Name)
		d.id(g.LastId)
		d.num(g.EntriesRead)
		pel := append([]*model.StreamNAck(nil), g.Pending...)
		sort.Slice(pel, func(i, j int) bool { return idLess(pel[i].Id, pel[j].Id) })
		d.num(uint64(len(pel)))
		for _, p := range pel {
			d.id(p.Id)
			d.num(p.DeliveryTime)
			d.num(p.DeliveryCount)
		}
		cs := append([]*model.StreamConsumer(nil), g.Consumers...)
		sort.Slice(cs, func(i, j int) bool { return cs[i].Name < cs[j].Name })
		d.num(uint64(len(cs)))
		for _, c := range cs {
			d.str(c.Name)
			ids := append([]*model.StreamId(nil), c.Pending...)
			sort.Slice(ids, func(i, j int) bool { return idLess(ids[i], ids[j]) })
			d.num(uint64(len(ids)))
			for _, id := range ids {
				d.id(id)
			}
		}
	}
}

func idLess(a, b *model.StreamId) bool {
	switch {
	case a == nil || b == nil:
		return a == nil && b != nil
	case a.Ms != b.Ms:
		return a.Ms < b.Ms
	}
	return a.Sequence < b.Sequence
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
