package rdbio

import (
	"strconv"
	"strings"
)

// Value types (docs/rdb-format.md §4). Where two producers use one number, the
// name is Redis's; Type tells them apart. The constants are untyped: each
// is both the type byte and the Type of Redis's meaning of it.
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

// Type is a value type as the file's producer means it. For every type
// that Redis defines it is the type byte (the constants above); the bytes
// that another producer gives another meaning have their own Types
// (TypeHash2, TypePathHash, TypeDflyJSONOld). A Reader resolves each key's
// type byte by the file's producer, which it decides once, at the first
// key: Valkey by the magic, Dragonfly by an AUX df-ver or a Dragonfly
// opcode before it, else Redis. The same byte keeps its Type throughout a
// file.
type Type uint8

// The Types of the bytes whose meaning depends on the producer (§8.2).
const (
	TypeHash2       Type = typeVariant | TypeHashMetaPreGA // 22 in VALKEY files: HASH_2
	TypePathHash    Type = typeVariant | TypeHashLpExPreGA // 23 in VALKEY files: PATH_HASH
	TypeDflyJSONOld Type = typeVariant | TypeSetListpack   // 20 in Dragonfly files with header ≤ 9: JSON
	typeVariant     Type = 0x40
)

var typeNames = [...]string{
	"string", "list", "set", "zset", "hash", "zset2", "module-pre-ga", "module", "",
	"hash-zipmap", "list-ziplist", "set-intset", "zset-ziplist", "hash-ziplist",
	"list-quicklist", "stream", "hash-listpack", "zset-listpack", "list-quicklist2",
	"stream2", "set-listpack", "stream3", "hash-metadata-pre-ga", "hash-listpack-ex-pre-ga",
	"hash-metadata", "hash-listpack-ex", "stream4", "stream5", "array",
}

var dflyNames = [...]string{"json", "hash-with-expiry", "set-with-expiry", "sbf", "sbf2", "cms", "topk", "cuckoo"}

// String names the type as rdbz reports it: "hash-listpack", "hash2", "json".
func (t Type) String() string {
	switch {
	case t == TypeHash2:
		return "hash2"
	case t == TypePathHash:
		return "path-hash"
	case t == TypeDflyJSONOld:
		return "json"
	case t >= dflyFirst && t <= dflyLast:
		return dflyNames[t-dflyFirst]
	case int(t) < len(typeNames) && typeNames[t] != "":
		return typeNames[t]
	}
	return "type" + strconv.Itoa(int(t))
}

// Family names the type as Redis's TYPE command does, whatever its
// encoding: string, list, set, zset, hash, stream or module; Dragonfly's
// own types keep their names (json, cms, ...), but for its Bloom filters
// (sbf, sbf2: bloom) and its hashes and sets with expiry (hash, set).
func (t Type) Family() string {
	name := t.String()
	switch {
	case strings.HasPrefix(name, "list"):
		return "list"
	case strings.HasPrefix(name, "zset"):
		return "zset"
	case strings.HasPrefix(name, "set"):
		return "set"
	case strings.HasPrefix(name, "hash"), name == "path-hash":
		return "hash"
	case strings.HasPrefix(name, "stream"):
		return "stream"
	case strings.HasPrefix(name, "module"):
		return "module"
	case name == "sbf" || name == "sbf2":
		return "bloom"
	}
	return name
}

// Byte is the type byte that stores a value of type t.
func (t Type) Byte() byte {
	if t&typeVariant != 0 {
		return byte(t &^ typeVariant)
	}
	return byte(t)
}

// Dragonfly reports whether only Dragonfly defines type t (30..37, and
// its old JSON).
func (t Type) Dragonfly() bool {
	return t == TypeDflyJSONOld || t >= dflyFirst && t <= dflyLast
}

// producer is what a file's type bytes mean: decided once per file, from
// its header and what precedes its first key.
type producer struct {
	hdr  Header
	dfly bool // Dragonfly's: an AUX df-ver or a Dragonfly opcode before the first key
}

// typeOf is the Type that b means for this producer; false for a byte that
// is no value type it defines (or one rdbio cannot tell: Redis 15's 30..33).
func (p producer) typeOf(b byte) (Type, bool) {
	h := p.hdr
	switch {
	case h.Valkey && b == TypeHashMetaPreGA:
		return TypeHash2, true
	case h.Valkey && b == TypeHashLpExPreGA:
		return TypePathHash, true
	case b == TypeSetListpack && p.dfly && h.Version < 10:
		return TypeDflyJSONOld, true
	case b <= TypeStream5 && b != 8:
		return Type(b), true
	case b >= dflyFirst && b <= dflyLast:
		// 30..37 are Dragonfly's unless the file is a Redis 15+ one.
		return Type(b), p.dfly || h.Valkey || h.Version < firstDflyVersionClash || b > redisUnverifiedLast
	}
	return Type(b), false
}

// IsList reports whether t is a list type whose value Value.Nodes walks.
func IsList(t Type) bool {
	return t == TypeListZiplist || t == TypeListQuicklist || t == TypeListQuicklist2
}
