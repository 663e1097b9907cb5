package rdbio

import "strconv"

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
