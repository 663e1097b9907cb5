package export

import (
	"bufio"
	"fmt"
	"math"
	"strconv"

	"github.com/rdbz/rdbz/rdbio"
)

// The RESP of commands: an array of bulk strings.

// appendHead appends an array header of n elements.
func appendHead(dst []byte, n int) []byte {
	return append(strconv.AppendInt(append(dst, '*'), int64(n), 10), '\r', '\n')
}

// appendBulkHead appends a bulk string's header: its length.
func appendBulkHead(dst []byte, n uint64) []byte {
	if n < uint64(len(bulkHeads)) {
		return append(dst, bulkHeads[n]...)
	}
	return append(strconv.AppendUint(append(dst, '$'), n, 10), '\r', '\n')
}

// bulkHeads are the headers of the bulk strings of up to 1023 bytes, made
// once: formatting them took 14% of a plain export of app-cache (most
// fields and members are short).
var bulkHeads = func() (h [1024]string) {
	for i := range h {
		h[i] = "$" + strconv.Itoa(i) + "\r\n"
	}
	return h
}()

// appendBulk appends b as a bulk string.
func appendBulk(dst, b []byte) []byte {
	return append(append(appendBulkHead(dst, uint64(len(b))), b...), '\r', '\n')
}

// appendCommand appends a whole command.
func appendCommand(dst []byte, args ...[]byte) []byte {
	dst = appendHead(dst, len(args))
	for _, a := range args {
		dst = appendBulk(dst, a)
	}
	return dst
}

// scoreText is a score as ZADD reads it back exactly: the shortest
// decimal that round-trips, or inf / -inf.
func scoreText(dst []byte, f float64) []byte {
	switch {
	case math.IsInf(f, 1):
		return append(dst, "inf"...)
	case math.IsInf(f, -1):
		return append(dst, "-inf"...)
	}
	return strconv.AppendFloat(dst, f, 'g', -1, 64)
}

// batch gathers the elements of one command (RPUSH key a b c ...) until
// Limits says to send it.
type batch struct {
	cmd   []byte
	pre   [][]byte // arguments before the elements (the key)
	args  [][]byte // into arena
	arena []byte
	per   int // arguments per element
	n     int // elements
}

// reset starts a batch of the command cmd with arguments pre.
func (b *batch) reset(cmd string, per int, pre ...[]byte) {
	b.cmd = append(b.cmd[:0], cmd...)
	b.pre = append(b.pre[:0], pre...)
	b.per = per
	b.clear()
}

func (b *batch) clear() {
	b.args, b.arena, b.n = b.args[:0], b.arena[:0], 0
}

// add adds an element (b.per arguments) and reports whether the batch is
// full.
func (b *batch) add(lim Limits, args ...[]byte) bool {
	for _, a := range args {
		start := len(b.arena)
		b.arena = append(b.arena, a...)
		b.args = append(b.args, b.arena[start:len(b.arena):len(b.arena)])
	}
	b.n++
	return b.n >= lim.Args || len(b.arena) >= lim.Bytes
}

// flush writes the batch as one command, if it holds anything; pre, when
// given, replaces the arguments before the elements.
func (b *batch) flush(p *plain, pre ...[]byte) error {
	if b.n == 0 {
		return nil
	}
	if pre == nil {
		pre = b.pre
	}
	// The arena may have moved as it grew: rebuild the arguments.
	off := 0
	for i, a := range b.args {
		b.args[i] = b.arena[off : off+len(a)]
		off += len(a)
	}
	p.buf = appendHead(p.buf[:0], 1+len(pre)+len(b.args))
	p.buf = appendBulk(p.buf, b.cmd)
	for _, a := range pre {
		p.buf = appendBulk(p.buf, a)
	}
	for _, a := range b.args {
		p.buf = appendBulk(p.buf, a)
	}
	b.clear()
	return p.send(p.buf)
}

// plain renders values as plain commands.
type plain struct {
	w      *bufio.Writer
	lim    Limits
	feat   features
	rep    *Report
	db     int64 // the db selected, -1 before the first key
	k      *keyInfo
	key    []byte
	buf    []byte
	b      batch // the value's elements
	ttl    batch // HPEXPIREAT fields of one TTL
	ttlMs  int64
	n      int64  // strings completed in the value
	cur    []byte // the string being gathered
	fld    []byte // a hash field or zset member waiting for its value or score
	big    bool   // a string over Limits.Bytes is streaming in a command of its own
	bigFld bool   // the hash field just given streamed so (it keeps no TTL)
	set    bool   // a string value's SET was sent (APPEND the rest)
	st     streamState
	num    []byte
	// capBytes is the reader's cap: what a stream group's PEL may hold.
	capBytes int
}

func newPlain(w *bufio.Writer, lim Limits, feat features, rep *Report) *plain {
	return &plain{w: w, lim: lim, feat: feat, rep: rep, db: -1}
}

// send writes one command.
func (p *plain) send(b []byte) error {
	p.rep.Commands++
	_, err := p.w.Write(b)
	return err
}

// command writes a command of whole arguments.
func (p *plain) command(args ...[]byte) error {
	p.buf = appendCommand(p.buf[:0], args...)
	return p.send(p.buf)
}

// selectDB writes SELECT when the key's db is not the one selected.
func (p *plain) selectDB(db uint64) error {
	if p.db == int64(db) {
		return nil
	}
	p.db = int64(db)
	return p.command([]byte("SELECT"), strconv.AppendUint(p.num[:0], db, 10))
}

var commandOf = map[string]string{"list": "RPUSH", "set": "SADD", "zset": "ZADD", "hash": "HSET"}

func (p *plain) begin(k *keyInfo) error {
	p.k, p.n, p.big, p.set = k, 0, false, false
	p.key = append(p.key[:0], k.rec.Key...)
	p.cur, p.fld = p.cur[:0], p.fld[:0]
	if err := p.selectDB(k.rec.DB); err != nil {
		return err
	}
	per := 1
	if k.family == "hash" || k.family == "zset" {
		per = 2
	}
	p.b.reset(commandOf[k.family], per, p.key)
	p.ttl.reset("HPEXPIREAT", 1, p.key)
	if k.family == "string" {
		return nil
	}
	// RPUSH, SADD... add to what a key holds: start from nothing.
	return p.command([]byte("DEL"), p.key)
}

func (p *plain) str(e *rdbio.Elem) error {
	last := e.Pos+uint64(len(e.Data)) == e.Len
	defer func() {
		if last {
			p.n++
		}
	}()
	switch p.k.family {
	case "string":
		return p.stringPiece(e, last)
	case "hash":
		if p.n%2 == 0 {
			return p.fieldPiece(e, last)
		}
		return p.element(e, last, p.fld)
	case "zset": // held until its score comes
		if e.Pos != 0 || !last {
			return fmt.Errorf("sorted set member of %d bytes over the cap: %w", e.Len, rdbio.ErrTooLarge)
		}
		p.fld = append(p.fld[:0], e.Data...)
		return nil
	case "stream":
		return nil
	}
	return p.element(e, last)
}

// stringPiece sends a string value: SET with its first Limits.Bytes, then
// APPENDs.
func (p *plain) stringPiece(e *rdbio.Elem, last bool) error {
	p.cur = append(p.cur, e.Data...)
	for len(p.cur) >= p.lim.Bytes || (last && (len(p.cur) > 0 || !p.set)) {
		n := min(len(p.cur), p.lim.Bytes)
		cmd := "APPEND"
		if !p.set {
			cmd, p.set = "SET", true
		}
		if err := p.command([]byte(cmd), p.key, p.cur[:n]); err != nil {
			return err
		}
		p.cur = append(p.cur[:0], p.cur[n:]...)
	}
	return nil
}

// fieldPiece takes a hash field: held until its value comes, unless it is
// over Limits.Bytes, when its HSET of one pair starts streaming.
func (p *plain) fieldPiece(e *rdbio.Elem, last bool) error {
	if e.Len <= uint64(p.lim.Bytes) {
		if e.Pos == 0 {
			p.fld, p.bigFld = p.fld[:0], false
		}
		p.fld = append(p.fld, e.Data...)
		return nil
	}
	if e.Pos == 0 {
		if err := p.b.flush(p); err != nil {
			return err
		}
		p.buf = appendBulk(appendBulk(appendHead(p.buf[:0], 4), []byte("HSET")), p.key)
		p.buf = appendBulkHead(p.buf, e.Len)
		p.rep.Commands++
		p.big, p.bigFld = true, true
		p.fld = p.fld[:0]
	}
	return p.stream(e, last)
}

// element takes a list or set item, or a hash value (with its field
// before).
func (p *plain) element(e *rdbio.Elem, last bool, before ...[]byte) error {
	switch {
	case p.big && p.k.family == "hash": // the field streamed: the value follows in its command
		if e.Pos == 0 {
			p.buf = appendBulkHead(p.buf[:0], e.Len) // stream writes it first
		}
		if err := p.stream(e, last); err != nil || !last {
			return err
		}
		p.big = false
		return nil
	case e.Len > uint64(p.lim.Bytes):
		if e.Pos == 0 {
			if err := p.b.flush(p); err != nil {
				return err
			}
			p.buf = appendBulk(appendHead(p.buf[:0], 2+len(before)+1), p.b.cmd)
			p.buf = appendBulk(p.buf, p.key)
			for _, a := range before {
				p.buf = appendBulk(p.buf, a)
			}
			p.buf = appendBulkHead(p.buf, e.Len)
			p.rep.Commands++
		}
		return p.stream(e, last)
	}
	if e.Pos == 0 {
		p.cur = p.cur[:0]
	}
	p.cur = append(p.cur, e.Data...)
	if !last {
		return nil
	}
	if p.b.add(p.lim, append(before, p.cur)...) {
		return p.flushElements()
	}
	return nil
}

// stream writes a piece of a string inside a command already begun (its
// header written or in p.buf), and ends the bulk string after the last.
func (p *plain) stream(e *rdbio.Elem, last bool) error {
	if e.Pos == 0 {
		if _, err := p.w.Write(p.buf); err != nil {
			return err
		}
	}
	if _, err := p.w.Write(e.Data); err != nil {
		return err
	}
	if last {
		_, err := p.w.WriteString("\r\n")
		return err
	}
	return nil
}

// flushElements sends the elements gathered, and then the field TTLs that
// apply to them.
func (p *plain) flushElements() error {
	if err := p.b.flush(p); err != nil {
		return err
	}
	return p.flushTTL()
}

func (p *plain) score(f float64) error {
	s := scoreText(p.num[:0], f)
	p.n++
	if p.b.add(p.lim, s, p.fld) {
		return p.b.flush(p)
	}
	return nil
}

// fieldTTL takes the TTL of the hash field just given (or of a set member
// with expiry, which no command sets).
func (p *plain) fieldTTL(ms int64) error {
	switch {
	case ms == 0:
		return nil
	case p.k.family != "hash":
		return p.rep.skip("member TTLs", p.key, p.k.rec.Offset, "no command gives a set member a TTL")
	case !p.feat.fieldTTL:
		return p.rep.skip("field TTLs", p.key, p.k.rec.Offset, "the target has no HPEXPIREAT (redis 7.4, valkey 9)")
	case p.bigFld:
		return p.rep.skip("field TTLs", p.key, p.k.rec.Offset, "a field over the command bound keeps no TTL")
	}
	if p.ttl.n > 0 && ms != p.ttlMs {
		if err := p.flushElements(); err != nil {
			return err
		}
	}
	p.ttlMs = ms
	if p.ttl.add(p.lim, p.fld) {
		return p.flushElements()
	}
	return nil
}

// flushTTL sends the HPEXPIREAT of the fields gathered.
func (p *plain) flushTTL() error {
	if p.ttl.n == 0 {
		return nil
	}
	if err := p.b.flush(p); err != nil { // the fields must exist first
		return err
	}
	ms := strconv.AppendInt(nil, p.ttlMs, 10)
	n := strconv.AppendInt(nil, int64(p.ttl.n), 10)
	return p.ttl.flush(p, p.key, ms, []byte("FIELDS"), n)
}

func (p *plain) end() error {
	if err := p.flushElements(); err != nil {
		return err
	}
	if p.k.family == "stream" {
		if err := p.endStream(); err != nil {
			return err
		}
	}
	if p.k.rec.Expire >= 0 {
		return p.command([]byte("PEXPIREAT"), p.key, strconv.AppendInt(p.num[:0], p.k.rec.Expire, 10))
	}
	return nil
}

func (p *plain) skip(*keyInfo, string) error { return nil }

func (p *plain) function(code []byte) error {
	if !p.feat.functions {
		return p.rep.skip("function libraries", nil, 0, "the target has no functions (redis 7.0)")
	}
	return p.command([]byte("FUNCTION"), []byte("LOAD"), []byte("REPLACE"), code)
}

func (p *plain) finish() error { return nil }
