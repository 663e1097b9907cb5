package reshape

import (
	"context"
	"fmt"
	"io"

	"github.com/rdbz/rdbz/rdbio"
)

// gate is the Reader's sink. It holds the bytes of the records the Reader
// passes on until the loop knows where they go: a record's bytes are
// complete only when the next record starts (an AUX record reaches the
// sink then), and a key's prefix records (expiry, idle, freq, metadata)
// wait for the key. Values do not pass through it: they go from the
// Reader straight to their output (through).
type gate struct {
	held   []byte
	heldAt int64 // input offset of held[0]
	max    int
}

// gateSlack is what a gate may hold beyond the string cap: a key's prefix
// records and a record's headers.
const gateSlack = 64 << 10

func newGate(r *rdbio.Filter, opt rdbio.Options) (*gate, error) {
	g := &gate{heldAt: r.Offset(), max: opt.CapBytes() + gateSlack}
	return g, r.SetSink(g)
}

// Write holds p, the next bytes of the input.
func (g *gate) Write(p []byte) (int, error) {
	if len(g.held)+len(p) > g.max {
		return 0, fmt.Errorf("%w: a record from offset %d holds over %d bytes, more than is held while deciding where it goes (--cap)",
			rdbio.ErrTooLarge, g.heldAt, g.max)
	}
	g.held = append(g.held, p...)
	return len(p), nil
}

// pass hands the held bytes before offset upTo (the records before the
// one that starts there) to fn, nil to leave them out, and lets them go.
func (g *gate) pass(upTo int64, fn func([]byte) error) error {
	n := int(min(max(upTo-g.heldAt, 0), int64(len(g.held))))
	var err error
	if fn != nil && n > 0 {
		err = fn(g.held[:n])
	}
	k := copy(g.held, g.held[n:])
	g.held = g.held[:k]
	g.heldAt += int64(n)
	return err
}

// gap moves the gate past the input bytes [from, to) that never reached
// it (the filter left them out): what is held before from goes to fn (nil
// leaves it out), or, with hold, stays held as if it stood right before
// to (a key's prefix records, which wait for it); what is held after from
// is the input's from to on.
func (g *gate) gap(from, to int64, hold bool, fn func([]byte) error) error {
	if hold {
		g.heldAt += to - from
		return nil
	}
	err := g.pass(from, fn)
	g.heldAt = to
	return err
}

// skipTo lets go of everything held and of the input bytes before off that
// went around the gate (a value).
func (g *gate) skipTo(off int64) {
	g.held = g.held[:0]
	g.heldAt = off
}

// through is the writer of a key's value, which the Reader sends around
// the gate: it writes what the gate holds (the key and its prefix
// records) first.
type through struct {
	g   *gate
	out io.Writer
}

func (t through) Write(p []byte) (int, error) {
	if err := t.flush(); err != nil {
		return 0, err
	}
	return t.out.Write(p)
}

// flush writes what the gate holds.
func (t through) flush() error {
	if len(t.g.held) == 0 {
		return nil
	}
	_, err := t.out.Write(t.g.held)
	t.g.held = t.g.held[:0]
	return err
}

// copyValue sends the pending key's held records and its value, as
// stored, to out (nil: leaves them out), and moves the gate past them.
func (g *gate) copyValue(r *rdbio.Filter, out io.Writer) error {
	t := through{g, out}
	if out == nil {
		t.out = io.Discard
	}
	err := r.Value().Copy(t)
	if err == nil {
		err = t.flush()
	}
	g.skipTo(r.Offset())
	return err
}

// router says where records go: deliver the bytes of a record whose
// destination is d, key writes a key with its value (or leaves them out),
// other gives the destination of any other record.
type router interface {
	deliver(d dest) func([]byte) error
	key(rec *rdbio.Record) error
	other(rec *rdbio.Record) (dest, error)
}

// route reads the records of r up to its EOF and hands each to rt. A
// record's bytes go where rt said once the next record starts (they are
// complete then); a key's prefix records (toPrefix) wait for the key. The
// bytes a filter left out lie right before the record that follows them:
// the gate moves past them.
func route(ctx context.Context, r *rdbio.Filter, g *gate, rt router) error {
	pending := toNone
	var left int64 // the input bytes the filter left out so far
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		rec, err := r.Next()
		if err != nil {
			return unwalkable(err)
		}
		if n := r.Filtered().Bytes - left; n > 0 {
			left += n
			if err := g.gap(rec.Offset-n, rec.Offset, pending == toPrefix, rt.deliver(pending)); err != nil {
				return err
			}
		}
		if pending != toPrefix {
			if err := g.pass(rec.Offset, rt.deliver(pending)); err != nil {
				return err
			}
		}
		switch rec.Kind {
		case rdbio.KindEOF:
			return nil
		case rdbio.KindKey:
			pending, err = toNone, rt.key(rec)
		default:
			pending, err = rt.other(rec)
		}
		if err != nil {
			return err
		}
	}
}
