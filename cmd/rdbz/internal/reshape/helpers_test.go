package reshape

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"testing"

	"github.com/rdbz/rdbz/cmd/rdbz/internal/cluster"
	"github.com/rdbz/rdbz/rdbio"
)

// craft builds an RDB record by record.
type craft struct{ b []byte }

func (c *craft) str(s string) *craft {
	c.b = append(rdbio.AppendLen(c.b, uint64(len(s))), s...)
	return c
}

func (c *craft) aux(name, value string) *craft {
	c.b = rdbio.AppendAux(c.b, []byte(name), []byte(value))
	return c
}

func (c *craft) selectDB(db uint64) *craft {
	c.b = rdbio.AppendLen(append(c.b, rdbio.OpSelectDB), db)
	return c
}

func (c *craft) resizeDB(keys, expires uint64) *craft {
	c.b = rdbio.AppendLen(rdbio.AppendLen(append(c.b, rdbio.OpResizeDB), keys), expires)
	return c
}

func (c *craft) function(code string) *craft {
	c.b = append(c.b, rdbio.OpFunction2)
	return c.str(code)
}

func (c *craft) slotInfo(slot, keys, expires uint64) *craft {
	c.b = rdbio.AppendLen(rdbio.AppendLen(rdbio.AppendLen(append(c.b, rdbio.OpSlotInfo), slot), keys), expires)
	return c
}

// set adds a string key; expireMs > 0 gives it an expiry record first.
func (c *craft) set(key, value string, expireMs int64) *craft {
	if expireMs > 0 {
		c.b = binary.LittleEndian.AppendUint64(append(c.b, rdbio.OpExpireMs), uint64(expireMs))
	}
	c.b = append(c.b, byte(rdbio.TypeString))
	return c.str(key).str(value)
}

// file ends the RDB with its trailer.
func (c *craft) file(t testing.TB, magic string) []byte {
	t.Helper()
	var buf bytes.Buffer
	v := int(magic[len(magic)-2]-'0')*10 + int(magic[len(magic)-1]-'0')
	w, err := rdbio.NewWriter(&buf, rdbio.Header{Magic: magic, Version: v, Valkey: magic[0] == 'V'})
	if err != nil {
		t.Fatal(err)
	}
	w.Write(c.b)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// bytesInput is an Input over b (once: read once only).
func bytesInput(name string, b []byte, once bool) Input {
	return Input{Name: name, Once: once, Open: func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(b)), nil
	}}
}

// splitBytes splits in by the slot ranges of parts into buffers.
func splitBytes(t testing.TB, in Input, parts []cluster.Ranges, opt SplitOptions) ([][]byte, *SplitReport, error) {
	t.Helper()
	tb, err := cluster.NewTable(parts)
	if err != nil {
		t.Fatal(err)
	}
	bufs := make([]*bytes.Buffer, len(parts))
	dst := make([]io.Writer, len(parts))
	for i := range bufs {
		bufs[i] = &bytes.Buffer{}
		dst[i] = bufs[i]
	}
	rep, err := Split(context.Background(), in, dst, tb, opt)
	out := make([][]byte, len(bufs))
	for i, b := range bufs {
		out[i] = b.Bytes()
	}
	return out, rep, err
}

// record is what a test keeps of a record.
type record struct {
	kind          rdbio.Kind
	db            uint64
	key, value    string
	expire        int64
	size, expires uint64
}

// records reads every record of an RDB (values of strings decoded by
// copying them), checking its trailer.
func records(t testing.TB, b []byte) ([]record, rdbio.Header) {
	t.Helper()
	r, err := rdbio.NewReader(bytes.NewReader(b), rdbio.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out []record
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out, r.Header()
		}
		if err != nil {
			t.Fatal(err)
		}
		if rec.Kind == rdbio.KindEOF && rec.Checksum != rdbio.ChecksumOK && rec.Checksum != rdbio.ChecksumAbsent {
			t.Fatalf("trailer %s", rec.Checksum)
		}
		x := record{kind: rec.Kind, db: rec.DB, key: string(rec.Key), expire: rec.Expire,
			size: rec.DBSize, expires: rec.ExpiresSize}
		switch rec.Kind {
		case rdbio.KindAux:
			x.key, x.value = string(rec.Name), string(rec.Value)
		case rdbio.KindFunction:
			x.value = string(rec.Value)
		case rdbio.KindSlotInfo:
			x.db = rec.Slot
		case rdbio.KindKey:
			var v bytes.Buffer
			if err := r.Value().Copy(&v); err != nil {
				t.Fatal(err)
			}
			x.value = v.String()
		}
		out = append(out, x)
	}
}
