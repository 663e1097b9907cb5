package rdbio

// CappedBuffer is a sink that keeps the bytes written to it as long as they
// fit in Max bytes. The first write that would pass Max sets Over, and from
// then on nothing more is kept (Buf holds what came before it). Writes
// never fail, so a CappedBuffer can stand beside a hash in an
// io.MultiWriter: this is capped value capture (a value is held in memory
// only when it is small enough).
type CappedBuffer struct {
	Buf  []byte
	Max  int
	Over bool
}

// Reset empties the buffer, keeping its memory, for up to max bytes.
func (c *CappedBuffer) Reset(max int) {
	c.Buf, c.Max, c.Over = c.Buf[:0], max, false
}

func (c *CappedBuffer) Write(p []byte) (int, error) {
	if !c.Over {
		n := len(c.Buf) + len(p)
		switch {
		case n > c.Max:
			c.Over = true
		case n > cap(c.Buf):
			// Grow as append would, but never past Max: a buffer that
			// fills up to the cap is exactly the cap.
			b := make([]byte, len(c.Buf), min(max(2*cap(c.Buf), n), c.Max))
			copy(b, c.Buf)
			c.Buf = append(b, p...)
		default:
			c.Buf = append(c.Buf, p...)
		}
	}
	return len(p), nil
}
