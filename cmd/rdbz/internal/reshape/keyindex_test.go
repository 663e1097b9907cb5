package reshape

import (
	"fmt"
	"hash/maphash"
	"runtime"
	"strconv"
	"testing"
)

// TestKeyIndexPairs: the duplicates across runs spilled to disk come out
// as successive pairs in input order, a key held three times as two.
func TestKeyIndexPairs(t *testing.T) {
	x := newKeyIndex()
	defer x.close()
	const n = 2 * sortMem / 32 // two full buffers: runs on disk
	for in := range 3 {
		for i := range n {
			if in > 0 && i%1000 != in { // input 1 and 2 hold a few of input 0's keys
				continue
			}
			if err := x.add(0, 0, []byte("key:"+strconv.Itoa(i)), in, int64(100+i), false); err != nil {
				t.Fatal(err)
			}
		}
	}
	if x.s.Runs() == 0 {
		t.Fatal("nothing spilled")
	}
	want := 0
	for i := range n {
		if i%1000 == 1 || i%1000 == 2 {
			want++
		}
	}
	pairs := 0
	err := x.pairs(func(prev, cur keyRec) error {
		pi, po := splitID(prev.id)
		ci, co := splitID(cur.id)
		if po != co || pi >= ci {
			return fmt.Errorf("pair %d@%d, %d@%d", pi, po, ci, co)
		}
		pairs++
		return nil
	})
	if err != nil || pairs != want {
		t.Fatalf("%d pairs, %v", pairs, err)
	}
}

// BenchmarkKeyIndex measures the duplicate index against a Go map of the
// same hashes, on 1 and 10 million keys (docs/split-merge.md: run with
// -bench KeyIndex -benchtime 1x).
func BenchmarkKeyIndex(b *testing.B) {
	for _, n := range []int{1_000_000, 10_000_000} {
		b.Run(fmt.Sprintf("sort-%dM", n/1_000_000), func(b *testing.B) {
			for range b.N {
				x := newKeyIndex()
				for i := range n {
					x.add(0, 0, []byte("user:session:"+strconv.Itoa(i)), i&1, int64(i), false)
				}
				heap := heapInUse()
				pairs := 0
				x.pairs(func(_, _ keyRec) error { pairs++; return nil })
				b.ReportMetric(float64(heap)/(1<<20), "heapMiB")
				b.ReportMetric(float64(x.s.Spilled*32)/(1<<20), "diskMiB")
				x.close()
			}
		})
		b.Run(fmt.Sprintf("map-%dM", n/1_000_000), func(b *testing.B) {
			seeds := [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}
			for range b.N {
				m := map[[2]uint64]uint64{}
				dups := 0
				for i := range n {
					k := []byte("user:session:" + strconv.Itoa(i))
					h := [2]uint64{maphash.Bytes(seeds[0], k), maphash.Bytes(seeds[1], k)}
					if _, ok := m[h]; ok {
						dups++
					}
					m[h] = uint64(i)
				}
				b.ReportMetric(float64(heapInUse())/(1<<20), "heapMiB")
				runtime.KeepAlive(m)
			}
		})
	}
}

func heapInUse() uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}
