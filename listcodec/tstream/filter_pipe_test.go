package tstream

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/rdbz/rdbz/rdbio"
	"github.com/rdbz/rdbz/rdbio/crc64"
	"github.com/rdbz/rdbz/rdbio/lzf"
	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

// recSink keeps each T record EncodeT sends: its key, input offset and bytes.
type recSink struct{ recs []tRec }

type tRec struct {
	key   []byte
	input int64
	b     []byte
}

func (s *recSink) Begin(key []byte, input int64) error {
	s.recs = append(s.recs, tRec{key: bytes.Clone(key), input: input})
	return nil
}

func (s *recSink) Write(p []byte) (int, error) {
	r := &s.recs[len(s.recs)-1]
	r.b = append(r.b, p...)
	return len(p), nil
}

// TestKeepTPipe: through a Filter, EncodeT's LZF strings still go to the
// pipe's workers, and a record held back until Keep has seen its key
// leaves no byte in a batch before its Begin: every kept key (an expiry
// before some, keys past the input window among them) is a T record of its
// own that starts with its type byte and key, at its input offset; the
// keys left out leave nothing; T decodes to the filtered copy byte for
// byte, its trailer the CRC-64 of what stays.
func TestKeepTPipe(t *testing.T) {
	var enc lzf.Encoder
	rnd := rand.New(rand.NewPCG(3, 4))
	file := []byte("REDIS0011")
	file = append(file, rdbio.OpSelectDB, 0, rdbio.OpResizeDB, 0x40|0x0B, 0xB8, 0)
	type want struct {
		name   string
		expire bool
		at     int64 // the key record's input offset
	}
	var kept []want
	rejected := map[string]bool{}
	for i := range 3000 {
		name := fmt.Sprintf("k:%d", i)
		if i%250 == 7 {
			name += strings.Repeat("x", readWindow+100) // held past the input window
		}
		expire := i%5 == 0
		if expire {
			file = binary.LittleEndian.AppendUint64(append(file, rdbio.OpExpireMs), uint64(1_700_000_000_000+i))
		}
		at := int64(len(file))
		file = append(file, rdbio.TypeString)
		file = append(rdbio.AppendLen(file, uint64(len(name))), name...)
		v := rdbiotest.JSONish(rnd, 40+rnd.IntN(4000))
		comp, ok := enc.RedisSave(nil, v)
		if !ok {
			v = bytes.Repeat(v[:10], 10)
			comp = mustSave(t, &enc, v)
		}
		file = rdbio.AppendStringHead(file, rdbio.EncLZF, 0, uint64(len(comp)), uint64(len(v)))
		file = append(file, comp...)
		if i%3 == 1 || i%250 == 57 {
			rejected[name] = true
			continue
		}
		kept = append(kept, want{name: name, expire: expire, at: at})
	}
	file = append(file, rdbio.OpEOF)
	file = binary.LittleEndian.AppendUint64(file, crc64.Checksum(file))
	keep := func(rec *rdbio.Record) bool { return !rejected[string(rec.Key)] }

	var copied bytes.Buffer
	if _, _, err := rdbio.CopyFiltered(&copied, bytes.NewReader(file), rdbio.Options{}, keep); err != nil {
		t.Fatal(err)
	}
	var s recSink
	st, err := EncodeT(&s, bytes.NewReader(file), Options{}, keep)
	if err != nil {
		t.Fatal(err)
	}
	if st.Keys != int64(len(kept)) || st.LeftOut != int64(len(rejected)) || st.Decoded != int64(len(kept)) {
		t.Errorf("stats %+v: want %d keys, %d left out, %d decoded", st, len(kept), len(rejected), len(kept))
	}
	var tb bytes.Buffer
	i := 0
	for n, r := range s.recs {
		tb.Write(r.b)
		if r.key == nil {
			continue
		}
		if i == len(kept) {
			t.Fatalf("record %d: key %.20q past the %d kept", n, r.key, len(kept))
		}
		w := kept[i]
		i++
		head := append(rdbio.AppendLen([]byte{rdbio.TypeString}, uint64(len(w.name))), w.name...)
		if !bytes.Equal(r.key, TKey(nil, 0, []byte(w.name))) || !bytes.HasPrefix(r.b, head) || r.input != w.at {
			t.Fatalf("record %d: key %.20q at %d, bytes %.20q: want %.20q at %d", n, r.key, r.input, r.b, w.name, w.at)
		}
		if w.expire && (n == 0 || s.recs[n-1].key != nil || len(s.recs[n-1].b) != 9 || s.recs[n-1].b[0] != rdbio.OpExpireMs) {
			t.Fatalf("record %d: key %.20q without its expiry record before it", n, w.name)
		}
	}
	if i != len(kept) {
		t.Errorf("%d key records, want %d", i, len(kept))
	}
	var out bytes.Buffer
	if _, err := DecodeT(&out, bytes.NewReader(tb.Bytes()), TargetOriginal, Options{}, nil); err != nil || !bytes.Equal(out.Bytes(), copied.Bytes()) {
		t.Fatalf("T decoded: %d bytes (%v), want the filtered copy's %d", out.Len(), err, copied.Len())
	}
}
