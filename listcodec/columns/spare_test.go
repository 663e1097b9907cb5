package columns

import "testing"

func TestSparesKeepTheLargestWithinTheirBound(t *testing.T) {
	var p spares
	p.put(make([]byte, 10, spareMin-1)) // too small to keep
	if len(p.bufs) != 0 {
		t.Fatalf("kept a %d-byte buffer", spareMin-1)
	}
	for _, c := range []int{1 << 20, 2 << 20, 512 << 10, 1 << 20} {
		p.put(make([]byte, 7, c))
	}
	// 4.5 MiB offered, 4 MiB kept: the 512 KiB one went first.
	if p.held != 4<<20 || len(p.bufs) != 3 {
		t.Fatalf("held %d in %d buffers, want %d in 3", p.held, len(p.bufs), 4<<20)
	}
	p.put(make([]byte, 0, 256<<10)) // smaller than all kept, and no room
	if p.held != 4<<20 {
		t.Fatalf("held %d after a small buffer over the bound", p.held)
	}
	for _, b := range p.bufs {
		if len(b) != 0 {
			t.Fatalf("a spare kept %d bytes of its last use", len(b))
		}
	}
}

func TestSparesTakeTheBestFit(t *testing.T) {
	var p spares
	for _, c := range []int{2 << 20, 1 << 20, 768 << 10} {
		p.put(make([]byte, 0, c))
	}
	if b := p.take(900 << 10); cap(b) != 1<<20 {
		t.Fatalf("take(900 KiB) gave %d bytes of capacity, want the 1 MiB spare", cap(b))
	}
	if b := p.take(64 << 10); cap(b) != 64<<10 {
		t.Fatalf("take(64 KiB) gave a %d-byte buffer, want a new one (no spare within 4 times)", cap(b))
	}
	if b := p.take(3 << 20); cap(b) != 3<<20 || len(p.bufs) != 2 {
		t.Fatalf("take(3 MiB) gave %d bytes, %d spares left", cap(b), len(p.bufs))
	}
	if p.held != 2<<20+768<<10 {
		t.Fatalf("held %d", p.held)
	}
}

func TestSparesAgeOutWhenUnused(t *testing.T) {
	var p spares
	p.put(make([]byte, 0, 1<<20))
	p.put(make([]byte, 0, 1<<20))
	p.age() // nothing taken since the start: dropped
	if p.held != 0 || len(p.bufs) != 0 {
		t.Fatalf("held %d after an age with nothing taken", p.held)
	}
	p.put(make([]byte, 0, 1<<20))
	p.put(make([]byte, 0, 1<<20))
	p.take(1 << 20)
	p.age() // one was taken: the other stays for the next segment
	if p.held != 1<<20 {
		t.Fatalf("held %d after an age with a spare taken", p.held)
	}
	p.age()
	if p.held != 0 {
		t.Fatalf("held %d after a second age", p.held)
	}
}
