package rdbiotest

import (
	"bytes"
	"fmt"
	"math/rand/v2"
)

// Generators of test data with the shapes list nodes have.

// JSONish returns about n bytes of listpack-like JSON events: a small
// vocabulary of keys and values with some random digits, as list nodes hold.
func JSONish(r *rand.Rand, n int) []byte {
	users := []string{"alice", "bob", "carol", "dave", "erin", "frank"}
	kinds := []string{"click", "view", "purchase", "login", "logout", "search"}
	paths := []string{"/", "/cart", "/item/", "/search?q=", "/account/settings"}
	var b bytes.Buffer
	for b.Len() < n {
		fmt.Fprintf(&b, "\x8f{\"ts\":%d,\"user\":%q,\"event\":%q,\"path\":\"%s%d\",\"ms\":%d,\"ok\":%t}\xff",
			1700000000000+r.IntN(1e9), users[r.IntN(len(users))], kinds[r.IntN(len(kinds))],
			paths[r.IntN(len(paths))], r.IntN(5000), r.IntN(900), r.IntN(10) > 0)
	}
	return b.Bytes()[:n]
}

// RandomBytes returns n random bytes.
func RandomBytes(r *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// LowEntropy draws from a tiny alphabet, so short matches are everywhere.
func LowEntropy(r *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = "ab"[r.IntN(2)]
	}
	return b
}

// Patchy is mostly random with copies of earlier pieces, near or far, so
// streams land close to the budget and references reach the 8 KiB limit.
func Patchy(r *rand.Rand, n int) []byte {
	b := RandomBytes(r, n)
	for i := 0; i < n/40; i++ {
		l := 3 + r.IntN(300)
		from, to := r.IntN(n), r.IntN(n)
		if from+l <= n && to+l <= n {
			copy(b[to:to+l], b[from:from+l])
		}
	}
	return b
}
