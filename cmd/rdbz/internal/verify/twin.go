package verify

import (
	"bytes"
	"crypto/sha256"
	"sync"
)

// twins lets the two sides skip decoding a value the other side stored
// with the same bytes: a type byte and stored bytes that are the same
// hold the same data, so when both inputs agree byte for byte (a file
// and its rdbz-compressed form, decompressed) only one of them needs to
// decode the key; decoding is most of verify's CPU. The first side to
// reach a key posts its value and decodes; the second finds the post,
// takes it and, if it matches, decodes nothing (entry.twin): the
// comparison then knows the two entries hold the same value by the
// post's token (entry.post, entry.twinOf).
//
// A value of postMax bytes or less is posted as a copy of its stored
// bytes, compared with the other side's as they are: neither side then
// digests them (SHA-256 over both inputs' stored bytes was 15% of
// verify's CPU on app-cache-nocompress x4). A larger one is posted as the
// SHA-256 of its bytes.
//
// Posts not taken (keys out of order between the inputs, or in one only)
// are bounded by twinMaxPosts and twinMaxBytes of keys and copied values;
// past them a side posts nothing, shuns the key (see match) and decodes as
// if it had posted.
type twins struct {
	mu    sync.Mutex
	posts [2]map[keyID]twinPost // by the side that posted: 0 A, 1 B
	bytes int                   // key bytes and value buffers held by posts
	last  uint64                // the last token given
	// free holds the buffers of posts taken, by size class (see class),
	// for the next posts: a buffer made for each post was 3,500 more
	// page faults (~50 ms) in a verify of lists-events x8.
	free      [postClasses][][]byte
	freeBytes int
	// shunned keys are matched no more (shun), shunBytes of them; off:
	// no key is.
	shunned   map[keyID]struct{}
	shunBytes int
	off       bool
}

type twinPost struct {
	typ    byte
	token  uint64
	stored []byte            // the value's stored bytes (postMax or less), or nil
	sum    [sha256.Size]byte // else their digest
}

const (
	twinMaxPosts = 1 << 16
	twinMaxBytes = 2 << 20
	// postMax is the largest value posted as its bytes.
	postMax = 16 << 10
	// Post buffers are made in postClasses sizes, from 1<<postMinShift
	// bytes up to postMax, and freeMax bytes of them kept for reuse.
	postMinShift = 9
	postClasses  = 6
	freeMax      = 1 << 20
	// shunMax and shunMaxBytes bound the keys shunned one by one.
	shunMax      = 1 << 12
	shunMaxBytes = 1 << 20
)

// class is the size class of a post of n bytes (postMax or less).
func class(n int) int {
	c := 0
	for n > 1<<(postMinShift+c) {
		c++
	}
	return c
}

func newTwins() *twins {
	return &twins{posts: [2]map[keyID]twinPost{{}, {}}, shunned: map[keyID]struct{}{}}
}

// match reports whether the other side posted e's key with e's type and
// stored bytes (the post is taken either way; e.twinOf is its token when
// it matches); when the other side did not post the key, e is posted for
// it (e.post is then its token). stored is the value's stored bytes when
// they are few enough to be posted as them (postMax or less), else nil;
// digest sets e.sum (e.hasSum), which the value is posted or compared as
// otherwise. A key's occurrences in the two inputs are matched in order,
// the first with the first: when a side cannot post one (its earlier
// occurrence's post not taken yet, or posts at their bounds), the key is
// matched no more (shun), as a later match could pair occurrences that
// are not each other's.
func (tw *twins) match(side int, e *entry, stored []byte, digest func()) bool {
	p, ok := tw.take(side, e, stored, digest)
	if !ok {
		return false
	}
	var same bool
	if p.stored != nil {
		same = p.typ == e.typ && stored != nil && bytes.Equal(p.stored, stored)
		tw.recycle(p.stored)
	} else if p.typ == e.typ {
		digest()
		same = p.sum == e.sum
	}
	if same {
		e.twinOf = p.token
	}
	return same
}

// take removes and returns the other side's post of e's key, or posts e
// when there is none (and it fits within the bounds).
func (tw *twins) take(side int, e *entry, stored []byte, digest func()) (twinPost, bool) {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	if _, no := tw.shunned[e.id]; no || tw.off {
		return twinPost{}, false
	}
	other := tw.posts[1-side]
	if p, ok := other[e.id]; ok {
		delete(other, e.id)
		tw.bytes -= len(e.id.key) + cap(p.stored)
		return p, true
	}
	mine := tw.posts[side]
	if _, dup := mine[e.id]; dup || len(mine) >= twinMaxPosts || tw.bytes+len(e.id.key) > twinMaxBytes {
		tw.shun(e.id)
		return twinPost{}, false
	}
	if stored != nil && tw.bytes+len(e.id.key)+1<<(postMinShift+class(len(stored))) > twinMaxBytes {
		stored = nil // no room for the bytes: posted as their digest
	}
	tw.last++
	p := twinPost{typ: e.typ, token: tw.last}
	if stored != nil {
		p.stored = append(tw.get(len(stored)), stored...)
	} else {
		digest()
		p.sum = e.sum
	}
	mine[e.id] = p
	tw.bytes += len(e.id.key) + cap(p.stored)
	e.post = p.token
	return twinPost{}, false
}

// shun stops matching the key id, its posts dropped; past shunMax keys or
// shunMaxBytes of them, every key (off).
func (tw *twins) shun(id keyID) {
	for i := range tw.posts {
		if p, ok := tw.posts[i][id]; ok {
			delete(tw.posts[i], id)
			tw.bytes -= len(id.key) + cap(p.stored)
			tw.put(p.stored)
		}
	}
	if len(tw.shunned) >= shunMax || tw.shunBytes+len(id.key) > shunMaxBytes {
		tw.off, tw.shunned = true, nil
		return
	}
	tw.shunned[id] = struct{}{}
	tw.shunBytes += len(id.key)
}

// get returns an empty buffer for a post of n bytes: a free one of its
// class, or a new one.
func (tw *twins) get(n int) []byte {
	c := class(n)
	if f := tw.free[c]; len(f) > 0 {
		b := f[len(f)-1]
		tw.free[c] = f[:len(f)-1]
		tw.freeBytes -= cap(b)
		return b[:0]
	}
	return make([]byte, 0, 1<<(postMinShift+c))
}

// put keeps the buffer of a post taken (none: nil) for the next, within
// freeMax.
func (tw *twins) put(b []byte) {
	if b != nil && tw.freeBytes+cap(b) <= freeMax {
		c := class(cap(b))
		tw.free[c] = append(tw.free[c], b)
		tw.freeBytes += cap(b)
	}
}

// recycle puts the buffer of a post taken and compared.
func (tw *twins) recycle(b []byte) {
	if b != nil {
		tw.mu.Lock()
		tw.put(b)
		tw.mu.Unlock()
	}
}
