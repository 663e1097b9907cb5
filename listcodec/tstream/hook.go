package tstream

import (
	"fmt"
	"io"

	"github.com/rdbz/rdbz/rdbio"
	"github.com/rdbz/rdbz/rdbio/lzf"
)

// rewrite is the string rewrite of a T stream, the rdbio.StringHook of
// EncodeT's and DecodeT's Readers: toT turns faithful LZF strings into
// 0xC5 ones; otherwise the input is T and strings are stored as target
// says. The strings of values it may hand to the pipe (stringTaker) when
// they go straight to it.
type rewrite struct {
	mode
	cheap bool // the strings of values go raw, whatever the mode says
	cap   int
	st    *TStats
	work  strWork
}

// mode is what a rewrite makes of strings.
type mode struct {
	toT    bool
	target Target
	// shadow: the sink also sums the original form of each string it
	// rewrites (altSink), T's 0xC5 strings LZF-encoded as --to original
	// writes them.
	shadow bool
}

// The first bytes of LZF and 0xC5 strings.
const (
	lzfByte = 0xC3
	tByte   = 0xC0 | rdbio.EncodingT
)

// costly tells whether rewriting a string of encoding enc takes an LZF
// encoder or decoder (not just a new prefix): worth another goroutine.
func (m mode) costly(enc rdbio.Enc) bool {
	return enc == rdbio.EncLZF || m.toT || m.target != TargetRaw
}

// wants tells, from a string's first byte, whether the rewrite may change it.
func (m mode) wants(b byte) bool {
	switch {
	case m.toT:
		return b == lzfByte
	case m.target == TargetOriginal:
		return b == tByte
	case b == lzfByte || b == tByte:
		return true
	}
	// TargetLZF: a raw string longer than 20 bytes (6-bit lengths up to
	// 20 are told by their first byte).
	return m.target == TargetLZF && b>>6 != 3 && b > 20
}

// modeFor is the mode of a string: cheap makes the strings of values raw.
func (w *rewrite) modeFor(skip bool) mode {
	m := w.mode
	if w.cheap && skip && !m.toT {
		m.target = TargetRaw
	}
	return m
}

// Wants is rdbio.StringHook's.
func (w *rewrite) Wants(b byte, skip bool) bool { return w.modeFor(skip).wants(b) }

// String rewrites a string (rdbio.StringHook).
func (w *rewrite) String(sink io.Writer, s *rdbio.String) ([]byte, error) {
	m := w.modeFor(s.Skip)
	switch {
	case s.Payload == nil:
		return nil, w.long(m, sink, s)
	case s.Enc == rdbio.EncRaw && s.Size <= 20:
		return s.Payload, send(sink, s.Prefix, s.Payload)
	}
	if t, ok := sink.(stringTaker); ok {
		if s.Skip && s.ULen <= pipeMaxString && m.costly(s.Enc) {
			if took, err := t.take(s.Enc, s.Prefix, s.Payload, int(s.ULen), s.Offset); took || err != nil {
				return nil, err
			}
		}
		// Done here, sent after what the pipe holds. A large one is not
		// copied into a batch: the pipe is drained first.
		if s.ULen > pipeMaxString {
			if err := t.drain(); err != nil {
				return nil, err
			}
		}
	}
	head, body, dec, err := w.work.rewrite(m, s.Enc, s.Prefix, s.Payload, int(s.ULen), w.st)
	if err != nil {
		return nil, fmt.Errorf("%w (string at offset %d)", err, s.Offset)
	}
	if !m.shadow {
		return dec, send(sink, head, body)
	}
	oh, ob, err := w.work.original(s.Enc, s.Prefix, s.Payload, dec, head, body)
	if err != nil {
		return nil, fmt.Errorf("%w (string at offset %d)", err, s.Offset)
	}
	return dec, sendAlt(sink, head, body, oh, ob)
}

// long does a string over the cap: a 0xC5 one is an error, an LZF one
// decoded as it is read for TargetRaw (streamRaw); the others go on as
// stored, their payload streamed.
func (w *rewrite) long(m mode, sink io.Writer, s *rdbio.String) error {
	switch {
	case s.Enc == rdbio.EncT:
		return fmt.Errorf("%w: 0xC5 string at offset %d claims %d bytes, over the cap of %d", rdbio.ErrTooLarge, s.Offset, s.ULen, w.cap)
	case s.Enc == rdbio.EncLZF && !m.toT && m.target == TargetRaw:
		return w.streamRaw(m, sink, s)
	case s.Enc == rdbio.EncLZF && w.st != nil:
		w.st.OverCap++
	}
	if err := send(sink, s.Prefix, nil); err != nil {
		return err
	}
	_, err := io.Copy(sink, s)
	return err
}

// streamRaw writes an LZF string longer than the cap as a raw one (--to
// raw), decoding it as it is read.
func (w *rewrite) streamRaw(m mode, sink io.Writer, s *rdbio.String) error {
	var head [10]byte
	if err := sendAlt(sink, rdbio.AppendLen(head[:0], s.ULen), nil, s.Prefix); err != nil {
		return err
	}
	if t, ok := sink.(stringTaker); ok {
		if err := t.drain(); err != nil { // the decoded bytes go straight on
			return err
		}
	}
	var comp io.Reader = s
	out := sink
	if a, ok := sink.(altSink); ok && m.shadow {
		// The stored LZF bytes are the original's, the decoded ones
		// the output's.
		comp, out = io.TeeReader(comp, origWriter{a}), outWriter{a}
	}
	n, err := io.Copy(out, lzf.NewReader(comp, int64(s.ULen)))
	if err == nil && n != int64(s.ULen) {
		err = fmt.Errorf("%w: LZF string decodes to %d bytes, not %d", rdbio.ErrCorrupt, n, s.ULen)
	}
	return err
}

// origWriter and outWriter write to one side of an altSink.
type origWriter struct{ a altSink }

func (o origWriter) Write(p []byte) (int, error) { return len(p), o.a.WriteOrig(p) }

type outWriter struct{ a altSink }

func (o outWriter) Write(p []byte) (int, error) { return len(p), o.a.WriteOut(p) }

// send writes a string's replacement, head then body, to the sink.
func send(sink io.Writer, head, body []byte) error {
	if _, err := sink.Write(head); err != nil {
		return err
	}
	if len(body) == 0 {
		return nil
	}
	_, err := sink.Write(body)
	return err
}

// sendAlt writes a string's replacement (head, body) to the sink, and its
// original form (orig...) to the shadow sum when the sink keeps one.
func sendAlt(sink io.Writer, head, body []byte, orig ...[]byte) error {
	a, ok := sink.(altSink)
	if !ok {
		return send(sink, head, body)
	}
	for _, p := range [][]byte{head, body} {
		if len(p) > 0 {
			if err := a.WriteOut(p); err != nil {
				return err
			}
		}
	}
	for _, p := range orig {
		if len(p) > 0 {
			if err := a.WriteOrig(p); err != nil {
				return err
			}
		}
	}
	return nil
}
