package analyze

import "github.com/rdbz/rdbz/rdbio"

// MemoryStats says how the in-memory estimate was made.
type MemoryStats struct {
	// Bytes is the estimated memory of all keys: the sum of what Redis
	// 7.0's MEMORY USAGE key SAMPLES 0 would report for each (key sds,
	// dict entry, value as Redis holds it after loading).
	Bytes int64 `json:"bytes"`
	// Dataset estimates INFO memory's used_memory_dataset once the file is
	// loaded: what the keys allocate (jemalloc's size classes of every
	// struct) less what INFO books as overhead (a dictEntry and a robj a
	// key), plus the rounding of the expires dict's entries.
	Dataset int64 `json:"dataset_bytes"`
	// Modeled keys were costed by the model of Redis 7.0's encodings;
	// Stored keys (types the model does not cover: modules, Dragonfly's
	// types, hashes with field expiry, streams of Redis 7.4+) count their
	// value as one allocation of its serialized size.
	Modeled int64 `json:"modeled_keys"`
	Stored  int64 `json:"stored_keys"`
}

// keyMemory is what MEMORY USAGE adds to a value for its key: the key's
// sds and its entry in the db's dict.
func keyMemory(key []byte) int64 {
	return sizeDictEntry + sdsAllocNonEmpty(int64(len(key)))
}

// datasetShare is a key's share of used_memory_dataset, from what it
// allocates (alloc, key included).
func datasetShare(alloc int64, expires bool) int64 {
	n := alloc - sizeDictEntry - sizeRobj
	if expires {
		n += slack(sizeDictEntry)
	}
	return n
}

// stringMemory is a string value's robj and bytes: an integer in the robj
// itself, an embedded string up to 44 bytes, else the robj and an sds.
func stringMemory(length int64, integer bool) (int64, string) {
	switch {
	case integer:
		return sizeRobj, encInt
	case length <= embstrMax:
		return allocSize(sizeRobj + 3 + length + 1), encEmbstr
	}
	return sizeRobj + sdsAlloc(length), encRaw
}

// storedMemory is the stand-in for a value the model does not cover: its
// robj and one allocation of its serialized size.
func storedMemory(serialized int64) int64 {
	return sizeRobj + allocSize(serialized)
}

// valueMemory is the memory of a value that is not a list, from what
// Value.Visit reported (m) and counted (vc), and its encoding; ok is false
// when the model does not cover its type.
func valueMemory(typ rdbio.Type, m *valueMem, vc rdbio.ValueInfo) (mu, alloc int64, enc string, ok bool) {
	if typ == rdbio.TypeString {
		mu, enc = stringMemory(vc.Elements, vc.Integer)
		alloc = mu
		if vc.Integer && vc.Elements <= sharedIntegerDigits {
			alloc = 0 // a shared integer (0..9999; a negative one is rare)
		}
		return mu, alloc, enc, vc.Known
	}
	mu, alloc, ok = m.bytes()
	return mu, alloc, m.enc, ok
}

// sharedIntegerDigits: Redis shares the objects of 0..9999.
const sharedIntegerDigits = 4

// memory is a key's estimate (key and value) once its value is read, n
// serialized bytes; it counts the key in MemoryStats and hands its row to
// the per-key export, if any.
func (a *analyzer) memory(rec *rdbio.Record, sl *typeSlot, n int64, kf keyFacts) (int64, error) {
	ms := &a.res.Memory
	mem, alloc, enc := kf.mem, kf.alloc, kf.enc
	if kf.modeled {
		ms.Modeled++
	} else {
		ms.Stored++
		mem, enc = storedMemory(n-int64(len(rec.Key))-1), sl.name
		alloc = mem
	}
	mem += keyMemory(rec.Key)
	share := datasetShare(alloc+keyMemory(rec.Key)+slack(sizeDictEntry), rec.Expire != -1)
	ms.Bytes += mem
	ms.Dataset += share
	if a.keyRow == nil {
		return mem, nil
	}
	a.row = KeyRow{DB: rec.DB, Key: rec.Key, Type: sl.family, Encoding: enc, Bytes: n, Memory: mem,
		Dataset: share, Elements: kf.count.Elements, ElementsKnown: kf.count.Known, Expire: rec.Expire}
	return mem, a.keyRow(&a.row)
}

// KeyRow is one key as the per-key export (Options.Keys) sees it; Key is
// valid only while the row is handled.
type KeyRow struct {
	DB  uint64
	Key []byte
	// Type is the key's family (as TYPE says it); Encoding how Redis 7.0
	// holds the value (as OBJECT ENCODING says it), or the file's type
	// name when the model does not cover it.
	Type, Encoding string
	Bytes          int64 // serialized: type byte, key and value as stored
	Memory         int64 // estimated, as MEMORY USAGE key SAMPLES 0
	Dataset        int64 // its share of used_memory_dataset (MemoryStats.Dataset)
	Elements       int64
	ElementsKnown  bool
	Expire         int64 // absolute Unix ms; -1 none
}
