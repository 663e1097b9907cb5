package rdbio

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/rdbz/rdbz/rdbio/envelope"
)

// DefaultCap is the default capture cap: the most bytes of one string that
// rdbio (and callers that capture a value) hold in memory.
const DefaultCap = 16 << 20

// Options configure a Reader.
type Options struct {
	// Cap bounds every string rdbio holds in memory (keys, AUX fields,
	// captured list nodes). Zero means DefaultCap.
	Cap int
	// IgnoreChecksum accepts a CRC64 trailer that does not match.
	IgnoreChecksum bool
	// NoChecksum neither computes nor checks the input's CRC64: for a
	// stream whose trailer sums other bytes than its own (format 2's T,
	// whose reader checks what it writes). The EOF record's Checksum is
	// then empty, and Reader.Checksum 0.
	NoChecksum bool
}

// Header is the file's magic, and the envelope around the RDB if any.
type Header struct {
	Magic   string // the 9 magic bytes, e.g. "REDIS0011" or "VALKEY080"
	Version int    // the RDB version number in the magic
	Valkey  bool   // the magic is "VALKEY"+3 digits (Valkey 9+)
	// Envelope is the input's VKCS envelope (Valkey's rdbcompression lz4;
	// the zero Info for a plain RDB): a Reader reads the RDB inside it, and
	// offsets are the inner RDB's. A Writer writes no envelope.
	Envelope envelope.Info
}

// HasChecksum reports whether files of this version end with a CRC64.
func (h Header) HasChecksum() bool { return h.Version >= 5 }

// ChecksumStatus says what the trailer held.
type ChecksumStatus string

// Checksum states.
const (
	ChecksumOK       ChecksumStatus = "ok"       // a CRC64 that matches
	ChecksumDisabled ChecksumStatus = "disabled" // a stored 0 (rdbchecksum no, Dragonfly)
	ChecksumAbsent   ChecksumStatus = "absent"   // RDB < 5: no trailer
	ChecksumMismatch ChecksumStatus = "mismatch" // a CRC64 that does not match
)

// Kind is what a record is.
type Kind uint8

// Record kinds.
const (
	KindKey        Kind = iota + 1 // a key and its value (Type, Key)
	KindAux                        // 250 AUX: Name, Value
	KindSelectDB                   // 254: DB
	KindResizeDB                   // 251: DBSize, ExpiresSize
	KindExpire                     // 252 (ms) / 253 (s): Expire in ms
	KindIdle                       // 248: Idle
	KindFreq                       // 249: Freq
	KindModuleAux                  // 247
	KindFunction                   // 245: Value = library code (246, 7.0-rc: as redis 7.0 rebuilds it; Name)
	KindSlotInfo                   // 244 (Redis cluster): Slot, DBSize, ExpiresSize
	KindKeyMeta                    // 243 in Redis 8.6+ files
	KindSlotImport                 // 243 in Valkey 9 files
	KindVendor                     // Dragonfly and Redis Enterprise opcodes
	KindEOF                        // 255: the trailer was read
)

var kindNames = map[Kind]string{
	KindKey: "key", KindAux: "aux", KindSelectDB: "selectdb", KindResizeDB: "resizedb",
	KindExpire: "expire", KindIdle: "idle", KindFreq: "freq", KindModuleAux: "module-aux",
	KindFunction: "function", KindSlotInfo: "slot-info", KindKeyMeta: "key-meta",
	KindSlotImport: "slot-import", KindVendor: "vendor", KindEOF: "eof",
}

func (k Kind) String() string {
	if s, ok := kindNames[k]; ok {
		return s
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Record is one record of the file. Fields not used by its Kind are zero.
// Byte slices are valid until the next call to Next.
type Record struct {
	Kind   Kind
	Op     byte  // the opcode, or the type byte of a key
	Offset int64 // offset of the record's first byte

	// KindKey
	Key    []byte
	Type   Type   // the value's type, as the file's producer means Op
	DB     uint64 // the selected db (also KindSelectDB's value)
	Expire int64  // absolute Unix ms; -1 for none (also KindExpire's value)
	Idle   uint64 // LRU idle seconds; 0 when absent (also KindIdle's value)
	Freq   int    // LFU counter; -1 when absent (also KindFreq's value)

	// KindAux
	Name, Value []byte

	// KindResizeDB (and KindSlotInfo: the slot's key counts)
	DBSize, ExpiresSize uint64
	// KindSlotInfo: the cluster hash slot the counts are for
	Slot uint64

	// KindEOF: what the trailer holds, and its status
	Stored   uint64 // the CRC-64 the trailer stores (0 when it has none)
	Checksum ChecksumStatus

	// ctime: the AUX ctime, on a key record a Filter judges (Ctime)
	ctime    int64
	hasCtime bool
}

// state of the value that follows a key record.
type valueState uint8

const (
	noValue      valueState = iota // nothing pending
	valuePending                   // a key was returned; its value is unread
	inList                         // nodes are being read
)

// Reader reads an RDB stream record by record.
type Reader struct {
	in   *input
	opt  Options
	hdr  Header
	hook StringHook // sees the strings as they are read (hook.go)
	sink io.Writer  // the caller's sink
	err  error      // sticky
	done bool       // the EOF record was read

	rec   Record    // the record Next returned last
	key   []byte    // the buffer of rec.Key, kept for the next key (Record's slices live until Next)
	gen   uint64    // records returned by Next: a Value handle names one
	next  keyState  // what the records so far say of the next key
	val   valueWalk // how far the value of the key record is read
	marks marks     // what the file says of its producer
	bufs  buffers
}

// keyState is the selected db, and what the records since the last key
// (expiry, idle, freq) say of the next one.
type keyState struct {
	db     uint64
	expire int64
	idle   uint64
	freq   int
}

// valueWalk is how far the value of the last key record is read.
type valueWalk struct {
	state   valueState
	nodes   uint64 // list nodes left
	pending uint64 // payload bytes of the last node not yet read
	maxLen  uint64 // the largest decoded string length seen (ValueInfo.MaxStringLen)
}

// marks is what the file says of its producer.
type marks struct {
	dfly  bool     // Dragonfly's marks seen (Dragonfly)
	prod  producer // what type bytes mean: fixed at the first key
	fixed bool     // prod is fixed
}

// buffers are the Reader's buffers, kept from one use to the next.
type buffers struct {
	scratch []byte
	node    Node
	rawBuf  appender  // a node's head (nextNode)
	nodeBuf []byte    // a node's payload within the cap
	strBuf  []byte    // a string read whole (Decode)
	dec     []byte    // decoded blob headers (blobBody, nodeElements)
	head    prefixBuf // the header of a node over the cap (nodeElements)
	prefix  appender  // the prefix of the string shown to the StringHook
	payload []byte    // its payload
	shown   String
}

// CapBytes is the capture cap a Reader with these options uses: Cap, or
// DefaultCap for 0.
func (o Options) CapBytes() int {
	if o.Cap > 0 {
		return o.Cap
	}
	return DefaultCap
}

// NewReader reads the magic of an RDB stream and returns a Reader for its
// records. An input in a VKCS envelope (envelope.Open: the one place rdbz
// tells one apart) is read as the RDB inside it (Header.Envelope).
func NewReader(src io.Reader, opt Options) (*Reader, error) {
	opt.Cap = opt.CapBytes()
	src, env, err := envelope.Open(src)
	if err != nil {
		return nil, err
	}
	r := &Reader{in: newInput(src, !opt.NoChecksum), opt: opt, next: keyState{expire: -1, freq: -1}, hdr: Header{Envelope: env}}
	if err := r.readMagic(); err != nil {
		return nil, err
	}
	return r, nil
}

// Header returns the magic that was read.
func (r *Reader) Header() Header { return r.hdr }

// Offset is the input offset of the next unread byte.
func (r *Reader) Offset() int64 { return r.in.offset() }

// Checksum is the CRC-64 of the input read so far, as the trailer sums it
// (the trailer and what follows it left out): of every byte before
// Offset, or, after the EOF record, what the trailer should hold. It is 0
// with Options.NoChecksum.
func (r *Reader) Checksum() uint64 {
	return r.in.consumedSum()
}

// Dragonfly reports whether Dragonfly's marks were seen so far: an AUX
// field df-ver, Dragonfly-only opcodes or types. Those before the file's
// first key decide what its type bytes mean (Type); later ones change
// nothing but this report.
func (r *Reader) Dragonfly() bool { return r.marks.dfly }

// SetSink sends every byte consumed from now on, up to (not including) the
// EOF opcode, to w; nil discards them. Bytes already consumed go to the
// previous sink first. Setting it right after NewReader and calling Next
// until io.EOF copies the file's body exactly.
func (r *Reader) SetSink(w io.Writer) error {
	r.sink = w
	return r.wrap("write", r.in.setOut(w))
}

// divert sends the bytes that fn consumes to w (nil discards them) instead
// of the sink, then goes back to the sink. An error of fn is reported as
// reading what; the output then stays with w, so that what PassBody passes
// on after a value rdbio cannot walk goes where the value's bytes went.
func (r *Reader) divert(w io.Writer, what string, fn func() error) error {
	if err := r.in.setOut(w); err != nil {
		return r.fail("write", err)
	}
	if err := fn(); err != nil {
		return r.fail(what, err)
	}
	return r.wrap("write", r.in.setOut(r.sink))
}

func (r *Reader) readMagic() error {
	p, err := r.in.take(9)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return r.fail("magic", err) // the source's, e.g. a damaged envelope
	}
	if err != nil {
		return r.fail("magic", fmt.Errorf("%w: not an RDB file (shorter than 9 bytes)", ErrCorrupt))
	}
	m := string(p)
	var digits string
	switch {
	case m[:5] == "REDIS":
		digits = m[5:]
	case m[:6] == "VALKEY":
		digits, r.hdr.Valkey = m[6:], true
	default:
		return r.fail("magic", fmt.Errorf("%w: not an RDB file (magic %q)", ErrCorrupt, m))
	}
	v, err := strconv.Atoi(digits)
	if err != nil || v < 1 || notDigits(digits) {
		return r.fail("magic", fmt.Errorf("%w: bad version digits in magic %q", ErrCorrupt, m))
	}
	r.hdr.Magic, r.hdr.Version = m, v
	return nil
}

// notDigits reports whether s holds anything but ASCII digits.
func notDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return true
		}
	}
	return false
}

// Next returns the next record. A key's value that was not read through
// its handle (Value) is skipped (and sent to the sink); so is what is
// left of a list whose nodes were walked part way (Finish). After the EOF
// record Next returns io.EOF; a checksum mismatch is an error unless
// Options.IgnoreChecksum.
func (r *Reader) Next() (*Record, error) {
	if r.err != nil {
		return nil, r.err
	}
	if r.done {
		return nil, io.EOF
	}
	if err := r.Finish(); err != nil {
		return nil, err
	}
	return r.nextRecord()
}

// Finish ends the record Next returned last: what is left of a key's
// value is skipped, as Next skips it, and every byte read so far goes on
// to the sink. After it, Offset is where the next record starts and the
// sink has every byte before it: the bytes it receives from there until
// Next returns are the next record's.
func (r *Reader) Finish() error {
	if r.err != nil {
		return r.err
	}
	if r.done {
		return nil
	}
	if _, err := r.finishValue(false); err != nil {
		return err
	}
	return r.wrap("write", r.in.flush())
}

// nextRecord reads the record at the input's offset.
func (r *Reader) nextRecord() (*Record, error) {
	r.gen++
	r.rec = Record{Offset: r.in.offset(), DB: r.next.db, Expire: -1, Freq: -1}
	op, err := r.in.byte()
	if err != nil {
		return nil, r.fail("record type", err)
	}
	r.rec.Op = op
	if err := r.readRecord(op); err != nil {
		return nil, err
	}
	return &r.rec, nil
}

func (r *Reader) readRecord(op byte) error {
	switch {
	case isKeyOp(op):
		return r.readKey(op)
	case op == 255:
		return r.readEOF()
	}
	k, err := r.readOpcode(op)
	r.rec.Kind = k
	if err != nil {
		return r.fail(OpName(op), err)
	}
	return nil
}

// isKeyOp reports whether op starts a key record: a value type (or a byte
// that is no opcode, which reading the key refuses).
func isKeyOp(op byte) bool { return op < 200 && op != 107 && op != 121 }

func (r *Reader) readKey(op byte) error {
	if !r.marks.fixed {
		r.marks.prod, r.marks.fixed = producer{hdr: r.hdr, dfly: r.marks.dfly}, true
	}
	typ, ok := r.marks.prod.typeOf(op)
	if !ok {
		return r.fail("record type", fmt.Errorf("%w: unknown value type or opcode %d", ErrUnsupported, op))
	}
	if typ.Dragonfly() {
		r.marks.dfly = true
	}
	key, err := r.readString(r.key[:0])
	if err != nil {
		return r.fail("key", err)
	}
	r.key = key
	r.rec.Kind, r.rec.Type, r.rec.Key = KindKey, typ, key
	r.rec.Expire, r.rec.Idle, r.rec.Freq = r.next.expire, r.next.idle, r.next.freq
	r.next.expire, r.next.idle, r.next.freq = -1, 0, -1
	r.val.state = valuePending
	return nil
}

func (r *Reader) readEOF() error {
	r.rec.Kind = KindEOF
	// The sink gets everything before the 255 opcode (the writer writes its
	// own trailer); the CRC covers every byte through it.
	r.in.pos--
	err := r.in.setOut(nil)
	r.in.pos++
	if err == nil {
		err = r.in.flush()
	}
	if err != nil {
		return r.wrap("write", err)
	}
	want := r.Checksum()
	r.done = true
	if !r.hdr.HasChecksum() {
		r.rec.Checksum = ChecksumAbsent
		return nil
	}
	p, err := r.in.take(8)
	if err != nil {
		return r.fail("checksum", err)
	}
	r.in.passed() // the trailer is neither summed nor passed on
	got := binary.LittleEndian.Uint64(p)
	r.rec.Stored = got
	switch {
	case r.opt.NoChecksum: // the caller checks Stored against what it wrote
	case got == 0:
		r.rec.Checksum = ChecksumDisabled
	case got == want:
		r.rec.Checksum = ChecksumOK
	default:
		r.rec.Checksum = ChecksumMismatch
		if !r.opt.IgnoreChecksum {
			r.rec.Offset = r.in.offset() - 8
			return r.fail("checksum", fmt.Errorf("%w: file says %016x, content gives %016x", ErrChecksum, got, want))
		}
	}
	return nil
}

// PassBody is the way on when the grammar stops at a type or opcode rdbio
// does not know (ErrUnsupported): it sends every byte not yet passed on, up
// to the EOF trailer, to the sink unchanged, so that a copy stays exact. As
// the records can no longer be walked, it checks what it can: the input
// must end with the EOF opcode and, when the version has one, a checksum
// that matches everything before it (or 0). It returns the EOF record; the
// caller writes its own trailer (and nothing may follow the trailer).
func (r *Reader) PassBody() (*Record, error) {
	if r.err != nil && !errors.Is(r.err, ErrUnsupported) {
		return nil, r.err
	}
	t := tailCheck{in: r.in, out: r.in.out}
	for {
		r.in.pos = r.in.end
		if err := t.add(r.in.buf[r.in.mark:r.in.pos]); err != nil {
			return nil, fmt.Errorf("rdb: writing output: %w", err)
		}
		r.in.passed()
		if err := r.in.fill(1); err != nil {
			if !errors.Is(err, io.ErrUnexpectedEOF) {
				return nil, err
			}
			break
		}
	}
	r.done = true
	eof := &Record{Kind: KindEOF, Op: OpEOF, Offset: r.in.offset()}
	stored, status, err := t.check(r.hdr)
	eof.Stored, eof.Checksum = stored, status
	if err != nil && !(r.opt.IgnoreChecksum && errors.Is(err, ErrChecksum)) {
		return nil, r.failAt(r.in.offset(), "trailer after an unknown record", err)
	}
	return eof, nil
}

// tailCheck checksums and passes on a stream while holding back its last
// 9 bytes, so that the trailer can be checked (and left out) at the end.
type tailCheck struct {
	in   *input // checksums what passes
	out  io.Writer
	tail []byte
}

func (t *tailCheck) add(p []byte) error {
	t.tail = append(t.tail, p...)
	if k := len(t.tail) - 9; k > 0 {
		return t.pass(k)
	}
	return nil
}

// pass sends the first k held bytes on.
func (t *tailCheck) pass(k int) error {
	t.in.checksum(t.tail[:k])
	if t.out != nil {
		if _, err := t.out.Write(t.tail[:k]); err != nil {
			return err
		}
	}
	t.tail = append(t.tail[:0], t.tail[k:]...)
	return nil
}

func (t *tailCheck) check(h Header) (uint64, ChecksumStatus, error) {
	size := 1
	if h.HasChecksum() {
		size = 9
	}
	if len(t.tail) < size || t.tail[len(t.tail)-size] != OpEOF {
		return 0, "", fmt.Errorf("%w: input does not end with the EOF trailer", ErrCorrupt)
	}
	if err := t.pass(len(t.tail) - size); err != nil {
		return 0, "", err
	}
	if size == 1 {
		return 0, ChecksumAbsent, nil
	}
	t.in.checksum(t.tail[:1])
	stored := binary.LittleEndian.Uint64(t.tail[1:])
	got := t.in.crcSum()
	switch {
	case stored == 0:
		return 0, ChecksumDisabled, nil
	case stored == got:
		return stored, ChecksumOK, nil
	default:
		return stored, ChecksumMismatch, fmt.Errorf("%w: file says %016x, content gives %016x", ErrChecksum, stored, got)
	}
}

// CopyRest copies the bytes after the trailer (e.g. the AOF part of an
// RDB-preamble file) to w.
func (r *Reader) CopyRest(w io.Writer) (int64, error) {
	if !r.done {
		return 0, errors.New("rdb: CopyRest before the EOF record")
	}
	var n int64
	for {
		if err := r.in.fill(1); err != nil {
			if errors.Is(err, io.ErrUnexpectedEOF) {
				return n, nil
			}
			return n, err
		}
		k, err := w.Write(r.in.buf[r.in.pos:r.in.end])
		n += int64(k)
		r.in.pos = r.in.end
		r.in.passed()
		if err != nil {
			return n, err
		}
	}
}

// failAt reports err at a given offset.
func (r *Reader) failAt(off int64, what string, err error) error {
	r.err = nil
	err = r.fail(what, err)
	if e, ok := err.(*Error); ok { // not an envelope's error, which names its own
		e.Offset = off
	}
	return err
}

// fail wraps err as an *Error at the current offset, and makes it sticky.
func (r *Reader) fail(what string, err error) error {
	if err == nil {
		return nil
	}
	if r.err != nil {
		return r.err
	}
	var e *Error
	if errors.As(err, &e) {
		r.err = err
		return err
	}
	var ee *envelope.Error
	if errors.As(err, &ee) {
		// The envelope names the file offset and how far the inner RDB
		// was decoded; the Reader's offset is only where its read-ahead
		// buffer stood.
		r.err = ee
		return ee
	}
	var se *sinkError
	if errors.As(err, &se) {
		r.err = fmt.Errorf("rdb: writing output: %w", se.err)
		return r.err
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		err = fmt.Errorf("%w: unexpected end of input", ErrCorrupt)
	}
	fe := &Error{Offset: r.in.offset(), Version: r.hdr.Version, Inner: r.hdr.Envelope.Enveloped(), What: what, Err: err}
	if r.rec.Kind == KindKey || r.val.state != noValue {
		fe.Key = bytes.Clone(r.rec.Key)
	}
	r.err = fe
	return fe
}

// wrap is fail for a nil-able error.
func (r *Reader) wrap(what string, err error) error {
	if err == nil {
		return nil
	}
	return r.fail(what, err)
}
