package analyze

// raxCount counts the nodes of a Redis radix tree (rax.c) holding 16-byte
// stream IDs inserted in increasing order, as a stream's listpacks and
// PELs are loaded: it replays raxInsert's splits on the rightmost path
// only, since keys that come in order never descend anywhere else. So it
// holds at most 16 steps whatever the number of keys.
type raxCount struct {
	nodes, elems int64
	alloc        int64 // allocations of the nodes off the path
	path         []raxStep
	last         [16]byte
}

// raxStep is one node of the rightmost path: a compressed node (its
// characters), or a node with children (its last child's character).
type raxStep struct {
	compr bool
	n     int // characters (compressed) or children
	chars [16]byte
}

func newRaxCount() raxCount { return raxCount{nodes: 1} } // raxNew: the head node

// streamTreeMemory is streamRadixTreeMemoryUsage: 16 bytes an element and
// sizeof(raxNode) + 30 longs a node.
func (c *raxCount) streamTreeMemory() int64 { return 16*c.elems + (4+8*30)*c.nodes }

// allocated is what the tree really allocates: the rax struct and every
// node (header, characters, padding, child pointers, and the value
// pointer of the leaves that hold the keys).
func (c *raxCount) allocated() int64 {
	n := allocSize(24) + c.alloc
	if len(c.path) == 0 {
		return n + raxNodeAlloc(0, 0, false) // the empty head
	}
	for _, st := range c.path {
		n += st.alloc()
	}
	return n
}

// raxNodeAlloc is a node of chars characters and kids children.
func raxNodeAlloc(chars, kids int, key bool) int64 {
	n := int64(4 + chars)
	n += (8 - n%8) % 8
	n += 8 * int64(kids)
	if key {
		n += 8
	}
	return allocSize(n)
}

func (st raxStep) alloc() int64 {
	if st.compr {
		return raxNodeAlloc(st.n, 1, false)
	}
	return raxNodeAlloc(st.n, st.n, false)
}

// cut drops the path from idx on: those nodes are final.
func (c *raxCount) cut(idx int) {
	for _, st := range c.path[idx:] {
		c.alloc += st.alloc()
	}
	c.path = c.path[:idx]
}

func (c *raxCount) insert(k [16]byte) {
	if c.elems > 0 && string(k[:]) <= string(c.last[:]) {
		// Not in order (a damaged or hand-made file): count a node a key,
		// about what raxInsert adds for keys that share a long prefix.
		if k != c.last {
			c.elems++
			c.nodes++
			c.alloc += raxNodeAlloc(0, 0, true) + raxNodeAlloc(1, 1, false)
		}
		return
	}
	c.last = k
	c.elems++
	c.alloc += raxNodeAlloc(0, 0, true) // the leaf that holds the key
	if len(c.path) == 0 {               // the empty head becomes compressed, plus a leaf
		c.nodes++
		c.path = append(c.path, compressed(k[:]))
		return
	}
	i := 0
	for idx := range c.path {
		st := &c.path[idx]
		if !st.compr {
			if st.chars[0] == k[i] {
				i++
				continue
			}
			st.chars[0] = k[i]
			st.n++
			c.cut(idx + 1)
			c.grow(k, i+1)
			return
		}
		j := 0
		for j < st.n && st.chars[j] == k[i+j] {
			j++
		}
		if j == st.n {
			i += j
			continue
		}
		c.split(idx, j, k, i)
		return
	}
}

// split replays raxInsert's ALGO 1: the compressed node at path[idx] is
// split at its character j, where key k (from byte i) goes its own way.
func (c *raxCount) split(idx, j int, k [16]byte, i int) {
	st := c.path[idx]
	c.cut(idx + 1)
	c.path = c.path[:idx]
	if j > 0 { // the trimmed node stays beside the split node
		c.nodes++
		c.path = append(c.path, compressed(st.chars[:j]))
	}
	if post := st.n - j - 1; post > 0 { // the postfix node
		c.nodes++
		c.alloc += raxNodeAlloc(post, 1, false)
	}
	c.path = append(c.path, raxStep{n: 2, chars: [16]byte{k[i+j]}})
	c.grow(k, i+j+1)
}

// grow adds the new child of the last path node and what raxInsert hangs
// below it for the key's bytes from i on: a compressed node and a leaf,
// or one more child.
func (c *raxCount) grow(k [16]byte, i int) {
	c.nodes++
	switch rest := len(k) - i; {
	case rest > 1:
		c.nodes++
		c.path = append(c.path, compressed(k[i:]))
	case rest == 1:
		c.nodes++
		c.path = append(c.path, raxStep{n: 1, chars: [16]byte{k[i]}})
	}
}

func compressed(b []byte) raxStep {
	st := raxStep{compr: true, n: len(b)}
	copy(st.chars[:], b)
	return st
}
