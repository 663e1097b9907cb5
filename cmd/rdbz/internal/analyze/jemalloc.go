package analyze

import "math/bits"

// Allocation sizes as Redis 7.0 on 64-bit Linux sees them: jemalloc 5's
// size classes (what zmalloc_size reports) and the sds string headers.

// allocSize is the jemalloc size class of an n-byte allocation: 8, then
// multiples of 16 up to 128, then four classes per power of two.
func allocSize(n int64) int64 {
	switch {
	case n <= 8:
		return 8
	case n <= 128:
		return (n + 15) &^ 15
	}
	step := int64(1) << (bits.Len64(uint64(n-1)) - 3)
	return (n + step - 1) &^ (step - 1)
}

// sdsHeader is the header size of an sds string of length n (the type
// sdsReqType picks: sdshdr5 below 32 bytes, then 8, 16, 32 and 64 bits).
func sdsHeader(n int64) int64 {
	switch {
	case n < 1<<5:
		return 1
	case n < 1<<8:
		return 3
	case n < 1<<16:
		return 5
	case n < 1<<32:
		return 9
	}
	return 17
}

// sdsAlloc is the allocation of an sds string of length n made by
// sdsnewlen (header, bytes, terminator), as sdsZmallocSize reports it.
func sdsAlloc(n int64) int64 { return allocSize(sdsHeader(n) + n + 1) }

// sdsAllocNonEmpty is sdsAlloc for strings made by sdsnewlen with
// SDS_TYPE_5 replaced by 8 for empty strings.
func sdsAllocNonEmpty(n int64) int64 {
	if n == 0 {
		return allocSize(3 + 1)
	}
	return sdsAlloc(n)
}

// Sizes of Redis 7.0's structures on 64 bits.
const (
	sizeRobj          = 16 // robj (redisObject)
	sizeDictEntry     = 24 // dictEntry: key, value, next
	sizeDict          = 56 // dict: type, two tables, used, rehash state
	sizeQuicklist     = 40 // quicklist
	sizeQuicklistNode = 40 // quicklistNode
	sizeZset          = 16 // zset: dict pointer, skiplist pointer
	sizeZskiplist     = 32 // zskiplist: header, tail, length, level
	sizeStream        = 80 // stream
	sizeStreamCG      = 40 // streamCG
	sizeStreamNACK    = 24 // streamNACK
	sizeConsumer      = 24 // streamConsumer
	sizeIntsetHeader  = 8  // intset: encoding, length
	embstrMax         = 44 // OBJ_ENCODING_EMBSTR_SIZE_LIMIT
	dictMinSlots      = 4  // DICT_HT_INITIAL_SIZE
)

// dictSlots is the bucket count of a dict that holds n entries after
// loading (dictExpand to the next power of two, at least 4).
func dictSlots(n int64) int64 {
	if n <= dictMinSlots {
		return dictMinSlots
	}
	return int64(1) << bits.Len64(uint64(n-1))
}

// dictMemory is what objectComputeSize counts for a dict of n entries
// whose keys and values take elems bytes: the dict, its buckets, one
// dictEntry per entry, and the elements.
func dictMemory(n, elems int64) int64 {
	return sizeDict + 8*dictSlots(n) + n*sizeDictEntry + elems
}

// slack is what the allocator adds to a struct of n bytes.
func slack(n int64) int64 { return allocSize(n) - n }

// dictSlack is what objectComputeSize leaves out of a dict of n entries:
// the allocator's rounding of the dict and of each dictEntry.
func dictSlack(n int64) int64 { return slack(sizeDict) + n*slack(sizeDictEntry) }
