package verify

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
)

// nop is the digest of an entry that holds its digest already.
func nop() {}

func TestTwins(t *testing.T) {
	tw := newTwins()
	e := func(key string, typ byte, sum byte) *entry {
		x := &entry{id: keyID{key: key}, typ: typ, hasSum: true}
		x.sum[0] = sum
		return x
	}
	first := e("k", 1, 7)
	if tw.match(0, first, nil, nop) || first.post == 0 {
		t.Fatalf("the first side matched a key nobody posted, or did not post it (token %d)", first.post)
	}
	second := e("k", 1, 7)
	if !tw.match(1, second, nil, nop) || second.twinOf != first.post || second.post != 0 {
		t.Fatalf("the same type and digest did not match, or not by the post's token (%d, %d)", second.twinOf, first.post)
	}
	if tw.match(1, e("k", 1, 7), nil, nop) {
		t.Fatal("a post matched twice")
	}
	tw.match(0, e("d", 1, 7), nil, nop)
	if tw.match(1, e("d", 1, 8), nil, nop) {
		t.Fatal("another digest matched")
	}
	tw.match(0, e("t", 1, 7), nil, nop)
	if tw.match(1, e("t", 2, 7), nil, nop) {
		t.Fatal("another type matched")
	}
	if len(tw.posts[0])+len(tw.posts[1]) != 1 || tw.bytes != 1 { // "k" posted by side 1 above
		t.Fatalf("posts %v, %d key bytes", tw.posts, tw.bytes)
	}
	for i := range 2 * twinMaxPosts {
		tw.match(0, e(strconv.Itoa(i), 1, 0), nil, nop)
	}
	if len(tw.posts[0]) > twinMaxPosts || !tw.off {
		t.Fatalf("%d posts kept, bound %d; %d keys shunned, off %v", len(tw.posts[0]), twinMaxPosts, len(tw.shunned), tw.off)
	}
	if x := e("new", 1, 0); tw.match(0, x, nil, nop) || x.post != 0 {
		t.Fatal("a key was posted with matching off")
	}
}

// TestTwinsBytes: small values are posted as their bytes and matched by
// them; a post of bytes never matches a digest, and a digest is taken to
// match a post of one; the bytes count against the bound and are the
// post's own copy.
func TestTwinsBytes(t *testing.T) {
	tw := newTwins()
	e := func(key string) *entry { return &entry{id: keyID{key: key}, typ: 1} }
	val := []byte("value")
	a := e("k")
	if tw.match(0, a, val, nop) || a.post == 0 || a.hasSum {
		t.Fatal("the first side did not post its bytes")
	}
	val[0] = 'V' // the post holds a copy
	if want := len("k") + 1<<postMinShift; tw.bytes != want {
		t.Fatalf("%d bytes held, want %d (the key and the smallest buffer)", tw.bytes, want)
	}
	if b := e("k"); !tw.match(1, b, []byte("value"), nop) || b.twinOf != a.post {
		t.Fatal("the same bytes did not match by the post's token")
	}
	if tw.bytes != 0 || tw.freeBytes != 1<<postMinShift {
		t.Fatalf("%d bytes held after the post was taken, %d kept for reuse", tw.bytes, tw.freeBytes)
	}
	tw.match(0, e("x"), []byte("value"), nop)
	if tw.match(1, e("x"), []byte("valuE"), nop) {
		t.Fatal("other bytes matched")
	}
	tw.match(0, e("s"), []byte("value"), nop)
	s := e("s")
	s.hasSum = true
	if tw.match(1, s, nil, nop) {
		t.Fatal("a digest matched a post of bytes")
	}
	s.sum[0] = 9
	tw.match(0, s, nil, nop)
	digested := e("s")
	if !tw.match(1, digested, []byte{}, func() { digested.sum[0], digested.hasSum = 9, true }) {
		t.Fatal("bytes digested did not match a post of their digest")
	}
	big := bytes.Repeat([]byte{'v'}, postMax)
	posted, asDigest := 0, 0
	for i := range 2 * twinMaxBytes / postMax {
		x := e(strconv.Itoa(i))
		if tw.match(0, x, big, func() { x.hasSum = true }) || x.post == 0 {
			t.Fatalf("key %d: matched, or not posted", i)
		}
		posted++
		if x.hasSum {
			asDigest++
		}
	}
	if tw.bytes > twinMaxBytes || asDigest == 0 || asDigest == posted {
		t.Fatalf("%d bytes held, bound %d; %d posted, %d as their digest", tw.bytes, twinMaxBytes, posted, asDigest)
	}
	for i := range posted {
		x := e(strconv.Itoa(i))
		if !tw.match(1, x, big, func() { x.hasSum = true }) {
			t.Fatalf("key %d: posted, not matched", i)
		}
	}
	if tw.freeBytes > freeMax {
		t.Fatalf("%d bytes kept for reuse, bound %d", tw.freeBytes, freeMax)
	}
}

// TestTwinsInOrder: a key's occurrences match in order; once a side could
// not post one (its earlier occurrence's post not taken), the key matches
// no more, so that a later occurrence cannot match an earlier one of the
// other side (as occurrences 1 and 2 would here).
func TestTwinsInOrder(t *testing.T) {
	tw := newTwins()
	e := func() *entry { return &entry{id: keyID{key: "k"}, typ: 1} }
	v1, v2 := []byte("one"), []byte("two")
	a1, a2 := e(), e()
	tw.match(0, a1, v1, nop)
	if tw.match(0, a2, v2, nop) || a2.post != 0 {
		t.Fatal("a second occurrence posted while the first's post was out")
	}
	b1, b2 := e(), e()
	if tw.match(1, b1, v1, nop) || b1.post != 0 {
		t.Fatal("a shunned key matched or was posted")
	}
	if tw.match(1, b2, v2, nop) || tw.bytes != 0 {
		t.Fatalf("a shunned key matched, or posts hold %d bytes", tw.bytes)
	}
	tw = newTwins()
	x1, y1, y2, x2 := e(), e(), e(), e()
	tw.match(0, x1, v1, nop)
	if !tw.match(1, y1, v1, nop) || tw.match(1, y2, v2, nop) || !tw.match(0, x2, v2, nop) || x2.twinOf != y2.post {
		t.Fatal("occurrences in step did not match each other")
	}
}

// TestTwinsShunBound: keys shunned one by one are bounded in bytes too
// (a key is held while shunned); past the bound no key is matched.
func TestTwinsShunBound(t *testing.T) {
	tw := newTwins()
	big := strings.Repeat("k", 64<<10)
	for i := range 2 * shunMaxBytes / len(big) {
		k := keyID{key: big + strconv.Itoa(i)}
		tw.match(0, &entry{id: k, typ: 1}, []byte("v"), nop)
		tw.match(0, &entry{id: k, typ: 1}, []byte("v"), nop) // the same key again: shunned
	}
	if !tw.off || tw.shunBytes > shunMaxBytes {
		t.Fatalf("off %v, %d bytes of keys shunned (bound %d)", tw.off, tw.shunBytes, shunMaxBytes)
	}
}

func TestPostClass(t *testing.T) {
	for n := 0; n <= postMax; n++ {
		c := class(n)
		if size := 1 << (postMinShift + c); c >= postClasses || size < n || (c > 0 && size/2 >= n) {
			t.Fatalf("class(%d) = %d: buffers of %d bytes", n, c, size)
		}
	}
}
