package rdbio

import (
	"fmt"
	"strconv"
)

// blobKind says how a blob value counts its entries.
type blobKind uint8

const (
	blobZiplist blobKind = iota
	blobListpack
	blobIntset
	blobZipmap
)

func (k blobKind) count(b []byte, whole bool) (int64, bool) {
	switch k {
	case blobZiplist:
		return ziplistCount(b, whole)
	case blobListpack:
		return listpackCount(b, whole)
	case blobIntset:
		return intsetCount(b)
	}
	return zipmapCount(b, whole)
}

// walkScratch holds buffers the walk reuses from key to key.
type walkScratch struct {
	comp, dec []byte
}

// valueCount is what walking a value tells: its element count (for
// strings the value length, as STRLEN) and, for module values, the
// module's name.
type valueCount struct {
	n       int64
	known   bool
	integer bool // a string stored as an integer
	module  string
}

// walkValue reads the whole value of the key record just returned (a type
// for which IsList is false) and counts its elements from the structure:
// the `len n` prefix of a collection, the header of a ziplist, listpack,
// intset or zipmap blob, the length field of a stream. Types whose count
// is not cheap to tell (modules, Dragonfly sketches and JSON) are skipped
// with known false. The value goes to the current sink; the caller marks
// the value as read.
func (r *Reader) walkValue(t byte, name string, ws *walkScratch) (valueCount, error) {
	switch t {
	case TypeString:
		n, integer, err := r.stringLen()
		return valueCount{n: n, known: err == nil, integer: integer}, err
	case TypeList, TypeSet:
		return r.countStrings(1, 0)
	case TypeHash:
		return r.countStrings(2, 0)
	case TypeZset2:
		return r.countStrings(1, 8)
	case TypeZset:
		n, err := r.readLen()
		if err != nil {
			return valueCount{}, err
		}
		if err := r.skipZsetItems(n); err != nil {
			return valueCount{}, err
		}
		return valueCount{n: int64(n), known: true}, nil
	case TypeModule2:
		id, err := r.readLen()
		if err != nil {
			return valueCount{}, err
		}
		return valueCount{module: ModuleName(id)}, r.skipModuleBody()
	case TypeHashZipmap:
		return r.blobCount(blobZipmap, 1, ws)
	case TypeSetIntset:
		return r.blobCount(blobIntset, 1, ws)
	case TypeZsetZiplist, TypeHashZiplist:
		return r.blobCount(blobZiplist, 2, ws)
	case TypeHashListpack, TypeZsetListpack:
		return r.blobCount(blobListpack, 2, ws)
	case TypeSetListpack:
		if name == "json" { // Dragonfly's old JSON type
			return valueCount{}, r.skipString()
		}
		return r.blobCount(blobListpack, 1, ws)
	case TypeStreamListpacks, TypeStream2, TypeStream3, TypeStream4, TypeStream5:
		return r.countStream(t)
	case TypeHashMetaPreGA:
		if r.hdr.Valkey { // HASH_2: field, value, i64 expire
			return r.countStrings(2, 8)
		}
		return r.countLenStrings()
	case TypeHashLpExPreGA:
		if !r.hdr.Valkey {
			return r.blobCount(blobListpack, 3, ws)
		}
	case TypeHashMetadata:
		if err := r.in.skip(8); err != nil {
			return valueCount{}, err
		}
		return r.countLenStrings()
	case TypeHashListpackEx:
		if err := r.in.skip(8); err != nil {
			return valueCount{}, err
		}
		return r.blobCount(blobListpack, 3, ws)
	}
	switch name {
	case "hash-with-expiry": // Dragonfly: field, value, expiry
		r.dfly = true
		return r.countStrings(3, 0)
	case "set-with-expiry": // Dragonfly: member, expiry
		r.dfly = true
		return r.countStrings(2, 0)
	}
	return valueCount{}, r.skipValue(t)
}

// stringLen skips a string and returns its decoded length and whether it
// is an integer (stored as one, or as digits strconv.ParseInt reads, as
// hdt3213/rdb's profiler tests it).
func (r *Reader) stringLen() (int64, bool, error) {
	h, err := r.strHeader()
	if err != nil {
		return 0, false, err
	}
	switch h.enc {
	case EncInt:
		p, err := r.in.take(int(h.size))
		if err != nil {
			return 0, false, err
		}
		var d [24]byte
		return int64(len(strconv.AppendInt(d[:0], intValue(p), 10))), true, nil
	case EncRaw:
		if h.size <= 20 { // short enough to be an integer (which Redis shares)
			p, err := r.in.take(int(h.size))
			if err != nil {
				return 0, false, err
			}
			_, perr := strconv.ParseInt(string(p), 10, 64)
			return int64(h.size), perr == nil, nil
		}
		return int64(h.size), false, r.in.skip(h.size)
	}
	return int64(h.ulen), false, r.in.skip(h.size)
}

// countStrings walks `len n`, n × (per strings, then fixed raw bytes).
func (r *Reader) countStrings(per int, fixed uint64) (valueCount, error) {
	n, err := r.readLen()
	if err != nil {
		return valueCount{}, err
	}
	for i := uint64(0); i < n; i++ {
		for j := 0; j < per; j++ {
			if err := r.skipString(); err != nil {
				return valueCount{}, err
			}
		}
		if fixed > 0 {
			if err := r.in.skip(fixed); err != nil {
				return valueCount{}, err
			}
		}
	}
	return valueCount{n: int64(n), known: true}, nil
}

// countLenStrings walks `len n`, n × (len ttl, str field, str value).
func (r *Reader) countLenStrings() (valueCount, error) {
	n, err := r.readLen()
	if err != nil {
		return valueCount{}, err
	}
	for i := uint64(0); i < n; i++ {
		if err := r.skipLens(1); err != nil {
			return valueCount{}, err
		}
		for j := 0; j < 2; j++ {
			if err := r.skipString(); err != nil {
				return valueCount{}, err
			}
		}
	}
	return valueCount{n: int64(n), known: true}, nil
}

// skipZsetItems walks n type-3 members with string-encoded scores.
func (r *Reader) skipZsetItems(n uint64) error {
	for i := uint64(0); i < n; i++ {
		if err := r.skipString(); err != nil {
			return err
		}
		b, err := r.in.byte()
		if err != nil {
			return err
		}
		if b < 253 {
			if err := r.in.skip(uint64(b)); err != nil {
				return err
			}
		}
	}
	return nil
}

// countStream walks a stream value (as skipStream does) and returns its
// length field: the number of entries, as XLEN.
func (r *Reader) countStream(t byte) (valueCount, error) {
	v := streamVersion(t)
	n, err := r.readLen()
	if err != nil {
		return valueCount{}, err
	}
	for i := uint64(0); i < n; i++ { // master id, listpack
		if err := r.skipString(); err != nil {
			return valueCount{}, err
		}
		if err := r.skipString(); err != nil {
			return valueCount{}, err
		}
	}
	length, err := r.readLen()
	if err != nil {
		return valueCount{}, err
	}
	meta := 2 // last id
	if v >= 2 {
		meta += 5 // first id, max deleted id, entries added
	}
	if err := r.skipLens(meta); err != nil {
		return valueCount{}, err
	}
	groups, err := r.readLen()
	if err != nil {
		return valueCount{}, err
	}
	for i := uint64(0); i < groups; i++ {
		if err := r.skipGroup(v); err != nil {
			return valueCount{}, err
		}
	}
	if v >= 4 {
		if err := r.skipIdmp(); err != nil {
			return valueCount{}, err
		}
	}
	return valueCount{n: int64(length), known: true}, nil
}

// blobCount reads one string holding a blob of the given kind and counts
// its entries (divided by per: 2 for field/value pairs, 3 for triples). It
// reads the header only, unless the header says "count unknown" and the
// blob is within the capture cap.
func (r *Reader) blobCount(kind blobKind, per int64, ws *walkScratch) (valueCount, error) {
	h, err := r.strHeader()
	if err != nil {
		return valueCount{}, err
	}
	var n int64
	var ok bool
	switch h.enc {
	case EncRaw:
		k := min(h.size, blobHead)
		p, err := r.in.take(int(k))
		if err != nil {
			return valueCount{}, err
		}
		ws.dec = append(ws.dec[:0], p...)
		if n, ok = kind.count(ws.dec, k == h.size); !ok && k < h.size && h.size <= uint64(r.opt.Cap) {
			if ws.dec, err = r.in.appendN(ws.dec, h.size-k); err != nil {
				return valueCount{}, err
			}
			n, ok = kind.count(ws.dec, true)
		} else if err := r.in.skip(h.size - k); err != nil {
			return valueCount{}, err
		}
	case EncLZF:
		if h.size > uint64(r.opt.Cap) || h.ulen > uint64(r.opt.Cap) {
			return valueCount{}, r.in.skip(h.size)
		}
		if ws.comp, err = r.in.appendN(ws.comp[:0], h.size); err != nil {
			return valueCount{}, err
		}
		ulen := int(h.ulen)
		var good bool
		ws.dec, good = lzfPrefix(ws.dec, ws.comp, blobHead, ulen)
		if !good {
			return valueCount{}, fmt.Errorf("%w: LZF blob does not decode", ErrCorrupt)
		}
		if n, ok = kind.count(ws.dec, len(ws.dec) == ulen); !ok && len(ws.dec) < ulen {
			ws.dec, good = lzfPrefix(ws.dec, ws.comp, ulen, ulen)
			if good {
				n, ok = kind.count(ws.dec, len(ws.dec) == ulen)
			}
		}
	default:
		return valueCount{}, r.in.skip(h.size)
	}
	return valueCount{n: n / per, known: ok}, nil
}

// ModuleName decodes the 9-character module type name from a module id
// (9 × 6 bits of the alphabet A–Z a–z 0–9 - _, then 10 bits of encoding
// version), as Redis's moduleTypeNameByID does.
func ModuleName(id uint64) string {
	const set = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	var name [9]byte
	id >>= 10
	for j := 8; j >= 0; j-- {
		name[j] = set[id&63]
		id >>= 6
	}
	return string(name[:])
}
