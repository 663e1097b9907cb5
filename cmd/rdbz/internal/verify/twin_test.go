package verify

import (
	"strconv"
	"testing"
)

func TestTwins(t *testing.T) {
	tw := newTwins()
	e := func(key string, typ byte, sum byte) *entry {
		x := &entry{id: keyID{key: key}, typ: typ}
		x.sum[0] = sum
		return x
	}
	if tw.match(0, e("k", 1, 7)) {
		t.Fatal("the first side matched a key nobody posted")
	}
	if !tw.match(1, e("k", 1, 7)) {
		t.Fatal("the same type and bytes did not match")
	}
	if tw.match(1, e("k", 1, 7)) {
		t.Fatal("a post matched twice")
	}
	tw.match(0, e("d", 1, 7))
	if tw.match(1, e("d", 1, 8)) {
		t.Fatal("other bytes matched")
	}
	tw.match(0, e("t", 1, 7))
	if tw.match(1, e("t", 2, 7)) {
		t.Fatal("another type matched")
	}
	if len(tw.posts[0])+len(tw.posts[1]) != 1 || tw.bytes != 1 { // "k" posted by side 1 above
		t.Fatalf("posts %v, %d key bytes", tw.posts, tw.bytes)
	}
	for i := range 2 * twinMaxPosts {
		tw.match(0, e(strconv.Itoa(i), 1, 0))
	}
	if len(tw.posts[0]) > twinMaxPosts {
		t.Fatalf("%d posts kept, bound %d", len(tw.posts[0]), twinMaxPosts)
	}
}
