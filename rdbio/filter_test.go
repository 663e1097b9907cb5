package rdbio

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/rdbz/rdbz/rdbio/crc64"
	"github.com/rdbz/rdbz/rdbio/lzf"
)

// keepParts are the parts of keepFile, in order: records, or a key with
// the records before it that belong to it.
var keepParts = func() []struct {
	name string
	b    []byte
} {
	str := func(s string) []byte { return append(AppendLen(nil, uint64(len(s))), s...) }
	key := func(typ byte, k string, val ...byte) []byte { return append(append([]byte{typ}, str(k)...), val...) }
	expire := binary.LittleEndian.AppendUint64([]byte{OpExpireMs}, 1_700_000_000_500)
	long := strings.Repeat("an LZF string that the faithful encoder reproduces; ", 4)
	var enc lzf.Encoder
	z, _ := enc.RedisSave(nil, []byte(long))
	lzfVal := append(AppendLen(AppendLen([]byte{0xC0 | encLZF}, uint64(len(z))), uint64(len(long))), z...)
	lp := []byte{11, 0, 0, 0, 1, 0, 0x81, 'a', 2, 0xFF} // a listpack of "a"
	list := []byte{2}
	for range 2 {
		list = append(append(list, 2, byte(len(lp))), lp...)
	}
	big := strings.Repeat("k", bufSize+bufSize/2) // a key past the input window
	return []struct {
		name string
		b    []byte
	}{
		{"aux", AppendAux(nil, []byte("redis-ver"), []byte("7.2.0"))},
		{"ctime", AppendAux(nil, []byte("ctime"), []byte("1700000000"))},
		{"db0", []byte{OpSelectDB, 0}},
		{"hint", []byte{OpResizeDB, 5, 2}},
		{"a", append(append(slices.Clone(expire), OpFreq, 5), key(TypeString, "a", str("1")...)...)},
		{"b", key(TypeString, "b", lzfVal...)},
		{"l", append([]byte{OpIdle, 10}, key(TypeListQuicklist2, "l", list...)...)},
		{"big", append(slices.Clone(expire), key(TypeString, big, lzfVal...)...)},
		{"big2", key(TypeString, big+"2", str("v")...)},
		{"d", append([]byte{OpIdle, 7}, key(TypeString, "d", str("w")...)...)},
		{"db1", []byte{OpSelectDB, 1}},
		{"hint", []byte{OpResizeDB, 1, 0}},
		{"slot", []byte{OpSlotInfo, 0, 1, 0}},
		{"c", key(TypeString, "c", str("z")...)},
	}
}()

// keepFile is an RDB 11 of keepParts less those skip names, with its CRC.
func keepFile(skip ...string) []byte {
	b := []byte("REDIS0011")
	for _, p := range keepParts {
		if !slices.Contains(skip, p.name) {
			b = append(b, p.b...)
		}
	}
	b = append(b, OpEOF)
	return binary.LittleEndian.AppendUint64(b, crc64.Checksum(b))
}

// keyName is a key as the tests name it: its first bytes.
func keyName(k []byte) string {
	if len(k) > bufSize {
		return "big" + strings.TrimLeft(string(k), "k")
	}
	return string(k)
}

// rejecting is a keep function that leaves out the named keys.
func rejecting(names ...string) func(*Record) bool {
	return func(rec *Record) bool { return !slices.Contains(names, keyName(rec.Key)) }
}

// TestKeepRecords: a Filter's Next returns the kept keys with their prefix records
// and values, never a rejected key nor a hint; a kept key's value reads
// through its handle, a prefix record's handle is spent; Keep sees the
// key whole, its prefixes applied, and the ctime read before it.
func TestKeepRecords(t *testing.T) {
	var seen []string
	keep := func(rec *Record) bool {
		name := keyName(rec.Key)
		seen = append(seen, name)
		if c, ok := rec.Ctime(); !ok || c != 1_700_000_000 {
			t.Errorf("key %s: Ctime %d %v", name, c, ok)
		}
		if name == "a" && (rec.Expire != 1_700_000_000_500 || rec.Freq != 5) {
			t.Errorf("key a: expire %d, freq %d", rec.Expire, rec.Freq)
		}
		return name != "a" && name != "big2" && name != "d"
	}
	r, err := NewReader(bytes.NewReader(keepFile()), Options{})
	if err != nil {
		t.Fatal(err)
	}
	f := NewFilter(r, keep)
	var got []string
	end := int64(-1) // where the last record ended, by Offset
	for {
		rec, err := f.Next()
		if err != nil {
			t.Fatal(err)
		}
		if end >= 0 && rec.Offset != end {
			t.Errorf("%v record at %d: the one before ended at %d", rec.Kind, rec.Offset, end)
		}
		if rec.Kind == KindEOF {
			break
		}
		end = -1
		if rec.Kind == KindExpire || rec.Kind == KindIdle || rec.Kind == KindFreq {
			end = f.Offset()
		}
		name := rec.Kind.String()
		if rec.Kind == KindKey {
			name = keyName(rec.Key)
			if info, err := f.Value().Count(nil); err != nil || !info.Known {
				t.Errorf("key %s: Count %+v, %v", name, info, err)
			}
		} else if err := f.Value().Copy(nil); !errors.Is(err, ErrValueUsed) {
			t.Errorf("%s record: its handle copies (%v)", name, err)
		}
		got = append(got, name)
	}
	want := []string{"aux", "aux", "selectdb", "b", "idle", "l", "expire", "big", "selectdb", "c"}
	if !slices.Equal(got, want) {
		t.Errorf("records %q, want %q", got, want)
	}
	if w := []string{"a", "b", "l", "big", "big2", "d", "c"}; !slices.Equal(seen, w) {
		t.Errorf("Keep saw %q, want %q", seen, w)
	}
	fd := f.Filtered()
	if fd.Kept != 4 || fd.LeftOut != 3 || fd.Bytes != int64(len(keepFile())-len(keepFile("a", "big2", "d", "hint", "slot"))) {
		t.Errorf("Filtered %+v", fd)
	}
}

// TestKeepCopy: a filtered copy is the file less the keys left out (their
// prefix records with them) and the hints, with its own CRC; keeping every
// key leaves out only the hints; a rejected key of a type rdbio cannot
// walk stays.
func TestKeepCopy(t *testing.T) {
	for _, tc := range []struct {
		reject []string
		want   []byte
	}{
		{nil, keepFile("hint", "slot")},
		{[]string{"a", "l", "big", "c"}, keepFile("a", "l", "big", "c", "hint", "slot")},
		{[]string{"b", "big2"}, keepFile("b", "big2", "hint", "slot")},
		{[]string{"d"}, keepFile("d", "hint", "slot")},
	} {
		var out bytes.Buffer
		n, f, err := CopyFiltered(&out, bytes.NewReader(keepFile()), Options{}, rejecting(tc.reject...))
		if err != nil {
			t.Fatalf("reject %q: %v", tc.reject, err)
		}
		if !bytes.Equal(out.Bytes(), tc.want) || n != int64(out.Len()) {
			t.Errorf("reject %q: %d bytes (n %d), want %d", tc.reject, out.Len(), n, len(tc.want))
		}
		if f.LeftOut != int64(len(tc.reject)) || f.Kept != 7-f.LeftOut {
			t.Errorf("reject %q: Filtered %+v", tc.reject, f)
		}
	}
	var out bytes.Buffer
	if _, err := Copy(&out, bytes.NewReader(keepFile()), Options{}); err != nil || !bytes.Equal(out.Bytes(), keepFile()) {
		t.Errorf("Copy without a filter is not the file (%v)", err)
	}
}

// TestKeepUnwalkable: past a value rdbio cannot walk (a 4.0 pre-GA
// module value), kept or not, a filtered copy fails — the rest would go
// on unfiltered — naming the record; a read without a sink checks the
// rest as ever.
func TestKeepUnwalkable(t *testing.T) {
	b := []byte("REDIS0008")
	b = append(b, OpSelectDB, 0, TypeString, 1, 'a', 1, '1', OpIdle, 3, TypeModulePreGA, 1, 'm', 9, 9, 9)
	b = append(b, TypeString, 1, 'z', 1, '2', OpEOF)
	src := binary.LittleEndian.AppendUint64(b, crc64.Checksum(b))
	for _, reject := range []string{"m", "z"} {
		var out bytes.Buffer
		_, _, err := CopyFiltered(&out, bytes.NewReader(src), Options{}, rejecting(reject))
		var e *Error
		if !errors.Is(err, ErrUnsupported) || !errors.As(err, &e) || e.Offset != 21 || !strings.Contains(err.Error(), "cannot be filtered") {
			t.Errorf("reject %s: copy %v: want the unwalkable value at offset 21", reject, err)
		}
	}
	r, err := NewReader(bytes.NewReader(src), Options{})
	if err != nil {
		t.Fatal(err)
	}
	f := NewFilter(r, rejecting("m"))
	if _, err := drain(f); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("drain: %v", err)
	}
	if eof, err := f.PassBody(); err != nil || eof.Checksum != ChecksumOK {
		t.Errorf("PassBody without a sink: %v", err)
	}
}

// TestKeepSink: under Keep the sink still gets every kept byte in order
// when a record is read a byte at a time.
func TestKeepSink(t *testing.T) {
	var out bytes.Buffer
	_, _, err := CopyFiltered(&out, io.LimitReader(oneByte{bytes.NewReader(keepFile())}, 1<<30), Options{}, rejecting("a"))
	if want := keepFile("a", "hint", "slot"); err != nil || !bytes.Equal(out.Bytes(), want) {
		t.Errorf("copy %v: %d bytes, want %d", err, out.Len(), len(want))
	}
}

// oneByte reads one byte at a time.
type oneByte struct{ r io.Reader }

func (o oneByte) Read(p []byte) (int, error) { return o.r.Read(p[:min(len(p), 1)]) }

// TestFilterHintAfterPrefix: a hint after a prefix record ends it (the
// prefix record goes on unjudged) and is left out, its bytes counted as
// lying right before the record returned after it. The expiry still
// applies to the key after the hint, as a server loading the file (and
// the filtered copy, where the expiry record comes right before the key)
// reads it.
func TestFilterHintAfterPrefix(t *testing.T) {
	b := []byte("REDIS0011")
	b = append(b, OpSelectDB, 0)
	expireAt, expire := len(b), int64(1_700_000_000_500)
	b = binary.LittleEndian.AppendUint64(append(b, OpExpireMs), uint64(expire))
	hint := []byte{OpResizeDB, 1, 1}
	b = append(b, hint...)
	b = append(b, TypeString, 1, 'k', 1, 'v', OpEOF)
	b = binary.LittleEndian.AppendUint64(b, crc64.Checksum(b))
	r, err := NewReader(bytes.NewReader(b), Options{})
	if err != nil {
		t.Fatal(err)
	}
	f := NewFilter(r, func(*Record) bool { return true })
	var got []string
	for {
		rec, err := f.Next()
		if err != nil {
			t.Fatal(err)
		}
		left := f.Filtered().Bytes
		switch rec.Kind {
		case KindExpire:
			if rec.Offset != int64(expireAt) || left != 0 {
				t.Errorf("expire at %d with %d bytes left out before it", rec.Offset, left)
			}
		case KindKey:
			if left != int64(len(hint)) || rec.Offset != int64(expireAt+9+len(hint)) || rec.Expire != expire {
				t.Errorf("key at %d, expire %d, %d bytes left out before it", rec.Offset, rec.Expire, left)
			}
		}
		got = append(got, rec.Kind.String())
		if rec.Kind == KindEOF {
			break
		}
	}
	if want := []string{"selectdb", "expire", "key", "eof"}; !slices.Equal(got, want) {
		t.Errorf("records %q, want %q", got, want)
	}
}
