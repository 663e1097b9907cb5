package rdbio

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/rdbz/rdbz/rdbio/blob"
	"github.com/rdbz/rdbz/rdbio/lzf"
)

// Decode reads the value as Visit does, with every part whole: what an
// exporter needs to write the value out as commands or JSON. Strings come
// with their bytes (Data; integers as their digits, Int set): whole when
// within the cap, else in pieces of at most 64 KiB (Elem.Pos), so that no
// string is held beyond the cap. Blobs (the values stored as one, PACKED
// list nodes, stream listpacks) are decoded within the cap and their
// entries reported as ElemStrings; one over the cap is ErrTooLarge. Lists
// of every type are reported element by element (a PLAIN node's element
// as a string). Streams report each listpack decoded (ElemNode: its master
// ID and Data, read with StreamEntries), then ElemStreamMeta, then each
// group (Name, LastID, Read, Count), its PEL entries (ElemGroupID: ID,
// Time, Count) and consumers (ElemConsumer: Name, Time, Active; then their
// ElemConsumerIDs). The slices are valid during the call only.
//
// Decodable says which types Decode reads; for another type (modules,
// hashes with field expiry: ExpiringFields, Dragonfly's own) it is an
// error and the value is left unread.
func (v Value) Decode(fn func(*Elem) error) (ValueInfo, error) {
	r, err := v.take("Decode")
	if err != nil {
		return ValueInfo{}, err
	}
	t := r.rec.Type
	if !Decodable(t) {
		return ValueInfo{}, fmt.Errorf("rdb: Decode on a value of type %v: %w", t, ErrUnsupported)
	}
	r.val.state = noValue
	r.val.maxLen = 0
	var info ValueInfo
	err = r.divert(nil, "value", func() (err error) {
		if t == TypeString {
			vs := visitor{r: r, fn: fn, whole: true}
			return vs.str()
		}
		vs := visitor{r: r, fn: fn, check: true, whole: true}
		info, err = vs.value(t)
		return err
	})
	info.MaxStringLen = r.val.maxLen
	return info, err
}

// Decodable reports whether Value.Decode reads values of type t: strings,
// lists, sets, sorted sets, hashes without field expiry and streams, in
// every encoding.
func Decodable(t Type) bool {
	return t == TypeString || t == TypeListQuicklist || t == TypeListQuicklist2 || visitable(t)
}

// wholePiece is the largest piece of a string over the cap that Decode
// reports at once.
const wholePiece = 64 << 10

// wholeString reports the string whose prefix h was read: whole within the
// cap, else in pieces.
func (v *visitor) wholeString(h strHead) error {
	r := v.r
	v.e = Elem{Len: h.ulen}
	limit := uint64(r.opt.Cap)
	switch {
	case h.enc == EncInt:
		var err error
		if r.bufs.strBuf, err = r.in.intDigits(r.bufs.strBuf, h); err != nil {
			return err
		}
		v.e.Data, v.e.Len, v.e.Int = r.bufs.strBuf, uint64(len(r.bufs.strBuf)), true
		return v.emit(ElemString)
	case h.enc != EncRaw && h.enc != EncLZF:
		return fmt.Errorf("%w: string stored as %v", ErrCorrupt, h.enc)
	case h.size <= limit && h.ulen <= limit:
		b, err := r.wholeBlob(h, "string")
		if err != nil {
			return err
		}
		v.e.Data = b
		return v.emit(ElemString)
	}
	return v.pieces(h)
}

// pieces reports a string over the cap in pieces, decoding an LZF one as
// it is read.
func (v *visitor) pieces(h strHead) error {
	r := v.r
	var src io.Reader = &payloadReader{in: r.in, left: h.size}
	if h.enc == EncLZF {
		src = lzf.NewReader(src, int64(h.ulen))
	}
	if cap(r.bufs.strBuf) < wholePiece {
		r.bufs.strBuf = make([]byte, wholePiece)
	}
	buf := r.bufs.strBuf[:wholePiece]
	for pos := uint64(0); pos < h.ulen; {
		n, err := io.ReadFull(src, buf[:min(uint64(len(buf)), h.ulen-pos)])
		if err != nil {
			if errors.Is(err, lzf.ErrCorrupt) || errors.Is(err, io.EOF) {
				return fmt.Errorf("%w: string of %d bytes does not decode: %v", ErrCorrupt, h.ulen, err)
			}
			return err
		}
		v.e = Elem{Len: h.ulen, Pos: pos, Data: buf[:n]}
		if err := v.emit(ElemString); err != nil {
			return err
		}
		pos += uint64(n)
	}
	return nil
}

// wholeBlob reads the string whose prefix h was read, within the cap, into
// r.bufs.strBuf: raw or LZF-decoded. what names it in errors.
func (r *Reader) wholeBlob(h strHead, what string) ([]byte, error) {
	limit := uint64(r.opt.Cap)
	if h.size > limit || h.ulen > limit {
		return nil, fmt.Errorf("%w: %s of %d bytes (cap %d: raise --cap)", ErrTooLarge, what, h.ulen, limit)
	}
	var err error
	switch h.enc {
	case EncRaw:
		r.bufs.strBuf, err = r.in.appendN(r.bufs.strBuf[:0], h.size)
		return r.bufs.strBuf, err
	case EncLZF:
		if r.bufs.scratch, err = r.in.appendN(r.bufs.scratch[:0], h.size); err != nil {
			return nil, err
		}
		if r.bufs.strBuf, err = lzf.Decode(r.bufs.strBuf[:0], r.bufs.scratch, int(h.ulen)); err != nil {
			return nil, fmt.Errorf("%w: LZF %s does not decode to %d bytes", ErrCorrupt, what, h.ulen)
		}
		return r.bufs.strBuf, nil
	}
	return nil, fmt.Errorf("%w: %s stored as %v", ErrCorrupt, what, h.enc)
}

// wholeBlob reports the entries of the blob whose string prefix h was read,
// decoded whole within the cap; its element count is divided by per.
func (v *visitor) wholeBlob(kind blob.Kind, per int64, h strHead) (ValueInfo, error) {
	b, err := v.r.wholeBlob(h, kind.String())
	if err != nil {
		return ValueInfo{}, err
	}
	n, err := v.entries(kind, b)
	return ValueInfo{Elements: n / per, Known: true}, err
}

// entries reports each entry of the decoded blob b whole and counts them.
func (v *visitor) entries(kind blob.Kind, b []byte) (int64, error) {
	var digits [24]byte
	n := int64(0)
	err := blob.Entries(kind, b, func(en blob.Entry) error {
		n++
		v.e = Elem{Data: en.Str, Len: uint64(len(en.Str))}
		if en.IsInt {
			v.e.Data, v.e.Int = strconv.AppendInt(digits[:0], en.Int, 10), true
			v.e.Len = uint64(len(v.e.Data))
		}
		return v.emit(ElemString)
	})
	return n, err
}

// list reports the elements of a quicklist (type 14, or 18 with
// containers), node by node.
func (v *visitor) list(containers bool) (ValueInfo, error) {
	r := v.r
	kind := blob.Ziplist
	if containers {
		kind = blob.Listpack
	}
	nodes, err := r.readLen()
	if err != nil {
		return ValueInfo{}, err
	}
	total := int64(0)
	for ; nodes > 0; nodes-- {
		container := uint64(2)
		if containers {
			if container, err = r.readLen(); err != nil {
				return ValueInfo{}, err
			}
		}
		h, err := r.strHeader()
		if err != nil {
			return ValueInfo{}, err
		}
		switch container {
		case 1: // PLAIN: one element
			err = v.wholeString(h)
			total++
		case 2:
			var b []byte
			if b, err = r.wholeBlob(h, "list node"); err == nil {
				var n int64
				n, err = v.entries(kind, b)
				total += n
			}
		default:
			err = fmt.Errorf("%w: quicklist container %d (want 1 or 2)", ErrCorrupt, container)
		}
		if err != nil {
			return ValueInfo{}, err
		}
	}
	return ValueInfo{Elements: total, Known: true}, nil
}

// StreamID is a stream entry ID: milliseconds and sequence number.
type StreamID struct{ Ms, Seq uint64 }

// StreamIDOf reads an ID as the RDB stores it raw (a node's master ID, the
// IDs of PELs): 16 bytes, big-endian.
func StreamIDOf(b [16]byte) StreamID {
	return StreamID{binary.BigEndian.Uint64(b[:8]), binary.BigEndian.Uint64(b[8:])}
}

// String is the ID as Redis writes it: ms-seq.
func (id StreamID) String() string {
	return strconv.FormatUint(id.Ms, 10) + "-" + strconv.FormatUint(id.Seq, 10)
}

// IsZero reports whether the ID is 0-0.
func (id StreamID) IsZero() bool { return id.Ms == 0 && id.Seq == 0 }

// StreamMeta is what a stream stores besides its entries and groups
// (docs/rdb-format.md §4.1): Version 1 (type 15) holds only Length and
// LastID.
type StreamMeta struct {
	Version                       int
	Length                        uint64
	LastID, FirstID, MaxDeletedID StreamID
	EntriesAdded                  uint64
}

// Stream entry flags in a listpack (redis t_stream.c).
const (
	streamItemDeleted    = 1 << 0
	streamItemSameFields = 1 << 1
)

// StreamEntries calls fn with each entry, not deleted, of a stream
// listpack lp whose master ID is master: its ID and its fields and values
// in turn (the slices valid during the call). The listpack starts with
// the master entry (count, deleted, the master fields, 0), then each
// entry is flags, the ID as differences from the master's, the fields
// (their count and field-value pairs, or only values when it has the
// master's fields) and the count of listpack entries it took.
func StreamEntries(master StreamID, lp []byte, fn func(id StreamID, fields [][]byte) error) error {
	s := streamLP{}
	if err := blob.Entries(blob.Listpack, lp, s.add); err != nil {
		return err
	}
	return s.walk(master, fn)
}

// streamLP holds the entries of one stream listpack: each as a string
// (integers as their digits) and, for integers, its value.
type streamLP struct {
	items []lpItem
	arena []byte
	strs  [][]byte
}

type lpItem struct {
	off, end int // its string in arena
	n        int64
	isInt    bool
}

func (s *streamLP) add(e blob.Entry) error {
	it := lpItem{off: len(s.arena), n: e.Int, isInt: e.IsInt}
	if e.IsInt {
		s.arena = strconv.AppendInt(s.arena, e.Int, 10)
	} else {
		s.arena = append(s.arena, e.Str...)
	}
	it.end = len(s.arena)
	s.items = append(s.items, it)
	return nil
}

// str is item i's string.
func (s *streamLP) str(i int) []byte {
	it := s.items[i]
	return s.arena[it.off:it.end:it.end]
}

// num reads item i as an integer, at least least.
func (s *streamLP) num(i int, least int64) (int64, error) {
	if i >= len(s.items) {
		return 0, fmt.Errorf("%w: stream listpack ends after %d entries", ErrCorrupt, len(s.items))
	}
	if it := s.items[i]; !it.isInt || it.n < least {
		return 0, fmt.Errorf("%w: stream listpack entry %d is %q, not a count", ErrCorrupt, i, s.str(i))
	}
	return s.items[i].n, nil
}

// walk goes through the entries after the master entry.
func (s *streamLP) walk(master StreamID, fn func(StreamID, [][]byte) error) error {
	nf, err := s.num(2, 0)
	if err != nil {
		return err
	}
	if nf > int64(len(s.items)) {
		return fmt.Errorf("%w: stream listpack master entry of %d fields", ErrCorrupt, nf)
	}
	fields := make([][]byte, nf)
	for j := range fields {
		fields[j] = s.str(3 + j)
	}
	for i := 3 + int(nf) + 1; i < len(s.items); { // after the master entry's terminating 0
		var f [3]int64
		for j := range f {
			if f[j], err = s.num(i+j, -1<<63); err != nil {
				return err
			}
		}
		i += 3
		// Differences wrap as Redis's unsigned arithmetic does.
		id := StreamID{master.Ms + uint64(f[1]), master.Seq + uint64(f[2])}
		kv := s.strs[:0]
		if f[0]&streamItemSameFields != 0 {
			if i+len(fields) > len(s.items) {
				return fmt.Errorf("%w: stream entry %v cut short", ErrCorrupt, id)
			}
			for j, name := range fields {
				kv = append(kv, name, s.str(i+j))
			}
			i += len(fields)
		} else {
			n, err := s.num(i, 0)
			if err != nil {
				return err
			}
			if n > int64(len(s.items)-i-1)/2 {
				return fmt.Errorf("%w: stream entry %v of %d fields cut short", ErrCorrupt, id, n)
			}
			for j := i + 1; j < i+1+2*int(n); j++ {
				kv = append(kv, s.str(j))
			}
			i += 1 + 2*int(n)
		}
		s.strs = kv
		i++ // lp-count
		if f[0]&streamItemDeleted != 0 {
			continue
		}
		if err := fn(id, kv); err != nil {
			return err
		}
	}
	return nil
}
