package reshape

import (
	"crypto/sha256"
	"fmt"
	"io"

	"github.com/rdbz/rdbz/cmd/rdbz/internal/extsort"
	"github.com/rdbz/rdbz/rdbio"
)

// dropList gives the ids of the occurrences to leave out, in order.
type dropList struct {
	it   *extsort.Iter[uint64]
	next uint64
	more bool
}

func (d *dropList) advance() error {
	v, ok, err := d.it.Next()
	d.next, d.more = v, ok
	return err
}

// write is the second pass: every input's records, in turn, to dst.
func (m *merger) write(dst io.Writer, drops *extsort.Sorter[uint64]) error {
	it, err := drops.Sort()
	if err != nil {
		return err
	}
	m.drops = &dropList{it: it}
	if err := m.drops.advance(); err != nil {
		return err
	}
	if m.w, err = rdbio.NewWriter(dst, m.hdr); err != nil {
		return err
	}
	m.db, m.written, m.once = -1, map[string]bool{}, map[[sha256.Size]byte]bool{}
	for i, in := range m.inputs {
		if err := m.writeInput(i, in); err != nil {
			return inputError(in, err)
		}
	}
	if m.drops.more {
		return fmt.Errorf("merge: the inputs changed between the two passes (a key to leave out was not met again)")
	}
	if err := m.w.Close(); err != nil {
		return fmt.Errorf("write trailer: %w", err)
	}
	m.rep.Bytes = m.w.Written()
	return nil
}

// writeInput writes the records of input i.
func (m *merger) writeInput(i int, in Input) error {
	src, err := in.Open()
	if err != nil {
		return err
	}
	defer src.Close()
	r, err := rdbio.NewReader(src, m.opt.Options)
	if err != nil {
		return err
	}
	m.r = rdbio.NewFilter(r, m.opt.Keep)
	if m.g, err = newGate(m.r, m.opt.Options); err != nil {
		return err
	}
	m.cur = i
	if err := route(m.ctx, m.r, m.g, m); err != nil {
		return err
	}
	return inputError(in, finish(src))
}

// The destinations of merge's records besides toNone and toPrefix.
const (
	toOut  dest = 0  // the output
	toOnce dest = -9 // the output, unless the same bytes were written already
)

// deliver is where the bytes of a record whose destination is d go.
func (m *merger) deliver(d dest) func([]byte) error {
	switch d {
	case toNone:
		return nil
	case toOnce:
		return func(b []byte) error {
			sum := sha256.Sum256(b)
			if m.once[sum] {
				return nil
			}
			m.once[sum] = true
			_, err := m.w.Write(b)
			return err
		}
	}
	return func(b []byte) error { _, err := m.w.Write(b); return err }
}

// other says where a record other than a key goes.
func (m *merger) other(rec *rdbio.Record) (dest, error) {
	switch rec.Kind {
	case rdbio.KindSelectDB, rdbio.KindResizeDB:
		return toNone, nil // the output has its own
	case rdbio.KindExpire, rdbio.KindIdle, rdbio.KindFreq, rdbio.KindKeyMeta:
		return toPrefix, nil
	case rdbio.KindAux:
		return m.aux(rec), nil
	case rdbio.KindFunction:
		return m.function(rec), nil
	case rdbio.KindSlotInfo:
		return toOut, m.selectDB(rec.DB)
	case rdbio.KindVendor:
		if perKey[rec.Op] {
			return toPrefix, nil
		}
	}
	return toOnce, nil
}

// aux keeps the first AUX field of each name, and every distinct "lua"
// script (Redis ≤ 6 saves each cached script as one).
func (m *merger) aux(rec *rdbio.Record) dest {
	name := string(rec.Name)
	if name == "lua" {
		return toOnce
	}
	if m.written[name] {
		return toNone
	}
	m.written[name] = true
	return toOut
}

// function writes each library once (the first pass refused two that
// differ); a Redis 7.0-rc library once per distinct record.
func (m *merger) function(rec *rdbio.Record) dest {
	if rec.Op != rdbio.OpFunction2 {
		return toOnce
	}
	name := libraryName(rec.Value)
	f := m.funcs[name]
	if f.written {
		m.rep.SameFunctions++
		return toNone
	}
	f.written = true
	m.funcs[name] = f
	m.rep.Functions++
	return toOut
}

// key writes a key with its prefix records and value, or leaves it out
// when the policy keeps another input's.
func (m *merger) key(rec *rdbio.Record) error {
	if id := makeID(m.cur, rec.Offset); m.drops.more && m.drops.next == id {
		if err := m.drops.advance(); err != nil {
			return err
		}
		return m.g.copyValue(m.r, nil)
	}
	if err := m.selectDB(rec.DB); err != nil {
		return err
	}
	m.rep.Keys++
	if rec.Expire >= 0 {
		m.rep.Expires++
	}
	return m.g.copyValue(m.r, m.w)
}

// selectDB selects db in the output, with the RESIZEDB of its total the
// first time.
func (m *merger) selectDB(db uint64) error {
	if m.db == int64(db) {
		return nil
	}
	m.db = int64(db)
	b := rdbio.AppendLen([]byte{rdbio.OpSelectDB}, db)
	if d := m.dbs[db]; d != nil && !d.resized && m.hdr.Version >= 7 { // RESIZEDB came with RDB 7
		d.resized = true
		b = rdbio.AppendLen(append(b, rdbio.OpResizeDB), uint64(d.keys))
		b = rdbio.AppendLen(b, uint64(d.expires))
	}
	_, err := m.w.Write(b)
	return err
}
