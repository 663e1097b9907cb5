package rdbio

import (
	"fmt"
	"strconv"
)

// Value types (rdb-format.md §4). Where two producers use one number, the
// name is Redis's; TypeName tells them apart.
const (
	TypeString          = 0
	TypeList            = 1
	TypeSet             = 2
	TypeZset            = 3
	TypeHash            = 4
	TypeZset2           = 5
	TypeModulePreGA     = 6
	TypeModule2         = 7
	TypeHashZipmap      = 9
	TypeListZiplist     = 10
	TypeSetIntset       = 11
	TypeZsetZiplist     = 12
	TypeHashZiplist     = 13
	TypeListQuicklist   = 14
	TypeStreamListpacks = 15
	TypeHashListpack    = 16
	TypeZsetListpack    = 17
	TypeListQuicklist2  = 18
	TypeStream2         = 19
	TypeSetListpack     = 20
	TypeStream3         = 21
	TypeHashMetaPreGA   = 22 // Valkey 9: HASH_2
	TypeHashLpExPreGA   = 23 // Valkey 9.2: PATH_HASH
	TypeHashMetadata    = 24
	TypeHashListpackEx  = 25
	TypeStream4         = 26
	TypeStream5         = 27
	TypeArray           = 28
)

// Dragonfly's own value types (§6).
const (
	TypeDflyJSON          = 30
	TypeDflyHashExpiry    = 31
	TypeDflySetExpiry     = 32
	TypeDflySBF           = 33
	TypeDflySBF2          = 34
	TypeDflyCMS           = 35
	TypeDflyTopK          = 36
	TypeDflyCuckoo        = 37
	dflyFirst, dflyLast   = 30, 37
	redisUnverifiedFirst  = 28
	redisUnverifiedLast   = 33
	firstDflyVersionClash = 15 // Redis 15 reuses 30..33
)

var typeNames = [...]string{
	"string", "list", "set", "zset", "hash", "zset2", "module-pre-ga", "module", "",
	"hash-zipmap", "list-ziplist", "set-intset", "zset-ziplist", "hash-ziplist",
	"list-quicklist", "stream", "hash-listpack", "zset-listpack", "list-quicklist2",
	"stream2", "set-listpack", "stream3", "hash-metadata-pre-ga", "hash-listpack-ex-pre-ga",
	"hash-metadata", "hash-listpack-ex", "stream4", "stream5", "array",
}

var dflyNames = [...]string{"json", "hash-with-expiry", "set-with-expiry", "sbf", "sbf2", "cms", "topk", "cuckoo"}

// TypeName names a value type as this file's producer means it.
func (r *Reader) TypeName(t byte) string {
	return typeName(t, r.hdr, r.dfly)
}

func typeName(t byte, h Header, dfly bool) string {
	switch {
	case h.Valkey && t == TypeHashMetaPreGA:
		return "hash2"
	case h.Valkey && t == TypeHashLpExPreGA:
		return "path-hash"
	case t == TypeSetListpack && dfly && h.Version < 10:
		return "json"
	case isDflyType(t, h, dfly):
		return dflyNames[t-dflyFirst]
	case int(t) < len(typeNames) && typeNames[t] != "":
		return typeNames[t]
	}
	return "type" + strconv.Itoa(int(t))
}

// isDflyType: 30..37 are Dragonfly's unless the file is a Redis 15+ one.
func isDflyType(t byte, h Header, dfly bool) bool {
	if t < dflyFirst || t > dflyLast {
		return false
	}
	return dfly || h.Valkey || h.Version < firstDflyVersionClash || t > redisUnverifiedLast
}

// IsList reports whether t is a list type whose value NextNode walks.
func IsList(t byte) bool {
	return t == TypeListZiplist || t == TypeListQuicklist || t == TypeListQuicklist2
}

func knownType(t byte, r *Reader) bool {
	switch {
	case t <= TypeStream5 && t != 8:
		return true
	case isDflyType(t, r.hdr, r.dfly):
		r.dfly = true
		return true
	}
	return false
}

// skipValue walks (and so passes to the sink) a whole value of type t.
func (r *Reader) skipValue(t byte) error {
	switch t {
	case TypeString, TypeHashZipmap, TypeListZiplist, TypeSetIntset, TypeZsetZiplist,
		TypeHashZiplist, TypeHashListpack, TypeZsetListpack, TypeSetListpack:
		return r.skipString()
	case TypeList, TypeSet:
		return r.skipStrings(1, 0)
	case TypeHash:
		return r.skipStrings(2, 0)
	case TypeZset:
		return r.skipZset()
	case TypeZset2:
		return r.skipStrings(1, 8)
	case TypeModulePreGA:
		return fmt.Errorf("%w: module value of the 4.0 pre-GA format cannot be walked", ErrUnsupported)
	case TypeModule2:
		if err := r.skipLens(1); err != nil {
			return err
		}
		return r.skipModuleBody()
	case TypeListQuicklist, TypeListQuicklist2:
		return r.skipQuicklist(t)
	case TypeStreamListpacks, TypeStream2, TypeStream3, TypeStream4, TypeStream5:
		return r.skipStream(t)
	}
	if isDflyType(t, r.hdr, r.dfly) {
		return r.skipDflyValue(t)
	}
	return r.skipHFE(t)
}

// each reads a count and calls fn that many times: the shape of most
// collections in the format.
func (r *Reader) each(fn func() error) error {
	n, err := r.readLen()
	if err != nil {
		return err
	}
	for i := uint64(0); i < n; i++ {
		if err := fn(); err != nil {
			return err
		}
	}
	return nil
}

// skipN calls fn n times.
func skipN(n int, fn func() error) error {
	for i := 0; i < n; i++ {
		if err := fn(); err != nil {
			return err
		}
	}
	return nil
}

// skipStrings walks `len n`, n × (per strings, then fixed raw bytes).
func (r *Reader) skipStrings(per int, fixed uint64) error {
	return r.each(func() error {
		if err := skipN(per, r.skipString); err != nil {
			return err
		}
		return r.in.skip(fixed)
	})
}

// skipZset walks type 3: members with string-encoded doubles.
func (r *Reader) skipZset() error {
	return r.each(func() error {
		if err := r.skipString(); err != nil {
			return err
		}
		b, err := r.in.byte()
		if err != nil || b >= 253 { // 253..255: NaN, +inf, -inf
			return err
		}
		return r.in.skip(uint64(b))
	})
}

func (r *Reader) skipQuicklist(t byte) error {
	return r.each(func() error {
		if t == TypeListQuicklist2 {
			if _, err := r.readLen(); err != nil {
				return err
			}
		}
		return r.skipString()
	})
}

// skipHFE walks the hash-field-expiry types 22..25 and Valkey's HASH_2.
func (r *Reader) skipHFE(t byte) error {
	switch {
	case t == TypeHashMetaPreGA && r.hdr.Valkey: // HASH_2: field, value, i64 expire
		return r.skipStrings(2, 8)
	case t == TypeHashMetaPreGA: // n × (len ttl, field, value)
		return r.skipLenStrings(1, 2)
	case t == TypeHashLpExPreGA && !r.hdr.Valkey:
		return r.skipString()
	case t == TypeHashMetadata:
		if err := r.in.skip(8); err != nil {
			return err
		}
		return r.skipLenStrings(1, 2)
	case t == TypeHashListpackEx:
		if err := r.in.skip(8); err != nil {
			return err
		}
		return r.skipString()
	}
	return fmt.Errorf("%w: value type %d (%s): layout not known", ErrUnsupported, t, r.TypeName(t))
}

// skipLenStrings walks `len n`, n × (lens lengths, then strs strings).
func (r *Reader) skipLenStrings(lens, strs int) error {
	return r.each(func() error {
		if err := r.skipLens(lens); err != nil {
			return err
		}
		return skipN(strs, r.skipString)
	})
}
