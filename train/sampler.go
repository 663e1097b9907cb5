package train

import (
	"container/heap"
	"math"
	"math/rand/v2"
	"slices"
)

// Sampler is a bounded-memory reservoir of samples of type T, each with a
// size in bytes (what keeping it costs, its metadata included).
//
// Every sample offered with Add gets a pseudo-random priority drawn from a
// generator seeded with the sampler's seed. The sampler keeps the samples with
// the smallest priorities whose total size fits in its byte budget: when an
// addition overflows the budget, the kept sample with the largest priority is
// dropped (possibly the new one), and from then on any sample whose priority
// is not below the dropped one is refused without being copied. The kept set
// is therefore a uniform random subset of the samples seen (among those that
// fit the budget on their own), the same for the same sequence of samples and
// the same seed, and the memory held never exceeds the budget plus a small
// per-sample overhead.
//
// A Sampler is not safe for concurrent use.
type Sampler[T any] struct {
	maxBytes  int64
	rng       *rand.Rand
	kept      sampleHeap[T]
	keptBytes int64
	threshold uint64 // priorities >= threshold are refused
	seq       int64
	seenN     int64
	seenBytes int64
}

type sampleItem[T any] struct {
	prio uint64
	seq  int64
	size int64
	v    T
}

// sampleHeap is a max-heap on priority.
type sampleHeap[T any] []sampleItem[T]

func (h sampleHeap[T]) Len() int           { return len(h) }
func (h sampleHeap[T]) Less(i, j int) bool { return h[i].prio > h[j].prio }
func (h sampleHeap[T]) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *sampleHeap[T]) Push(x any)        { *h = append(*h, x.(sampleItem[T])) }
func (h *sampleHeap[T]) Pop() any {
	old := *h
	it := old[len(old)-1]
	old[len(old)-1] = sampleItem[T]{}
	*h = old[:len(old)-1]
	return it
}

// NewSampler returns a Sampler that keeps at most maxBytes bytes of samples,
// chosen deterministically from seed.
func NewSampler[T any](maxBytes int64, seed int64) *Sampler[T] {
	if maxBytes < 0 {
		maxBytes = 0
	}
	s1, s2 := splitmix64(uint64(seed)), splitmix64(uint64(seed)^0x5851f42d4c957f2d)
	return &Sampler[T]{
		maxBytes:  maxBytes,
		rng:       rand.New(rand.NewPCG(s1, s2)),
		threshold: math.MaxUint64,
	}
}

// Add offers a sample of the given size to the reservoir. keep is called,
// only if the sample is kept, for the value to hold: a copy of whatever the
// caller will reuse. Samples of size 0 and samples larger than the whole
// budget are counted as seen but never kept.
func (s *Sampler[T]) Add(size int64, keep func() T) {
	s.seenN++
	s.seenBytes += size
	prio := s.rng.Uint64()
	seq := s.seq
	s.seq++
	if size <= 0 || size > s.maxBytes || prio >= s.threshold {
		return
	}
	heap.Push(&s.kept, sampleItem[T]{prio: prio, seq: seq, size: size, v: keep()})
	s.keptBytes += size
	for s.keptBytes > s.maxBytes {
		it := heap.Pop(&s.kept).(sampleItem[T])
		s.keptBytes -= it.size
		s.threshold = it.prio
	}
}

// Samples returns the kept samples in the order they were added. They
// belong to the Sampler and must not be modified.
func (s *Sampler[T]) Samples() []T {
	items := slices.Clone([]sampleItem[T](s.kept))
	slices.SortFunc(items, func(a, b sampleItem[T]) int {
		switch {
		case a.seq < b.seq:
			return -1
		case a.seq > b.seq:
			return 1
		}
		return 0
	})
	out := make([]T, len(items))
	for i, it := range items {
		out[i] = it.v
	}
	return out
}

// Seen reports how many samples and bytes have been offered to Add.
func (s *Sampler[T]) Seen() (n int64, bytes int64) { return s.seenN, s.seenBytes }

// Kept reports how many samples and bytes the reservoir holds now.
func (s *Sampler[T]) Kept() (n int, bytes int64) { return len(s.kept), s.keptBytes }

// HeldOut splits samples deterministically into a training part holding about
// frac of them and an evaluation part holding the rest. Which samples go where
// depends only on len(samples), frac and seed; each part keeps the input order.
// With frac >= 1 every sample is used for training; with 0 < frac < 1 and at
// least two samples, both parts are non-empty.
func HeldOut[T any](samples []T, frac float64, seed int64) (trainSet, evalSet []T) {
	n := len(samples)
	if n == 0 {
		return nil, nil
	}
	if !(frac < 1) { // also catches NaN
		return slices.Clone(samples), nil
	}
	if frac <= 0 {
		return nil, slices.Clone(samples)
	}
	nTrain := int(math.Round(float64(n) * frac))
	if n >= 2 {
		nTrain = min(max(nTrain, 1), n-1)
	}
	rng := rand.New(rand.NewPCG(splitmix64(uint64(seed)), splitmix64(uint64(seed)+0x9e3779b97f4a7c15)))
	perm := rng.Perm(n)
	inTrain := make([]bool, n)
	for _, i := range perm[:nTrain] {
		inTrain[i] = true
	}
	trainSet = make([]T, 0, nTrain)
	evalSet = make([]T, 0, n-nTrain)
	for i, smp := range samples {
		if inTrain[i] {
			trainSet = append(trainSet, smp)
		} else {
			evalSet = append(evalSet, smp)
		}
	}
	return trainSet, evalSet
}

// splitmix64 is a 64-bit mixing function (Steele, Lea, Flood).
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}
