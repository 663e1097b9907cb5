package rdbio

import (
	"encoding/binary"
	"errors"
	"math"
	"strconv"

	"github.com/rdbz/rdbz/rdbio/blob"
	"github.com/rdbz/rdbz/rdbio/lzf"
)

// ElemKind says what an Elem reports.
type ElemKind uint8

// Element kinds, in the order Value.Visit meets them in a value.
const (
	ElemString     ElemKind = iota + 1 // a member, field, value or list item: Len, Data, Int
	ElemScore                          // the score of the sorted set member just reported: Score
	ElemBlob                           // a value stored as one blob (intset, ziplist, listpack, zipmap): Blob, Len, Data
	ElemNode                           // a stream listpack: ID (its master ID), Len (decoded bytes)
	ElemGroup                          // a stream consumer group: Len (of its name), Count (its PEL size)
	ElemGroupID                        // an ID of the group's PEL: ID
	ElemConsumer                       // a consumer of the group: Len (of its name)
	ElemConsumerID                     // an ID of the consumer's PEL: ID
	// ElemStreamMeta is a stream's length and IDs (Meta), after its
	// listpacks and before its groups: Value.Decode only.
	ElemStreamMeta
)

// ShortString is the longest string Value.Visit hands over with its bytes:
// longer ones come with their length only (no integer is that long).
const ShortString = 32

// Elem is one part of a value as Value.Visit reports it. Its slices are
// valid until the next call on the Reader.
type Elem struct {
	Kind ElemKind
	// Len is the decoded length of a string or blob.
	Len uint64
	// Data is a string's bytes when it is stored raw and at most
	// ShortString long, or its decimal digits when stored as an integer;
	// a blob's decoded bytes when it is within the cap. Otherwise nil.
	Data []byte
	Int  bool // the string is stored as an integer
	// Bad says that a blob is stored as LZF that does not decode (Data is
	// nil): the walk goes on past it, as Value.Count's does.
	Bad   bool
	Score float64
	Blob  blob.Kind
	ID    [16]byte
	Count uint64

	// The fields below are set by Value.Decode only.

	// Pos is where Data starts in the string: a string over the cap comes
	// in pieces, each an ElemString with the same Len and a rising Pos, the
	// last one ending at Len; any other string is one piece at Pos 0.
	Pos uint64
	// Name is a stream group's or consumer's name.
	Name []byte
	// Time is the delivery time of a group's PEL entry (Count its delivery
	// count) or a consumer's seen time, in Unix ms.
	Time int64
	// Active is a consumer's active time (Unix ms), -1 where the stream
	// type stores none.
	Active int64
	// LastID and Read are a group's last delivered ID and entries read
	// (-1 where unknown or not stored).
	LastID StreamID
	Read   int64
	Meta   StreamMeta
}

// visitValue reads the pending value for Value.Visit.
func (r *Reader) visitValue(fn func(*Elem) error) (ValueInfo, error) {
	if !visitable(r.rec.Type) {
		return r.walkPending(nil, true)
	}
	r.val.state = noValue
	r.val.maxLen = 0
	var info ValueInfo
	err := r.divert(nil, "value", func() (err error) {
		v := visitor{r: r, fn: fn, check: true}
		info, err = v.value(r.rec.Type)
		return err
	})
	info.MaxStringLen = r.val.maxLen
	return info, err
}

// visitable says whether Value.Visit reports the parts of type t.
func visitable(t Type) bool {
	switch t {
	case TypeList, TypeSet, TypeHash, TypeZset, TypeZset2,
		TypeStreamListpacks, TypeStream2, TypeStream3, TypeStream4, TypeStream5:
		return true
	case TypeHashZipmap, TypeListZiplist, TypeSetIntset, TypeZsetZiplist, TypeHashZiplist,
		TypeHashListpack, TypeZsetListpack, TypeSetListpack:
		return true
	}
	return false
}

// visitor walks one value for Value.Visit (and walks streams for
// Value.Count, without fn): check says to check stream listpacks as
// Value.Count does.
type visitor struct {
	r     *Reader
	fn    func(*Elem) error
	check bool
	whole bool // Value.Decode: every string and blob whole (decode.go)
	e     Elem
}

func (v *visitor) emit(k ElemKind) error {
	if v.fn == nil {
		return nil
	}
	v.e.Kind = k
	return v.fn(&v.e)
}

func (v *visitor) value(t Type) (ValueInfo, error) {
	r := v.r
	switch t {
	case TypeList, TypeSet:
		return r.collection(v.str)
	case TypeHash:
		return r.collection(func() error { return skipN(2, v.str) })
	case TypeZset:
		return r.collection(func() error { return v.member(false) })
	case TypeZset2:
		return r.collection(func() error { return v.member(true) })
	case TypeHashZipmap:
		return v.blob(blob.Zipmap, 1)
	case TypeListZiplist, TypeSetIntset:
		return v.blob(blobOf(t), 1)
	case TypeZsetZiplist, TypeHashZiplist:
		return v.blob(blob.Ziplist, 2)
	case TypeHashListpack, TypeZsetListpack:
		return v.blob(blob.Listpack, 2)
	case TypeSetListpack:
		return v.blob(blob.Listpack, 1)
	case TypeListQuicklist, TypeListQuicklist2:
		return v.list(t == TypeListQuicklist2)
	}
	return v.stream(streamVersion(t))
}

func blobOf(t Type) blob.Kind {
	if t == TypeSetIntset {
		return blob.Intset
	}
	return blob.Ziplist
}

// str reports one element string.
func (v *visitor) str() error {
	r := v.r
	h, err := r.valueStrHeader()
	if err != nil {
		return err
	}
	if v.whole {
		return v.wholeString(h)
	}
	v.e = Elem{Len: h.ulen}
	switch {
	case h.enc == EncInt:
		if v.e.Data, err = r.in.intDigits(r.bufs.scratch, h); err != nil {
			return err
		}
		v.e.Len, v.e.Int = uint64(len(v.e.Data)), true
	case h.enc == EncRaw && h.size <= ShortString:
		p, err := r.in.take(int(h.size))
		if err != nil {
			return err
		}
		v.e.Data = p
	default:
		if err := r.in.skip(h.size); err != nil {
			return err
		}
	}
	return v.emit(ElemString)
}

// member reports a sorted set member and its score (binary: a little-endian
// float64, else a length-prefixed string).
func (v *visitor) member(binary8 bool) error {
	if err := v.str(); err != nil {
		return err
	}
	score, err := v.score(binary8)
	if err != nil {
		return err
	}
	v.e = Elem{Score: score}
	return v.emit(ElemScore)
}

func (v *visitor) score(binary8 bool) (float64, error) {
	r := v.r
	if binary8 {
		p, err := r.in.take(8)
		if err != nil {
			return 0, err
		}
		return math.Float64frombits(binary.LittleEndian.Uint64(p)), nil
	}
	b, err := r.in.byte()
	if err != nil {
		return 0, err
	}
	switch b {
	case 253:
		return math.NaN(), nil
	case 254:
		return math.Inf(1), nil
	case 255:
		return math.Inf(-1), nil
	}
	p, err := r.in.take(int(b))
	if err != nil {
		return 0, err
	}
	f, _ := strconv.ParseFloat(string(p), 64)
	return f, nil
}

// blob reports a value stored as one blob, decoded when within the cap;
// its element count is divided by per (2 for pairs).
func (v *visitor) blob(kind blob.Kind, per int64) (ValueInfo, error) {
	r := v.r
	h, err := r.valueStrHeader()
	if err != nil {
		return ValueInfo{}, err
	}
	if v.whole {
		return v.wholeBlob(kind, per, h)
	}
	v.e = Elem{Blob: kind, Len: h.ulen}
	limit := uint64(r.opt.Cap)
	if h.size > limit || h.ulen > limit || (h.enc != EncRaw && h.enc != EncLZF) {
		n, ok, err := r.blobBody(kind, h)
		if err != nil {
			return ValueInfo{}, err
		}
		return ValueInfo{Elements: n / per, Known: ok}, v.emit(ElemBlob)
	}
	if h.enc == EncRaw {
		r.bufs.dec, err = r.in.appendN(r.bufs.dec[:0], h.size)
	} else if r.bufs.scratch, err = r.in.appendN(r.bufs.scratch[:0], h.size); err == nil {
		var derr error
		if r.bufs.dec, derr = lzf.Decode(r.bufs.dec, r.bufs.scratch, int(h.ulen)); derr != nil {
			v.e.Bad = true
			return ValueInfo{}, v.emit(ElemBlob)
		}
	}
	if err != nil {
		return ValueInfo{}, err
	}
	v.e.Data = r.bufs.dec
	n, ok := blob.Count(kind, r.bufs.dec, true)
	if err := v.emit(ElemBlob); err != nil {
		return ValueInfo{}, err
	}
	// A malformed blob is reported as far as it goes: its count says
	// unknown, as Value.Count says it.
	if err := BlobEntries(kind, r.bufs.dec, v.fn); err != nil && !errors.Is(err, ErrCorrupt) {
		return ValueInfo{}, err
	}
	return ValueInfo{Elements: n / per, Known: ok}, nil
}

// skipN64 calls fn n times.
func skipN64(n uint64, fn func() error) error {
	for i := uint64(0); i < n; i++ {
		if err := fn(); err != nil {
			return err
		}
	}
	return nil
}
