package convert

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/rdbz/rdbz/cmd/rdbz/internal/servers"
	"github.com/rdbz/rdbz/rdbio"
	"github.com/rdbz/rdbz/rdbio/blob"
	"github.com/rdbz/rdbz/rdbio/envelope"
)

// converter is the state of one conversion.
type converter struct {
	ctx    context.Context
	opt    Options
	target servers.Server
	r      *rdbio.Filter
	w      *rdbio.Writer
	g      *gate
	rep    *Report
	prefix int64 // offset of the pending key's first prefix record; -1 for none
	module rdbio.CappedBuffer
	cap    int    // the string cap in effect
	blob   []byte // a decoded blob being re-encoded
	zw     *blob.ZiplistWriter
	refuse error // the first refusal of a dry run
	// leftBytes: the input bytes the filter left out that the gate has
	// been moved past (leftOut).
	leftBytes int64
}

// Convert reads an RDB stream from src and writes to dst a file the target
// of opt loads (see the package comment). It returns the report, also
// when it fails; a refusal wraps ErrRefused and names the key or record and
// its offset.
func Convert(ctx context.Context, dst io.Writer, src io.Reader, opt Options) (*Report, error) {
	t, ok := servers.Lookup(opt.Target)
	if !ok {
		return nil, fmt.Errorf("%w %q", ErrTarget, opt.Target)
	}
	if opt.Envelope.Enveloped() && !t.ReadsEnvelope() {
		return nil, fmt.Errorf("%w: %s (only valkey 9.2 and later do)", ErrEnvelope, t.Name())
	}
	rep := &Report{Target: t.Name(), Items: []Item{}}
	c := &converter{ctx: ctx, opt: opt, target: t, rep: rep, prefix: -1}
	err := c.wrapped(dst, src)
	if err == nil {
		err = c.refuse
	}
	return rep, err
}

// wrapped runs the conversion into dst, in Options.Envelope when set (not
// in a dry run, whose output is discarded).
func (c *converter) wrapped(dst io.Writer, src io.Reader) error {
	if !c.opt.Envelope.Enveloped() || c.opt.DryRun {
		return c.run(dst, src)
	}
	ew, err := envelope.NewWriter(dst, c.opt.Envelope)
	if err != nil {
		return err
	}
	c.rep.ToEnvelope = c.opt.Envelope.Codec.String()
	if err := c.run(ew, src); err != nil {
		return err
	}
	if err := ew.Close(); err != nil {
		return fmt.Errorf("VKCS envelope: %w", err)
	}
	return nil
}

func (c *converter) run(dst io.Writer, src io.Reader) error {
	ro := c.opt.Options
	c.cap = ro.CapBytes()
	rr, err := rdbio.NewReader(src, ro)
	if err != nil {
		return err
	}
	r := rdbio.NewFilter(rr, c.opt.Keep)
	h := r.Header()
	oh := outputHeader(h, c.target)
	c.rep.From, c.rep.To = h.Magic, oh.Magic
	if h.Envelope.Enveloped() {
		c.rep.FromEnvelope = h.Envelope.Codec.String()
	}
	if c.w, err = rdbio.NewWriter(dst, oh); err != nil {
		return err
	}
	c.r = r
	c.g = &gate{out: c.w, heldAt: r.Offset(), max: c.cap + gateSlack}
	if err := r.SetSink(c.g); err != nil {
		return err
	}
	for {
		if err := c.ctx.Err(); err != nil {
			return err
		}
		rec, err := r.Next()
		if err != nil {
			return err
		}
		if err := c.leftOut(rec); err != nil {
			return err
		}
		if rec.Kind == rdbio.KindEOF {
			return c.end(rec)
		}
		if err := c.record(rec); err != nil {
			return err
		}
	}
}

// leftOut moves the gate past the input bytes the filter (Options.Keep)
// left out right before rec: the Filter does not send them.
func (c *converter) leftOut(rec *rdbio.Record) error {
	f := c.r.Filtered()
	c.rep.LeftOut = f.LeftOut
	gap := f.Bytes - c.leftBytes
	if gap == 0 {
		return nil
	}
	c.leftBytes = f.Bytes
	return c.g.gap(rec.Offset-gap, rec.Offset)
}

// record handles one record other than the EOF.
func (c *converter) record(rec *rdbio.Record) error {
	switch rec.Kind {
	case rdbio.KindExpire, rdbio.KindIdle, rdbio.KindFreq:
		if c.prefix < 0 {
			c.prefix = rec.Offset
		}
		if err := c.g.commit(c.prefix); err != nil {
			return err
		}
		if rec.Op == rdbio.OpExpireSec && c.target.Dragonfly() {
			ms := binary.LittleEndian.AppendUint64([]byte{rdbio.OpExpireMs}, uint64(rec.Expire))
			c.g.cutOut(rec.Offset, c.r.Offset(), ms)
			c.rep.add("expire-seconds", Reencoded, nil, false, rec.Offset,
				"second-resolution expiry (opcode 253) → milliseconds (252): Dragonfly reads only these", "")
		}
		return nil
	case rdbio.KindKey:
		return c.key(rec)
	case rdbio.KindAux, rdbio.KindSelectDB, rdbio.KindResizeDB:
		return c.g.commit(rec.Offset) // every server reads these; unknown AUX fields are ignored
	}
	if err := c.g.commit(rec.Offset); err != nil {
		return err
	}
	cause, _ := c.target.OpCause(rec.Op, c.r.Header().Valkey)
	if cause == "" {
		return nil
	}
	k, ok := recordKinds[rec.Kind]
	if !ok {
		k.kind, k.lost = rec.Kind.String(), "the record"
	}
	return c.drop(k.kind, nil, false, rec.Offset, cause, k.lost, false)
}

// drop leaves out the record just read (from its prefix records on) when
// kind may be dropped; otherwise it refuses. read says a key's value has
// been read already.
func (c *converter) drop(kind string, key []byte, isKey bool, off int64, why, lost string, read bool) error {
	from := off
	if c.prefix >= 0 {
		from = c.prefix
	}
	if !c.opt.Drop[kind] && !hintOnly[kind] {
		c.rep.add(kind, Refused, key, isKey, off, why, lost)
		err := c.refusal(kind, key, isKey, off, why, lost)
		if !c.opt.DryRun {
			return err
		}
		if c.refuse == nil {
			c.refuse = err
		}
	} else {
		c.rep.add(kind, Dropped, key, isKey, off, why, lost)
	}
	c.prefix = -1
	if !isKey {
		c.g.cutOut(from, c.r.Offset(), nil)
		return nil
	}
	if !read {
		if err := c.r.Value().Copy(nil); err != nil {
			return err
		}
	}
	// The value went around the gate: everything up to here is flushed.
	c.g.cutOut(from, c.r.Offset(), nil)
	return c.g.skipTo(c.r.Offset())
}

// refusal is the error of a refused record: one the target cannot hold
// (lost: what leaving it out loses), or a value it holds only with a loss
// (lost: that loss).
func (c *converter) refusal(kind string, key []byte, isKey bool, off int64, why, lost string) error {
	what := "record"
	if isKey {
		what = fmt.Sprintf("key %q", key)
	}
	do := "drops these"
	if lost != "the key" && lost != "the record" && isKey {
		do = "accepts the loss"
	}
	return fmt.Errorf("%w: offset %d, %s: %s cannot hold %s (%s); --drop %s %s",
		ErrRefused, off, what, c.target.Name(), kind, why, kind, do)
}

// end writes the trailer and the bytes after it.
func (c *converter) end(eof *rdbio.Record) error {
	if err := c.g.commitAll(); err != nil {
		return err
	}
	if eof.Checksum == rdbio.ChecksumDisabled {
		c.w.SetTrailer(rdbio.TrailerZero)
	}
	if err := c.w.Close(); err != nil {
		return fmt.Errorf("write trailer: %w", err)
	}
	if _, err := c.r.CopyRest(c.w.Rest()); err != nil {
		return fmt.Errorf("copy bytes after the trailer: %w", err)
	}
	return c.w.Flush()
}
