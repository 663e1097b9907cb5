package ahead

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"testing"
	"testing/iotest"
	"time"
)

// slowReader hands out its bytes in pieces, pausing before each, so that
// a Reader over it is outrun by its reader (and goes direct).
type slowReader struct {
	r     io.Reader
	pause time.Duration
	piece int
}

func (s *slowReader) Read(p []byte) (int, error) {
	time.Sleep(s.pause)
	return s.r.Read(p[:min(len(p), s.piece)])
}

// TestBytesInOrder: whatever the chunk size, the number of chunks, the
// sizes asked for and whether reading ahead keeps up (a slow source sends
// the Reader direct), the bytes come out as the source holds them, then
// io.EOF.
func TestBytesInOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	data := make([]byte, 41<<18)
	for i := range data {
		data[i] = byte(rng.Uint32())
	}
	for _, size := range []int{1, 100, 4 << 10, 256 << 10} {
		for _, count := range []int{1, 2, 4} {
			for _, slow := range []bool{false, true} {
				// Some 40 chunks: past the judging, and quick.
				data := data[:min(len(data), 40*size+rng.IntN(size))]
				src := io.Reader(bytes.NewReader(data))
				if slow {
					src = &slowReader{r: src, pause: 50 * time.Microsecond, piece: 64 << 10}
				}
				r := New(src, size, count)
				var got []byte
				buf := make([]byte, 300<<10)
				for {
					n, err := r.Read(buf[:1+rng.IntN(len(buf))])
					got = append(got, buf[:n]...)
					if err == io.EOF {
						break
					}
					if err != nil {
						t.Fatal(err)
					}
				}
				r.Close()
				if !bytes.Equal(got, data) {
					t.Fatalf("size %d count %d slow %v: %d bytes differ from the source's %d", size, count, slow, len(got), len(data))
				}

			}
		}
	}
}

// TestGoesDirect: a reader that finds no chunk waiting, one after the
// other, has the Reader stop reading ahead, and still gets every byte.
func TestGoesDirect(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789abcdef"), 40<<10) // 40 chunks
	r := New(&slowReader{r: bytes.NewReader(data), pause: 2 * time.Millisecond, piece: 16 << 10}, 16<<10, 4)
	defer r.Close()
	got, err := io.ReadAll(r)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("%d bytes of %d, %v", len(got), len(data), err)
	}
	if !r.direct {
		t.Errorf("reading ahead went on: the reader waited for %d of the first %d chunks", r.waited, r.taken)
	}
}

// TestReaderContract: iotest's checks of an io.Reader.
func TestReaderContract(t *testing.T) {
	data := bytes.Repeat([]byte("rdbz ahead "), 50000)
	r := New(bytes.NewReader(data), 4096, 3)
	defer r.Close()
	if err := iotest.TestReader(r, data); err != nil {
		t.Fatal(err)
	}
}

// TestErrorAfterBytes: a source that fails gives every byte before the
// failure, then the failure, and the same failure again.
func TestErrorAfterBytes(t *testing.T) {
	boom := errors.New("boom")
	data := bytes.Repeat([]byte{7}, 1<<20)
	src := io.MultiReader(bytes.NewReader(data), iotest.ErrReader(boom))
	r := New(src, 64<<10, 4)
	defer r.Close()
	got, err := io.ReadAll(r)
	if !errors.Is(err, boom) || !bytes.Equal(got, data) {
		t.Fatalf("got %d bytes and %v, want %d and %v", len(got), err, len(data), boom)
	}
	if n, err := r.Read(make([]byte, 10)); n != 0 || !errors.Is(err, boom) {
		t.Fatalf("after the failure: %d, %v", n, err)
	}
}

// TestCloseUnread: Close ends the goroutine though nothing was read and
// every chunk is full, and may be called twice.
func TestCloseUnread(t *testing.T) {
	r := New(bytes.NewReader(make([]byte, 1<<20)), 4096, 2)
	time.Sleep(time.Millisecond)
	r.Close()
	select {
	case <-r.done:
	default:
		t.Fatal("the goroutine runs on after Close")
	}
	r.Close()
}
