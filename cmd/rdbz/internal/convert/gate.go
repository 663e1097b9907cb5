package convert

import (
	"fmt"
	"io"

	"github.com/rdbz/rdbz/rdbio"
)

// gate is the Reader's sink. It holds the bytes the Reader passes on until
// the conversion loop commits them, so that a record can still be left out
// (or replaced) after Next has returned it, and a key's prefix records
// (expiry, idle, freq) can go with the key. Committed bytes reach the
// output in input order, the cut ranges left out or replaced. It holds at
// most the records since the last commit: one record and a key's prefix,
// as values pass through Through without being held.
type gate struct {
	out    io.Writer
	held   []byte
	heldAt int64 // input offset of held[0]
	cuts   []cut
	// max bounds the held bytes: a record (module aux data, a function
	// library) larger than the string cap and a little more is refused
	// rather than held whole.
	max int
}

// gateSlack is what a gate may hold beyond the string cap: a key's prefix
// records and a record's headers.
const gateSlack = 64 << 10

// cut leaves the input bytes [from, to) out of the output, writing with in
// their place.
type cut struct {
	from, to int64
	with     []byte
	wrote    bool
}

// Write holds p, the next bytes of the input.
func (g *gate) Write(p []byte) (int, error) {
	if g.max > 0 && len(g.held)+len(p) > g.max {
		return 0, fmt.Errorf("%w: a record from offset %d holds over %d bytes, more than convert holds while it decides where it goes (--cap)",
			rdbio.ErrTooLarge, g.heldAt, g.max)
	}
	g.held = append(g.held, p...)
	return len(p), nil
}

// cutOut registers a cut; from must not precede the committed bytes and
// cuts come in input order.
func (g *gate) cutOut(from, to int64, with []byte) {
	g.cuts = append(g.cuts, cut{from: from, to: to, with: with})
}

// commit writes the held bytes before offset upTo, applying the cuts.
func (g *gate) commit(upTo int64) error {
	end := min(upTo, g.heldAt+int64(len(g.held)))
	at := g.heldAt
	for at < end {
		next := end
		if len(g.cuts) > 0 {
			c := &g.cuts[0]
			if c.from <= at {
				if !c.wrote {
					if _, err := g.out.Write(c.with); err != nil {
						return err
					}
					c.wrote = true
				}
				at = min(c.to, end)
				if at == c.to {
					g.cuts = g.cuts[1:]
				}
				continue
			}
			next = min(next, c.from)
		}
		if _, err := g.out.Write(g.held[at-g.heldAt : next-g.heldAt]); err != nil {
			return err
		}
		at = next
	}
	g.held = append(g.held[:0], g.held[at-g.heldAt:]...)
	g.heldAt = at
	return nil
}

// commitAll writes everything held.
func (g *gate) commitAll() error { return g.commit(g.heldAt + int64(len(g.held))) }

// skipTo drops everything held, which a cut covers, and the input bytes
// before off that the Reader sent around the gate (a dropped value).
func (g *gate) skipTo(off int64) error {
	if err := g.commit(off); err != nil {
		return err
	}
	if len(g.held) > 0 {
		return fmt.Errorf("convert: %d bytes held past offset %d", len(g.held), off)
	}
	g.heldAt = off
	return nil
}

// gap moves the gate past the input bytes [from, to) that never reached
// it (the Reader left them out): what is held before from is written, and
// what is held after it is the input's from to on.
func (g *gate) gap(from, to int64) error {
	if err := g.commit(from); err != nil {
		return err
	}
	g.heldAt = to
	return nil
}

// replaced writes what is held, then b in place of the input bytes that
// went around the gate up to offset to (a re-encoded part of a value).
func (g *gate) replaced(b []byte, to int64) error {
	if err := g.commitAll(); err != nil {
		return err
	}
	if _, err := g.out.Write(b); err != nil {
		return err
	}
	g.heldAt = to
	return nil
}

// streamed is replaced for a part of a value re-encoded as a stream (a
// PLAIN list node over the cap): it writes what is held, then head, then
// what body writes to the output (body reads the input bytes that go
// around the gate: what it consumes must not reach the gate), then tail,
// and goes on after the input bytes consumed so far, at end() (the
// Reader's offset).
func (g *gate) streamed(head []byte, body func(io.Writer) error, tail []byte, end func() int64) error {
	if err := g.commitAll(); err != nil {
		return err
	}
	if _, err := g.out.Write(head); err != nil {
		return err
	}
	if err := body(g.out); err != nil {
		return err
	}
	if len(g.held) > 0 {
		return fmt.Errorf("convert: %d input bytes reached the gate while a value part from offset %d was streamed", len(g.held), g.heldAt)
	}
	if _, err := g.out.Write(tail); err != nil {
		return err
	}
	g.heldAt = end()
	return nil
}

// through is a writer for a value's bytes, as stored, which the Reader
// sends around the sink: it commits what is held (the key before the
// value) first, and counts the bytes as passed.
type through struct{ g *gate }

func (t through) Write(p []byte) (int, error) {
	if err := t.g.commitAll(); err != nil {
		return 0, err
	}
	n, err := t.g.out.Write(p)
	t.g.heldAt += int64(n)
	return n, err
}

// rewritten is a writer for a value rewritten on its way (parts left out
// or changed), which the Reader sends around the sink: it commits what is
// held (the key before the value) first; the input offsets of what it
// writes are not the gate's to count, so the caller moves the gate past
// the value with skipTo when the value is done.
type rewritten struct{ g *gate }

func (t rewritten) Write(p []byte) (int, error) {
	if err := t.g.commitAll(); err != nil {
		return 0, err
	}
	return t.g.out.Write(p)
}
