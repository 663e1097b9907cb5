package block

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"runtime/metrics"
	"slices"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// hostileBound is the memory any hostile input may make a Reader or File
// allocate in these tests: the 4 KiB-block files below hold far less than
// it, and a lying length that sized an allocation (up to 4 GiB) would
// exceed it.
const hostileBound = 24 << 20

// smallFile is a valid file with a dictionary, a few dozen 4 KiB blocks,
// records that straddle blocks, and keys in filters.
func smallFile(tb testing.TB) (file, t []byte, recs []record, dict []byte) {
	tb.Helper()
	t, recs = randomStream(11, 400, 600)
	samples := trainSamples(t, recs, 256<<10)
	d, _ := trainRdbz(tb, samples, 8<<10, zstd.SpeedDefault)
	// 4 KiB blocks compress to about 1.5 KiB: at the default 1% share their
	// entries and cells' counts leave no room for filters, which the
	// hostile cases need.
	file, _ = writeRecords(tb, t, recs, d, Options{BlockSize: 4 << 10, IndexShare: 0.05})
	return file, t, recs, d
}

// decodeAll reads a file both ways: sequentially, and by its index (every
// block, every key looked up). It returns the first error of each.
func decodeAll(file []byte) (seqErr, idxErr error) {
	_, seqErr, _, idxErr = decodeBoth(file)
	return seqErr, idxErr
}

// decodeBoth reads a file sequentially and block by block through its
// index, returning what each gave and its first error.
func decodeBoth(file []byte) (seq []byte, seqErr error, blocks []byte, idxErr error) {
	r, err := NewReader(context.Background(), bytes.NewReader(file), ReaderOptions{Lookahead: 3})
	if err == nil {
		seq, err = io.ReadAll(r)
		r.Close()
	}
	seqErr = err
	f, err := OpenFile(bytes.NewReader(file), int64(len(file)), ReaderOptions{})
	if err == nil {
		var buf []byte
		for i := range f.Blocks() {
			if buf, err = f.DecodeBlock(i, buf); err != nil {
				break
			}
			blocks = append(blocks, buf...)
		}
		if err == nil {
			_, err = f.Lookup([]byte("key:a"))
		}
		if err == nil {
			err = loadSections(f)
		}
		f.Close()
	}
	return seq, seqErr, blocks, err
}

// allocated runs fn and returns the bytes the process allocated on the
// heap meanwhile. It reads runtime/metrics, which unlike ReadMemStats does
// not stop the world: a stop per case cost this package a third of its
// time (a span cached before fn may be counted before it: a few KiB).
func allocated(fn func()) uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	before := s[0].Value.Uint64()
	fn()
	metrics.Read(s)
	return s[0].Value.Uint64() - before
}

// wantFail checks that both readers refuse file with an *Error wrapping
// want (nil: any of the package's errors), within hostileBound.
func wantFail(t *testing.T, name string, file []byte, want error, which string) {
	t.Helper()
	var seqErr, idxErr error
	if n := allocated(func() { seqErr, idxErr = decodeAll(file) }); n > hostileBound {
		t.Errorf("%s: %d bytes allocated", name, n)
	}
	check := func(kind string, err error) {
		if err == nil {
			t.Errorf("%s: the %s reader accepted it", name, kind)
			return
		}
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("%s: %s reader: %v is not an *Error", name, kind, err)
			return
		}
		if want != nil && !errors.Is(err, want) {
			t.Errorf("%s: %s reader: %v, want %v", name, kind, err, want)
		}
	}
	if which != "index" {
		check("sequential", seqErr)
	}
	if which != "seq" {
		check("index", idxErr)
	}
}

func TestTruncatedAtEveryByte(t *testing.T) {
	file, _, _, _ := smallFile(t)
	if s, i := decodeAll(file); s != nil || i != nil {
		t.Fatal(s, i)
	}
	// Every byte of the header, the first and last blocks and the ends of
	// the index; in between every 101st, in the index every 7th (every one
	// with RDBZ_LONG=1).
	l := parse(t, file)
	first := l.blocks[0].Offset + int64(l.blocks[0].Size)
	last := l.blocks[len(l.blocks)-1].Offset
	step := int64(101)
	if long() {
		step = 1
	}
	// In the index, every byte of its frame header, head fields and
	// footer; every 7th of its entries and sections.
	idxIn, idxOut := l.indexOff+64, int64(len(file))-32
	for n := int64(0); n < int64(len(file)); n++ {
		if n > first && n < last && n%step != 0 {
			continue
		}
		if n > idxIn && n < idxOut && n%7 != 0 && !long() {
			continue
		}
		wantFail(t, "prefix", file[:n], nil, "")
	}
	// A byte more is refused too.
	wantFail(t, "extra byte", append(bytes.Clone(file), 0), nil, "")
}

// layout finds the parts of a file.
type layout struct {
	hdrEnd, indexOff int64
	blocks           []BlockInfo
	tLen             int64
	partBits         uint
	table            []byte // the head's sections' lengths and CRCs
	sections         []byte
}

func parse(t *testing.T, file []byte) layout {
	f, err := OpenFile(bytes.NewReader(file), int64(len(file)), ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	l := layout{hdrEnd: f.hdrLen, indexOff: f.indexOff, blocks: f.blocks, tLen: f.tLen, partBits: f.partBits}
	if f.parts != nil {
		for _, s := range f.parts.secs {
			l.table = binary.AppendUvarint(l.table, uint64(s.n))
			l.table = binary.LittleEndian.AppendUint32(l.table, s.crc)
		}
		start := f.parts.secs[0].off
		l.sections = file[start : len(file)-footerLen]
	}
	return l
}

// loadSections reads every section of f's index, as lookups would.
func loadSections(f *File) error {
	if f.parts == nil {
		return nil
	}
	for r := range f.parts.secs {
		if _, err := f.section(r); err != nil {
			return err
		}
	}
	return nil
}

// withIndex rebuilds the file's index (2.1) from (changed) entries, count
// and T length, with extra after the sections' lengths and the sections
// given, and a correct CRC, so that the field checks, not the CRC, must
// catch the change.
func withIndex(file []byte, l layout, blocks []BlockInfo, count, tLen uint64, extra []byte) []byte {
	return withParts(file, l, blocks, count, tLen, l.partBits, l.table, extra, l.sections)
}

func withParts(file []byte, l layout, blocks []BlockInfo, count, tLen uint64, b uint, table, extra, sections []byte) []byte {
	head := binary.AppendUvarint(nil, count)
	head = binary.AppendUvarint(head, tLen)
	head = append(head, byte(b))
	head = appendEntries(head, blocks, false)
	head = append(head, table...)
	head = append(head, extra...)
	payload := append([]byte(indexTag), nil...)
	payload = binary.LittleEndian.AppendUint32(payload, uint32(len(head)))
	payload = append(payload, head...)
	crc := crc32c(payload)
	payload = append(payload, sections...)
	return withPayload(file, l, payload, crc)
}

// withPayload ends file[:l.indexOff] with an index frame of payload and a
// footer holding crc.
func withPayload(file []byte, l layout, payload []byte, crc uint32) []byte {
	off := l.indexOff
	payload = binary.LittleEndian.AppendUint32(payload, crc)
	payload = binary.LittleEndian.AppendUint64(payload, uint64(off))
	payload = append(payload, footerMagic...)
	out := bytes.Clone(file[:off])
	out = binary.LittleEndian.AppendUint32(out, indexMagic)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(payload)))
	return append(out, payload...)
}

// withIndex20 rebuilds the file's index as format 2.0 wrote it: the
// filters inline in the entries (those of blocks, else each block's whole
// filter gathered from the sections of f).
func withIndex20(tb testing.TB, file []byte, l layout, blocks []BlockInfo, count, tLen uint64, extra []byte) []byte {
	payload := append([]byte(indexTag20), nil...)
	payload = binary.AppendUvarint(payload, count)
	payload = binary.AppendUvarint(payload, tLen)
	payload = appendEntries(payload, blocks, true)
	payload = append(payload, extra...)
	return withPayload(file, l, payload, crc32c(payload))
}

// inlineFilters gives each block of f its whole filter again, gathered
// from the sections: the 2.0 index's.
func inlineFilters(tb testing.TB, f *File) []BlockInfo {
	tb.Helper()
	if err := loadSections(f); err != nil {
		tb.Fatal(err)
	}
	blocks := slices.Clone(f.blocks)
	for i := range blocks {
		b := &blocks[i]
		if !hasFilter(b) {
			continue
		}
		var vs []uint64
		m := filterRange(b.Keys, b.p)
		for r, sec := range f.parts.secs {
			c := sec.cells[f.parts.ord[i]]
			br := bitReader{f: sec.data[c.off : c.off+c.len]}
			v := partStart(uint64(r), m, f.partBits)
			for range c.n {
				q, _ := br.unary()
				low, _ := br.bits(b.p)
				v += q<<b.p | low
				vs = append(vs, v)
			}
		}
		if len(vs) != b.Keys {
			tb.Fatalf("block %d: %d values in the sections, %d keys", i, len(vs), b.Keys)
		}
		b.filter = codeFilter(vs, b.p)
	}
	return blocks
}

func TestHostileIndex(t *testing.T) {
	file, _, _, _ := smallFile(t)
	l := parse(t, file)
	n := uint64(len(l.blocks))
	same := withIndex(file, l, l.blocks, n, uint64(l.tLen), nil)
	if !bytes.Equal(same, file) {
		t.Fatal("withIndex does not rebuild the index as written")
	}
	edit := func(i int, fn func(*BlockInfo)) []BlockInfo {
		bs := append([]BlockInfo(nil), l.blocks...)
		fn(&bs[i])
		return bs
	}
	mid := len(l.blocks) / 2
	var keyed int
	for i, b := range l.blocks {
		if b.Keys > 1 && b.p > 0 {
			keyed = i
			break
		}
	}
	cases := []struct {
		name  string
		file  []byte
		want  error
		which string
	}{
		{"block count +1", withIndex(file, l, l.blocks, n+1, uint64(l.tLen), nil), nil, ""},
		{"block count -1", withIndex(file, l, l.blocks[:n-1], n-1, uint64(l.tLen), nil), ErrFormat, ""},
		{"block count huge", withIndex(file, l, l.blocks, 1<<40, uint64(l.tLen), nil), nil, ""},
		{"T length +1", withIndex(file, l, l.blocks, n, uint64(l.tLen)+1, nil), ErrFormat, ""},
		{"T length huge", withIndex(file, l, l.blocks, n, 1<<62, nil), nil, ""},
		{"frame length +1", withIndex(file, l, edit(mid, func(b *BlockInfo) { b.Size++ }), n, uint64(l.tLen), nil), ErrFormat, ""},
		{"frame length -1", withIndex(file, l, edit(mid, func(b *BlockInfo) { b.Size-- }), n, uint64(l.tLen), nil), ErrFormat, ""},
		{"frame lengths shifted", withIndex(file, l, edit(mid, func(b *BlockInfo) { b.Size += 5; l.blocks[mid+1].Size -= 0 }), n, uint64(l.tLen), nil), ErrFormat, ""},
		{"frame length huge", withIndex(file, l, edit(mid, func(b *BlockInfo) { b.Size = 1 << 31 }), n, uint64(l.tLen), nil), ErrLimit, ""},
		{"frame length 0", withIndex(file, l, edit(mid, func(b *BlockInfo) { b.Size = 0 }), n, uint64(l.tLen), nil), ErrFormat, ""},
		{"decoded length +1", withIndex(file, l, edit(mid, func(b *BlockInfo) { b.TSize++ }), n, uint64(l.tLen)+1, nil), ErrFormat, ""},
		{"decoded length over the block size", withIndex(file, l, edit(mid, func(b *BlockInfo) { b.TSize = 1 << 20 }), n, uint64(l.tLen), nil), ErrLimit, ""},
		{"decoded length 0", withIndex(file, l, edit(mid, func(b *BlockInfo) { b.TSize = 0 }), n, uint64(l.tLen), nil), ErrFormat, ""},
		{"first record past the block", withIndex(file, l, edit(mid, func(b *BlockInfo) { b.First = b.TSize; b.Input = 1 << 20 }), n, uint64(l.tLen), nil), ErrLimit, ""},
		{"first record far past", withIndex(file, l, edit(mid, func(b *BlockInfo) { b.First = 1 << 30; b.Input = 1 << 40 }), n, uint64(l.tLen), nil), ErrLimit, ""},
		{"input offset overflows", withIndex(file, l, edit(mid, func(b *BlockInfo) { b.First = 0; b.Input = 1<<63 - 1 }), n, uint64(l.tLen), nil), nil, ""},
		{"key count over the block", withIndex(file, l, edit(keyed, func(b *BlockInfo) { b.Keys = b.TSize + 1 }), n, uint64(l.tLen), nil), ErrLimit, ""},
		{"keys where no record starts", withIndex(file, l, edit(keyed, func(b *BlockInfo) { b.First = -1 }), n, uint64(l.tLen), nil), nil, ""},
		{"filter parameter over 24", withIndex(file, l, edit(keyed, func(b *BlockInfo) { b.p = 60 }), n, uint64(l.tLen), nil), ErrLimit, ""},
		{"filter parameter 0: a cell too many", withIndex(file, l, edit(keyed, func(b *BlockInfo) { b.p = 0 }), n, uint64(l.tLen), nil), ErrFormat, "index"},
		{"filter parameter other: cells misread", withIndex(file, l, edit(keyed, func(b *BlockInfo) { b.p = 1 }), n, uint64(l.tLen), nil), ErrFormat, "index"},
		{"bytes after the sections' lengths", withIndex(file, l, l.blocks, n, uint64(l.tLen), []byte{0, 0}), ErrFormat, ""},
	}
	// The index (or its footer) pointing elsewhere.
	moved := func(off uint64) []byte {
		out := bytes.Clone(file)
		binary.LittleEndian.PutUint64(out[len(out)-12:], off)
		return out
	}
	cases = append(cases,
		struct {
			name  string
			file  []byte
			want  error
			which string
		}{"footer points into the blocks", moved(uint64(l.blocks[mid].Offset)), nil, ""},
		struct {
			name  string
			file  []byte
			want  error
			which string
		}{"footer points into the header", moved(3), ErrFormat, "index"},
		struct {
			name  string
			file  []byte
			want  error
			which string
		}{"footer points past the end", moved(1 << 40), ErrFormat, "index"},
		struct {
			name  string
			file  []byte
			want  error
			which string
		}{"footer points one byte later", moved(uint64(l.indexOff + 1)), ErrFormat, ""},
	)
	for _, c := range cases {
		wantFail(t, c.name, c.file, c.want, c.which)
	}
	// A lying index frame size, an altered footer magic or CRC.
	sizeAt := l.indexOff + 4
	for _, v := range []uint32{0, 5, uint32(len(file)) - uint32(l.indexOff) - 9, uint32(len(file)), 1<<32 - 1} {
		out := bytes.Clone(file)
		binary.LittleEndian.PutUint32(out[sizeAt:], v)
		wantFail(t, "index frame size", out, nil, "")
	}
	for _, at := range []int{len(file) - 1, len(file) - 16, int(l.indexOff), int(l.indexOff) + 9, int(l.indexOff) + 12} {
		out := bytes.Clone(file)
		out[at] ^= 0x40
		wantFail(t, "index byte", out, nil, "")
	}
}

func TestHostileHeader(t *testing.T) {
	file, _, _, dict := smallFile(t)
	put32 := func(at int, v uint32) []byte {
		out := bytes.Clone(file)
		binary.LittleEndian.PutUint32(out[at:], v)
		return out
	}
	// fixCRC recomputes the header CRC after an edit, so that the field
	// check must catch it.
	fixCRC := func(out []byte) []byte {
		end := 8 + headerFixed + len(dict)
		binary.LittleEndian.PutUint32(out[end:], crc32c(out[8:end]))
		return out
	}
	cases := []struct {
		name string
		file []byte
		want error
	}{
		{"magic", put32(0, 0x184D2A51), ErrFormat},
		{"frame size +1", put32(4, uint32(headerFixed+len(dict)+5)), ErrFormat},
		{"frame size huge", put32(4, 1<<32-1), ErrFormat},
		{"tag", fixCRC(put32(8, 0x5a424453)), ErrFormat},
		{"major version 3", fixCRC(func() []byte { o := bytes.Clone(file); o[12] = 3; return o }()), ErrVersion},
		{"flags", fixCRC(func() []byte { o := bytes.Clone(file); o[14] = 4; return o }()), ErrVersion},
		{"columns flag with a dictionary", fixCRC(func() []byte { o := bytes.Clone(file); o[14] = 2; return o }()), ErrDictionary},
		{"source flag, no record", fixCRC(func() []byte { o := bytes.Clone(file); o[14] = 1; return o }()), ErrFormat},
		{"block size 0", fixCRC(put32(16, 0)), ErrLimit},
		{"block size huge", fixCRC(put32(16, 1<<31)), ErrLimit},
		{"block size smaller than the blocks", fixCRC(put32(16, 2048)), ErrLimit},
		{"dictionary ID other", fixCRC(put32(20, 40001)), ErrDictionary},
		{"dictionary ID 0 with a dictionary", fixCRC(put32(20, 0)), ErrDictionary},
		{"dictionary length huge", fixCRC(put32(24, 1<<32-1)), ErrLimit},
		{"dictionary length lying", fixCRC(put32(24, uint32(len(dict)-1))), ErrFormat},
		{"dictionary magic", fixCRC(put32(28, 0x12345678)), ErrDictionary},
		{"dictionary's own ID", fixCRC(put32(32, 40001)), ErrDictionary},
		{"header CRC", func() []byte { o := bytes.Clone(file); o[8+headerFixed+len(dict)] ^= 1; return o }(), ErrChecksum},
		{"dictionary content", func() []byte { o := bytes.Clone(file); o[8+headerFixed+len(dict)-1] ^= 1; return o }(), ErrChecksum},
	}
	for _, c := range cases {
		wantFail(t, c.name, c.file, c.want, "")
	}
}

// TestHeaderSource: a source record comes back from both readers; a
// record whose length byte lies, or a frame size outside what the flag
// allows, is refused.
func TestHeaderSource(t *testing.T) {
	data, recs := randomStream(12, 40, 300)
	src := []byte("VKCS\x01\x01\x01\x00\x64\x70")
	file, _ := writeRecords(t, data, recs, nil, Options{BlockSize: 4 << 10, Source: src})
	r, err := NewReader(context.Background(), bytes.NewReader(file), ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	f, err := OpenFile(bytes.NewReader(file), int64(len(file)), ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(r.Header().Source, src) || !bytes.Equal(f.Header().Source, src) {
		t.Fatalf("source %q / %q, want %q", r.Header().Source, f.Header().Source, src)
	}
	if got := readAll(t, file, ReaderOptions{}); !bytes.Equal(got, data) {
		t.Fatal("T differs")
	}
	end := 8 + headerFixed // no dictionary: the record's length byte
	lying := bytes.Clone(file)
	lying[end]--
	binary.LittleEndian.PutUint32(lying[end+1+len(src):], crc32c(lying[8:end+1+len(src)]))
	wantFail(t, "source length lying", lying, ErrFormat, "")
	if _, err := NewWriter(context.Background(), io.Discard, nil, Options{Source: make([]byte, MaxSourceLen+1)}); !errors.Is(err, ErrUsage) {
		t.Fatalf("an oversized source record: %v", err)
	}
}

func TestHostileFrames(t *testing.T) {
	file, _, _, _ := smallFile(t)
	l := parse(t, file)
	b := l.blocks[len(l.blocks)/2]
	at := int(b.Offset)
	flip := func(pos int, mask byte) []byte {
		o := bytes.Clone(file)
		o[pos] ^= mask
		return o
	}
	// The frame header: 4 magic, FHD, (single segment: no window byte),
	// 2-byte dictionary ID, then the content size.
	fhd := file[at+4]
	if fhd&0x20 == 0 || fhd&3 != 2 {
		t.Fatalf("unexpected frame header %#x", fhd)
	}
	cases := []struct {
		name string
		file []byte
		want error
	}{
		{"frame magic", flip(at, 1), ErrFormat},
		{"no checksum flag", flip(at+4, 0x04), ErrFormat},
		{"reserved bit", flip(at+4, 0x08), ErrFormat},
		{"dictionary ID", flip(at+5, 1), ErrDictionary},
		{"no dictionary ID", flip(at+4, 0x02), nil},
		{"content size", flip(at+7, 0x10), nil},
		{"content size over the block size", func() []byte {
			o := bytes.Clone(file)
			o[at+4] = o[at+4]&^0xC0 | 0x80 // a 4-byte content size
			binary.LittleEndian.PutUint32(o[at+7:], 1<<30)
			return o
		}(), nil},
		{"zstd block length huge", func() []byte {
			o := bytes.Clone(file)
			pos := at + 5 + 2 + 2 // FHD FCS flag 1: 2 bytes
			if fhd>>6 == 2 {
				pos = at + 5 + 2 + 4
			}
			v := uint32(o[pos]) | uint32(o[pos+1])<<8 | uint32(o[pos+2])<<16
			v = v&7 | (1<<21-1)<<3
			o[pos], o[pos+1], o[pos+2] = byte(v), byte(v>>8), byte(v>>16)
			return o
		}(), ErrFormat},
		{"zstd block type 3", func() []byte {
			o := bytes.Clone(file)
			pos := at + 5 + 2 + 2
			if fhd>>6 == 2 {
				pos = at + 5 + 2 + 4
			}
			o[pos] |= 6
			return o
		}(), ErrFormat},
		{"a content byte", flip(at+b.Size/2, 0x20), nil},
		{"the frame checksum", flip(at+b.Size-1, 0x01), ErrChecksum},
	}
	for _, c := range cases {
		wantFail(t, c.name, c.file, c.want, "")
	}
	// A wrong dictionary with the right ID (its content changed, the
	// header's CRC recomputed): the frames must fail, not give wrong bytes.
	_, _, _, dict := smallFile(t)
	for _, back := range []int{1, 100, 1000} {
		o := bytes.Clone(file)
		end := 8 + headerFixed + len(dict)
		for k := end - back; k < end-back+64 && k < end; k++ {
			o[k] ^= 0x5a
		}
		binary.LittleEndian.PutUint32(o[end:], crc32c(o[8:end]))
		wantFail(t, "wrong dictionary", o, nil, "")
	}
}
