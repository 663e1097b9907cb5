package verify

import (
	"crypto/sha256"
	"sync"
)

// twins lets the two sides skip decoding a value the other side stored
// with the same bytes: a type byte and stored bytes that are the same
// hold the same data, so when both inputs agree byte for byte (a file
// and its rdbz-compressed form, decompressed) only one of them needs to
// decode the key; decoding is most of verify's CPU. The first side to
// reach a key posts its digest and decodes; the second finds the post,
// takes it and, if it matches, decodes nothing (entry.twin): the
// comparison then sees equal digests and needs no decoded content.
//
// Posts not taken (keys out of order between the inputs, or in one only)
// are bounded by twinMaxPosts and twinMaxBytes of keys; past them a side
// decodes as if it had posted.
type twins struct {
	mu    sync.Mutex
	posts [2]map[keyID]twinPost // by the side that posted: 0 A, 1 B
	bytes int                   // key bytes held by posts
}

type twinPost struct {
	typ byte
	sum [sha256.Size]byte
}

const (
	twinMaxPosts = 1 << 16
	twinMaxBytes = 4 << 20
)

func newTwins() *twins {
	return &twins{posts: [2]map[keyID]twinPost{{}, {}}}
}

// match reports whether the other side posted e's key with e's type and
// stored bytes (the post is taken either way); when it did not post the
// key, e is posted for the other side.
func (tw *twins) match(side int, e *entry) bool {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	other := tw.posts[1-side]
	if p, ok := other[e.id]; ok {
		delete(other, e.id)
		tw.bytes -= len(e.id.key)
		return p.typ == e.typ && p.sum == e.sum
	}
	mine := tw.posts[side]
	if _, dup := mine[e.id]; !dup && len(mine) < twinMaxPosts && tw.bytes+len(e.id.key) <= twinMaxBytes {
		mine[e.id] = twinPost{typ: e.typ, sum: e.sum}
		tw.bytes += len(e.id.key)
	}
	return false
}
