package block

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// partedFile is a file whose index has several sections: many small keyed
// records per 64 KiB block, and an index share large enough for filters.
func partedFile(tb testing.TB) ([]byte, []byte, []record) {
	tb.Helper()
	t, recs := randomStream(21, 20000, 40)
	file, st := writeRecords(tb, t, recs, nil, Options{BlockSize: 64 << 10, IndexShare: 0.2})
	f := openFile(tb, file)
	checkIndexShare(tb, f, st, 0.2)
	f.Close()
	return file, t, recs
}

func TestPartBits(t *testing.T) {
	for _, c := range []struct {
		keys, filtered int64
		want           uint
	}{
		{0, 0, 0}, {10, 1, 0}, {127, 1, 0}, {128, 1, 1}, {2100 * 835, 835, 5}, {1 << 40, 1, maxPartBits},
	} {
		if got := partBits(c.keys, c.filtered); got != c.want {
			t.Errorf("partBits(%d, %d) = %d, want %d", c.keys, c.filtered, got, c.want)
		}
	}
	// Every value of 0..m-1 has one section, and partStart bounds it.
	for _, m := range []uint64{1, 5, 64, 1000, 1 << 30} {
		for b := uint(0); b <= 4; b++ {
			rng := rand.New(rand.NewPCG(m, uint64(b)))
			for range 200 {
				v := rng.Uint64N(m)
				r := partOf(v, m, b)
				if r >= 1<<b || v < partStart(r, m, b) || v >= partStart(r+1, m, b) {
					t.Fatalf("m %d b %d: value %d in section %d of [%d, %d)", m, b, v, r, partStart(r, m, b), partStart(r+1, m, b))
				}
			}
			if partStart(1<<b, m, b) != m || partStart(0, m, b) != 0 {
				t.Fatalf("m %d b %d: sections do not cover 0..m", m, b)
			}
		}
	}
}

// TestPartedIndex: with several sections, every key is found in its block,
// a lookup reads one section (two at most), absent keys rarely match, and
// the same file with format 2.0's inline index gives the same answers.
func TestPartedIndex(t *testing.T) {
	file, data, recs := partedFile(t)
	f := openFile(t, file)
	defer f.Close()
	if f.partBits < 3 {
		t.Fatalf("%d section bits: the test wants several sections", f.partBits)
	}
	fp := checkKeys(t, f, recs)
	t.Logf("%d blocks, %d sections, false positives %.4f per block and lookup", len(f.Blocks()), 1<<f.partBits, fp)
	if fp > 0.01 {
		t.Errorf("false positives %.4f per block", fp)
	}
	// A fresh File reads at most two sections for one key.
	for _, r := range recs[:50] {
		if r.key == nil {
			continue
		}
		g := openFile(t, file)
		if _, err := g.Lookup(r.key); err != nil {
			t.Fatal(err)
		}
		loaded := 0
		for _, s := range g.parts.secs {
			if s.loaded {
				loaded++
			}
		}
		g.Close()
		if loaded < 1 || loaded > 2 {
			t.Fatalf("key %q: %d sections read", r.key, loaded)
		}
	}
	l := parse(t, file)
	old := withIndex20(t, file, l, inlineFilters(t, f), uint64(len(l.blocks)), uint64(l.tLen), nil)
	if got := readAll(t, old, ReaderOptions{}); !bytes.Equal(got, data) {
		t.Fatal("2.0 index: T differs")
	}
	g := openFile(t, old)
	defer g.Close()
	if g.parts != nil {
		t.Fatal("a 2.0 index read as 2.1")
	}
	rng := rand.New(rand.NewPCG(3, 3))
	for i, r := range recs {
		if i%5 != 0 { // a sample: the 2.0 lookup decodes every filter
			continue
		}
		k := r.key
		if k == nil || i%3 == 0 {
			k = fmt.Appendf(nil, "absent:%d", rng.Uint64())
		}
		a, err1 := f.Lookup(k)
		b, err2 := g.Lookup(k)
		if err1 != nil || err2 != nil || !slices.Equal(a, b) {
			t.Fatalf("key %q: 2.1 says %v (%v), 2.0 %v (%v)", k, a, err1, b, err2)
		}
	}
}

func openFile(tb testing.TB, file []byte) *File {
	tb.Helper()
	f, err := OpenFile(bytes.NewReader(file), int64(len(file)), ReaderOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	return f
}

// TestHostileParts: each field of a 2.1 index's head and sections, made to
// lie, is refused by the reader that reads it (the sequential reader checks
// the sections' lengths and CRCs, a File their cells too).
func TestHostileParts(t *testing.T) {
	file, _, _ := partedFile(t)
	l := parse(t, file)
	n, tl := uint64(len(l.blocks)), uint64(l.tLen)
	if same := withIndex(file, l, l.blocks, n, tl, nil); !bytes.Equal(same, file) {
		t.Fatal("withIndex does not rebuild the index as written")
	}
	f := openFile(t, file)
	secs := f.parts.secs
	f.Close()
	// table rebuilds the sections' lengths and CRCs with section i's
	// length changed by dn.
	table := func(i, dn int, fix []byte) []byte {
		var out []byte
		for j, s := range secs {
			n, crc := s.n, s.crc
			if j == i {
				n += dn
				if fix != nil {
					crc = crc32c(fix)
				}
			}
			out = binary.AppendUvarint(out, uint64(n))
			out = binary.LittleEndian.AppendUint32(out, crc)
		}
		return out
	}
	// edited changes byte at of section 1 and recomputes its CRC, so that
	// the cells' checks must catch it.
	replaced := func(sec []byte) []byte {
		s := secs[1]
		start := s.off - secs[0].off
		all := slices.Concat(l.sections[:start], sec, l.sections[start+int64(s.n):])
		return withParts(file, l, l.blocks, n, tl, l.partBits, table(1, len(sec)-s.n, sec), nil, all)
	}
	edited := func(at int, v byte) []byte {
		s := secs[1]
		sec := bytes.Clone(file[s.off : s.off+int64(s.n)])
		sec[at] = v
		return replaced(sec)
	}
	lastByte := func(i int) int { return secs[i].n - 1 }
	headLen := func(d int) []byte {
		o := bytes.Clone(file)
		at := l.indexOff + 12
		binary.LittleEndian.PutUint32(o[at:], binary.LittleEndian.Uint32(o[at:])+uint32(d))
		return o
	}
	cases := []struct {
		name  string
		file  []byte
		want  error
		which string
	}{
		{"head length +1", headLen(1), nil, ""},
		{"head length -1", headLen(-1), nil, ""},
		{"head length huge", headLen(1 << 30), ErrFormat, ""},
		{"section bits 17", withParts(file, l, l.blocks, n, tl, 17, l.table, nil, l.sections), ErrLimit, ""},
		{"section bits +1", withParts(file, l, l.blocks, n, tl, l.partBits+1, l.table, nil, l.sections), nil, ""},
		{"section bits -1", withParts(file, l, l.blocks, n, tl, l.partBits-1, l.table, nil, l.sections), ErrFormat, ""},
		{"section length +1", withParts(file, l, l.blocks, n, tl, l.partBits, table(2, 1, nil), nil, l.sections), ErrFormat, ""},
		{"section length -1", withParts(file, l, l.blocks, n, tl, l.partBits, table(2, -1, nil), nil, l.sections), ErrFormat, ""},
		{"section lengths moved", withParts(file, l, l.blocks, n, tl, l.partBits, table(2, -1, nil)[:0], nil, l.sections), nil, ""},
		{"section length huge", withParts(file, l, l.blocks, n, tl, l.partBits, table(2, 1<<40, nil), nil, l.sections), ErrLimit, ""},
		{"sections shifted", withParts(file, l, l.blocks, n, tl, l.partBits, table(2, 1, nil), nil, bytes.Clone(l.sections[:len(l.sections)-1])), nil, ""},
		{"section CRC", func() []byte {
			o := bytes.Clone(file)
			o[secs[3].off+5] ^= 0x10
			return o
		}(), ErrChecksum, ""},
		{"cell count over the block's keys", edited(0, 0x7f), ErrFormat, "index"},
		{"cell padding", edited(lastByte(1), 0xff), ErrFormat, "index"},
		{"cell value past the section", replaced(slices.Concat([]byte{1}, bytes.Repeat([]byte{0xff}, 32), make([]byte, secs[1].n))), ErrFormat, "index"},
		{"bytes after the cells", replaced(slices.Concat(file[secs[1].off:secs[1].off+int64(secs[1].n)], []byte{0})), ErrFormat, "index"},
		{"cell count 0", edited(0, 0), ErrFormat, "index"},
	}
	for _, c := range cases {
		wantFail(t, c.name, c.file, c.want, c.which)
	}
}

// TestHostileIndex20: format 2.0's inline filters, lying.
func TestHostileIndex20(t *testing.T) {
	file, _, _, _ := smallFile(t)
	l := parse(t, file)
	f := openFile(t, file)
	blocks := inlineFilters(t, f)
	f.Close()
	n, tl := uint64(len(blocks)), uint64(l.tLen)
	ok := withIndex20(t, file, l, blocks, n, tl, nil)
	if s, i := decodeAll(ok); s != nil || i != nil {
		t.Fatal(s, i)
	}
	keyed := slices.IndexFunc(blocks, func(b BlockInfo) bool { return b.Keys > 1 && b.p > 0 })
	edit := func(fn func(*BlockInfo)) []BlockInfo {
		bs := slices.Clone(blocks)
		fn(&bs[keyed])
		return bs
	}
	for _, c := range []struct {
		name string
		file []byte
		want error
	}{
		{"filter longer than its keys allow", withIndex20(t, file, l, edit(func(b *BlockInfo) { b.filter = make([]byte, b.Keys*4+8) }), n, tl, nil), ErrLimit},
		{"filter with parameter 0 and bytes", withIndex20(t, file, l, edit(func(b *BlockInfo) { b.p = 0 }), n, tl, nil), ErrLimit},
		{"bytes after the entries", withIndex20(t, file, l, blocks, n, tl, []byte{0, 0}), ErrFormat},
		{"filter parameter over 24", withIndex20(t, file, l, edit(func(b *BlockInfo) { b.p = 60 }), n, tl, nil), ErrLimit},
	} {
		wantFail(t, c.name, c.file, c.want, "")
	}
}

// TestBlockState: each block where a record starts keeps the state of the
// first key at or after that record (0 when none follows); a 2.0 index has
// none.
func TestBlockState(t *testing.T) {
	data, recs := randomStream(31, 3000, 900)
	state := func(k []byte) uint64 { return uint64(len(k))*7 + uint64(k[len(k)-1]) }
	file, _ := writeRecords(t, data, recs, nil, Options{BlockSize: 4 << 10, State: state})
	f := openFile(t, file)
	defer f.Close()
	checked := 0
	for i, b := range f.Blocks() {
		if b.First < 0 {
			if b.State != -1 {
				t.Fatalf("block %d: no record starts, state %d", i, b.State)
			}
			continue
		}
		want := uint64(0)
		for _, r := range recs {
			if r.key != nil && r.off >= b.TOffset+int64(b.First) {
				want = state(r.key)
				break
			}
		}
		if uint64(b.State) != want {
			t.Fatalf("block %d: state %d, want %d", i, b.State, want)
		}
		checked++
	}
	if checked < 50 {
		t.Fatalf("%d blocks checked", checked)
	}
	l := parse(t, file)
	old := withIndex20(t, file, l, inlineFilters(t, f), uint64(len(l.blocks)), uint64(l.tLen), nil)
	g := openFile(t, old)
	defer g.Close()
	for i, b := range g.Blocks() {
		if b.State != -1 {
			t.Fatalf("2.0 index: block %d has state %d", i, b.State)
		}
	}
}

// TestSpilledFilters: filters held in a temporary file (a tiny SpillAt)
// give the same file as filters held in memory, and the file is gone.
func TestSpilledFilters(t *testing.T) {
	data, recs := randomStream(41, 20000, 40)
	opt := Options{BlockSize: 16 << 10, IndexShare: 0.2}
	mem, _ := writeRecords(t, data, recs, nil, opt)
	before, _ := filepath.Glob(filepath.Join(os.TempDir(), "rdbz-index-*"))
	for _, spill := range []int{1, 700, 5000} {
		opt.SpillAt = spill
		spilled, _ := writeRecords(t, data, recs, nil, opt)
		if !bytes.Equal(spilled, mem) {
			t.Fatalf("SpillAt %d: the file differs from the one written in memory", spill)
		}
	}
	after, _ := filepath.Glob(filepath.Join(os.TempDir(), "rdbz-index-*"))
	if len(after) > len(before) {
		t.Fatalf("temporary files left: %v", after)
	}
	f := openFile(t, mem)
	defer f.Close()
	if f.partBits < 2 {
		t.Fatalf("%d section bits: the test wants several sections", f.partBits)
	}
	checkKeys(t, f, recs)
}

// TestCursorLongValues: cursors read values longer than their chunk
// (sparse filters: large differences at a small P).
func TestCursorLongValues(t *testing.T) {
	vs := []uint64{3, 5000, 5001, 90000, 90002, 400000}
	code := codeFilter(vs, 1)
	h := heldFilters{spillAt: 1 << 20}
	off, err := h.add(code)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range []uint{0, 1, 3} {
		m := uint64(500000)
		c := filterCursor{off: off, end: off + int64(len(code)), n: len(vs), p: 1}
		var got []uint64
		var buf []byte
		var scratch []uint64
		for r := uint64(0); r < 1<<b; r++ {
			start := partStart(r, m, b)
			cell, err := c.take(&h, nil, start, partStart(r+1, m, b), &buf, &scratch)
			if err != nil {
				t.Fatal(err)
			}
			parsed, next, msg, _ := parseCell(cell, 0, len(vs), 1, m, r, b)
			if msg != "" || next != len(cell) {
				t.Fatalf("b %d section %d: %s", b, r, msg)
			}
			br := bitReader{f: cell[parsed.off:]}
			v := start
			for range parsed.n {
				q, _ := br.unary()
				low, _ := br.bits(1)
				v += q<<1 | low
				got = append(got, v)
			}
		}
		if !slices.Equal(got, vs) {
			t.Fatalf("b %d: values %v, want %v", b, got, vs)
		}
	}
}

// TestSpillWithoutTempDir: with no temporary directory to write to, the
// filters stay in memory and the file is the same.
func TestSpillWithoutTempDir(t *testing.T) {
	data, recs := randomStream(42, 3000, 40)
	opt := Options{BlockSize: 16 << 10, IndexShare: 0.2}
	mem, _ := writeRecords(t, data, recs, nil, opt)
	t.Setenv("TMPDIR", filepath.Join(t.TempDir(), "absent"))
	opt.SpillAt = 1
	got, _ := writeRecords(t, data, recs, nil, opt)
	if !bytes.Equal(got, mem) {
		t.Fatal("the file differs")
	}
}
