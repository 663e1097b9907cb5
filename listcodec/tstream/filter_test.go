package tstream

import (
	"bytes"
	"encoding/binary"
	"slices"
	"strings"
	"testing"

	"github.com/rdbz/rdbz/rdbio"
	"github.com/rdbz/rdbz/rdbio/crc64"
	"github.com/rdbz/rdbz/rdbio/lzf"
)

// readWindow is rdbio's input window: a key longer than it is read across
// fills of the window.
const readWindow = 256 << 10

// keepParts are the parts of keepFile, in order: records, or a key with
// the records before it that belong to it.
var keepParts = func() []struct {
	name string
	b    []byte
} {
	str := func(s string) []byte { return append(rdbio.AppendLen(nil, uint64(len(s))), s...) }
	key := func(typ byte, k string, val ...byte) []byte { return append(append([]byte{typ}, str(k)...), val...) }
	expire := binary.LittleEndian.AppendUint64([]byte{rdbio.OpExpireMs}, 1_700_000_000_500)
	long := strings.Repeat("an LZF string that the faithful encoder reproduces; ", 4)
	var enc lzf.Encoder
	z, _ := enc.RedisSave(nil, []byte(long))
	lzfVal := append(rdbio.AppendLen(rdbio.AppendLen([]byte{lzfByte}, uint64(len(z))), uint64(len(long))), z...)
	lp := []byte{11, 0, 0, 0, 1, 0, 0x81, 'a', 2, 0xFF} // a listpack of "a"
	list := []byte{2}
	for range 2 {
		list = append(append(list, 2, byte(len(lp))), lp...)
	}
	big := strings.Repeat("k", readWindow+readWindow/2) // a key past the input window
	return []struct {
		name string
		b    []byte
	}{
		{"aux", rdbio.AppendAux(nil, []byte("redis-ver"), []byte("7.2.0"))},
		{"ctime", rdbio.AppendAux(nil, []byte("ctime"), []byte("1700000000"))},
		{"db0", []byte{rdbio.OpSelectDB, 0}},
		{"hint", []byte{rdbio.OpResizeDB, 5, 2}},
		{"a", append(append(slices.Clone(expire), rdbio.OpFreq, 5), key(rdbio.TypeString, "a", str("1")...)...)},
		{"b", key(rdbio.TypeString, "b", lzfVal...)},
		{"l", append([]byte{rdbio.OpIdle, 10}, key(rdbio.TypeListQuicklist2, "l", list...)...)},
		{"big", append(slices.Clone(expire), key(rdbio.TypeString, big, lzfVal...)...)},
		{"big2", key(rdbio.TypeString, big+"2", str("v")...)},
		{"d", append([]byte{rdbio.OpIdle, 7}, key(rdbio.TypeString, "d", str("w")...)...)},
		{"db1", []byte{rdbio.OpSelectDB, 1}},
		{"hint", []byte{rdbio.OpResizeDB, 1, 0}},
		{"slot", []byte{rdbio.OpSlotInfo, 0, 1, 0}},
		{"c", key(rdbio.TypeString, "c", str("z")...)},
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
	b = append(b, rdbio.OpEOF)
	return binary.LittleEndian.AppendUint64(b, crc64.Checksum(b))
}

// keyName is a key as the tests name it: its first bytes.
func keyName(k []byte) string {
	if len(k) > readWindow {
		return "big" + strings.TrimLeft(string(k), "k")
	}
	return string(k)
}

// rejecting is a keep function that leaves out the named keys.
func rejecting(names ...string) func(*rdbio.Record) bool {
	return func(rec *rdbio.Record) bool { return !slices.Contains(names, keyName(rec.Key)) }
}

// TestKeepT: T of a filtered file, decoded to the original, is the
// filtered copy byte for byte (its trailer checked on the way); a T stream
// filtered as it is decoded, its 0xC5 strings in the keys left out
// skipped, gives the same file.
func TestKeepT(t *testing.T) {
	reject := []string{"b", "l", "big2", "d"}
	want := keepFile("b", "l", "big2", "d", "hint", "slot")
	var tb tbuf
	st, err := EncodeT(&tb, bytes.NewReader(keepFile()), Options{}, rejecting(reject...))
	if err != nil {
		t.Fatal(err)
	}
	if st.Keys != 3 || st.LeftOut != 4 || st.Decoded != 1 {
		t.Errorf("stats %+v: want 3 keys, 4 left out, 1 LZF string decoded", st)
	}
	var out bytes.Buffer
	if _, err := DecodeT(&out, bytes.NewReader(tb.Bytes()), TargetOriginal, Options{}, nil); err != nil || !bytes.Equal(out.Bytes(), want) {
		t.Fatalf("decoded %d bytes (%v), want the filtered copy's %d", out.Len(), err, len(want))
	}
	var all tbuf
	if _, err := EncodeT(&all, bytes.NewReader(keepFile()), Options{}, nil); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if _, err := DecodeT(&out, bytes.NewReader(all.Bytes()), TargetOriginal, Options{}, rejecting(reject...)); err != nil || !bytes.Equal(out.Bytes(), want) {
		t.Fatalf("T filtered as decoded: %d bytes (%v), want %d", out.Len(), err, len(want))
	}
}
