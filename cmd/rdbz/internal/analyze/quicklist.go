package analyze

// quicklistPack replays how Redis 7.0 packs list elements pushed one by
// one (an old linked list or ziplist value) into quicklist nodes: a
// listpack grows while _quicklistNodeAllowInsert's estimate stays within
// list-max-listpack-size (-2: 8 KiB).
type quicklistPack struct {
	nodes int64 // finished nodes
	alloc int64 // their listpack allocations
	cur   int64 // bytes of the node being filled (0: none)
}

func (q *quicklistPack) reset() { *q = quicklistPack{} }

// push adds an element of n bytes whose listpack entry takes entry bytes.
func (q *quicklistPack) push(n, entry int64) {
	over := int64(2) // the estimate's per-element overhead
	switch {
	case n >= 254:
		over += 4
	}
	switch {
	case n >= 16384:
		over += 4
	case n >= 64:
		over++
	}
	if q.cur > 0 && q.cur+n+over <= listMaxListpackSize {
		q.cur += entry
		return
	}
	q.flush()
	q.cur = listpackHeader + entry
}

func (q *quicklistPack) flush() {
	if q.cur > 0 {
		q.nodes++
		q.alloc += allocSize(q.cur)
		q.cur = 0
	}
}

// quicklistBytes is objectComputeSize's quicklist term (robj apart).
func quicklistBytes(nodes, alloc int64) int64 {
	return sizeQuicklist + nodes*sizeQuicklistNode + alloc
}

// quicklistAlloc is quicklistBytes as the allocator sees it: the structs
// rounded to their size classes.
func quicklistAlloc(nodes, alloc int64) int64 {
	return allocSize(sizeQuicklist) + nodes*allocSize(sizeQuicklistNode) + alloc
}
