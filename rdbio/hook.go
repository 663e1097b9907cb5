package rdbio

import "io"

// A StringHook sees the strings a Reader reads, as it reads them, and
// chooses what goes to the sink in their place (Reader.SetStringHook):
// format 2 (listcodec/tstream) stores each LZF string decoded, as 0xC5,
// and turns such strings back into LZF or raw ones on the way out.
//
// The hook is asked about every string — keys, AUX fields, the strings
// of values, list nodes — by its first byte (Wants), and shown those it
// wants (String) while the Reader has an output: the strings read with
// none (a value read through Decode or Visit, or one a Filter leaves out)
// are read as they are. A first byte 0xC5 (EncodingT), which no server
// writes, is a string's only where the hook wants it.
type StringHook interface {
	// Wants tells from a string's first byte whether String is to see
	// it. skip says that the Reader walks past the string (a string of a
	// value that it only skips); otherwise it reads the string's bytes (a
	// key, an AUX field) or its payload.
	Wants(first byte, skip bool) bool
	// String is given a string it wants, its prefix read: it writes to w
	// (the Reader's output) what goes on in the string's place, and
	// returns the string's decoded bytes unless s.Skip (valid until the
	// next string is read). Within the cap, s.Payload holds the stored
	// payload; over it, Payload is nil and String reads the payload from
	// s as it streams (what it leaves unread is left out). A string over
	// the cap that the Reader would hold is never shown: it goes on as
	// stored, and the Reader refuses it (ErrTooLarge). An error ends the
	// read; the Reader reports it at the string.
	String(w io.Writer, s *String) ([]byte, error)
}

// String is a string a StringHook is shown.
type String struct {
	Enc    Enc    // how it is stored
	Prefix []byte // the prefix as stored: the encoding byte and lengths
	Size   uint64 // stored payload bytes after the prefix
	ULen   uint64 // decoded bytes (Size for a raw string)
	Offset int64  // input offset of its first byte
	// Skip says that the Reader walks past the string: String need not
	// return its bytes, and may do its work later (on another goroutine),
	// as long as what it writes to w keeps its place.
	Skip bool
	// Payload is the stored payload when Size and ULen are within the
	// cap, else nil (Read).
	Payload []byte
	in      *input
	left    uint64 // payload bytes not yet read
}

// Read reads the payload of a string over the cap, consuming it.
func (s *String) Read(p []byte) (int, error) {
	if s.left == 0 {
		return 0, io.EOF
	}
	pr := payloadReader{in: s.in, left: s.left}
	n, err := pr.Read(p)
	s.left = pr.left
	return n, err
}

// SetStringHook shows the strings read from now on to h (nil: none).
func (r *Reader) SetStringHook(h StringHook) { r.hook = h }

// hooked reads a string's prefix (skip: the grammar walks past the
// string). A string the StringHook wants is shown to it while there is an
// output: the string is then consumed (done) and its replacement sent on.
func (r *Reader) hooked(skip bool) (strHead, error) {
	in := r.in
	if r.hook == nil {
		return in.plainHeader(false)
	}
	if err := in.fill(1); err != nil {
		return strHead{}, err
	}
	switch {
	case !r.hook.Wants(in.buf[in.pos], skip):
		return in.plainHeader(false)
	case in.out == nil: // nothing goes on: read as it is
		return in.plainHeader(true)
	}
	return r.show(skip)
}

// show reads the prefix of a string the StringHook wants, then its
// payload within the cap, and gives the string to the hook.
func (r *Reader) show(skip bool) (strHead, error) {
	in, b := r.in, &r.bufs
	start := in.offset()
	if err := in.flush(); err != nil { // what stands before the string goes on
		return strHead{}, err
	}
	out := in.out
	b.prefix = b.prefix[:0]
	in.out = &b.prefix
	h, err := in.plainHeader(true)
	if err == nil {
		err = in.flush()
	}
	in.out = out
	if err != nil {
		return strHead{}, err
	}
	limit := uint64(r.opt.Cap)
	over := h.size > limit || h.ulen > limit
	if over && !skip {
		_, err := out.Write(b.prefix)
		return h, wrapSink(err)
	}
	s := &b.shown
	*s = String{Enc: h.enc, Prefix: b.prefix, Size: h.size, ULen: h.ulen, Offset: start, Skip: skip, in: in, left: h.size}
	in.out = nil
	defer func() { in.out = out }()
	if !over {
		if b.payload, err = in.appendN(b.payload[:0], h.size); err != nil {
			return strHead{}, err
		}
		s.Payload, s.left = b.payload, 0
	}
	dec, err := r.hook.String(out, s)
	if err == nil {
		err = in.skip(s.left) // what the hook did not read
	}
	if err == nil {
		err = in.flush()
	}
	return strHead{enc: EncRaw, ulen: h.ulen, done: true, data: dec}, err
}

// wrapSink marks a failure of the sink as the caller's.
func wrapSink(err error) error {
	if err == nil {
		return nil
	}
	return &sinkError{err}
}
