package export

import (
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/rdbz/rdbz/rdbio"
	"github.com/rdbz/rdbz/rdbio/crc64"
)

// AppendDumpFooter ends a DUMP payload — the value's type byte and the
// value as the RDB stores it — as redis's createDumpPayload does
// (src/cluster.c): the RDB version as 2 bytes little-endian, then the
// CRC-64 (docs/rdb-format.md §7) of everything before it, 8 bytes
// little-endian. RESTORE refuses a payload whose version is above the
// server's own RDB version (verifyDumpPayload).
func AppendDumpFooter(payload []byte, version int) []byte {
	payload = binary.LittleEndian.AppendUint16(payload, uint16(version))
	return binary.LittleEndian.AppendUint64(payload, crc64.Update(0, payload))
}

// restorer writes keys as RESTORE commands and function libraries as
// FUNCTION RESTORE.
type restorer struct {
	plain   *plain // SELECT, and the output
	version int    // of the payloads: the RDB's
	limit   int    // the payload held in memory at most (the cap, at most maxHeldPayload)
	buf     spill
	num     []byte
}

// key writes RESTORE key ttl payload REPLACE ABSTTL [IDLETIME s | FREQ n]:
// the value copied as stored, in memory up to d.limit and in a temporary
// file beyond it.
func (d *restorer) key(v rdbio.Value, k *keyInfo) error {
	rec := k.rec
	d.buf.reset(d.limit)
	defer d.buf.close()
	d.buf.Write([]byte{rec.Op})
	if err := v.Copy(&d.buf); err != nil {
		return err
	}
	if d.buf.err != nil {
		return fmt.Errorf("RESTORE payload over the cap, in a temporary file: %w", d.buf.err)
	}
	p := d.plain
	if err := p.selectDB(rec.DB); err != nil {
		return err
	}
	ttl := max(rec.Expire, 0)
	if rec.Expire == 0 {
		ttl = 1 // expired at the epoch: 0 would mean none
	}
	after := [][]byte{[]byte("REPLACE"), []byte("ABSTTL")}
	switch {
	case rec.Freq >= 0:
		after = append(after, []byte("FREQ"), strconv.AppendInt(nil, int64(rec.Freq), 10))
	case rec.Idle > 0:
		after = append(after, []byte("IDLETIME"), strconv.AppendUint(nil, rec.Idle, 10))
	}
	p.buf = appendHead(p.buf[:0], 4+len(after))
	for _, a := range [][]byte{[]byte("RESTORE"), rec.Key, strconv.AppendInt(d.num[:0], ttl, 10)} {
		p.buf = appendBulk(p.buf, a)
	}
	if err := p.send(d.buf.payload(p.buf, d.version)); err != nil {
		return err
	}
	if err := d.buf.rest(p.w); err != nil {
		return err
	}
	p.buf = append(d.buf.footer(p.buf[:0], d.version), '\r', '\n')
	for _, a := range after {
		p.buf = appendBulk(p.buf, a)
	}
	_, err := p.w.Write(p.buf)
	return err
}

// spill holds a payload: its first bytes in memory, up to max, the rest in
// an unlinked temporary file; it keeps the CRC-64 and length of it all.
// Writes never fail (the error is kept), as for a CappedBuffer.
type spill struct {
	mem []byte
	max int
	f   *os.File
	n   int64
	crc uint64
	err error
}

func (s *spill) reset(max int) {
	s.mem, s.max, s.n, s.crc, s.err = s.mem[:0], max, 0, 0, nil
}

func (s *spill) Write(p []byte) (int, error) {
	s.crc = crc64.Update(s.crc, p)
	s.n += int64(len(p))
	if s.f == nil && len(s.mem)+len(p) <= s.max {
		s.mem = append(s.mem, p...)
		return len(p), nil
	}
	if s.err == nil && s.f == nil {
		s.f, s.err = os.CreateTemp("", "rdbz-export-*")
		if s.err == nil {
			s.err = os.Remove(s.f.Name()) // gone when closed, whatever happens
		}
	}
	if s.err == nil {
		_, s.err = s.f.Write(p)
	}
	return len(p), nil
}

// payload appends to dst the bulk string header of the whole payload (the
// bytes held and the footer) and the bytes held in memory.
func (s *spill) payload(dst []byte, version int) []byte {
	return append(appendBulkHead(dst, uint64(s.n)+10), s.mem...)
}

// rest copies the bytes held in the file to w.
func (s *spill) rest(w io.Writer) error {
	if s.f == nil {
		return nil
	}
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	_, err := io.Copy(w, s.f)
	return err
}

// footer appends the payload's footer (AppendDumpFooter's) to dst.
func (s *spill) footer(dst []byte, version int) []byte {
	var v [2]byte
	binary.LittleEndian.PutUint16(v[:], uint16(version))
	dst = append(dst, v[:]...)
	return binary.LittleEndian.AppendUint64(dst, crc64.Update(s.crc, v[:]))
}

// close drops the temporary file.
func (s *spill) close() {
	if s.f != nil {
		s.f.Close()
		s.f = nil
	}
	if cap(s.mem) > 1<<20 && s.n < 1<<20 {
		s.mem = nil // do not keep a large buffer for small values
	}
}

// function writes FUNCTION RESTORE of one library: its FUNCTION2 record
// (opcode and code) as the payload, REPLACE.
func (d *restorer) function(code []byte) error {
	if !d.plain.feat.functions {
		return d.plain.function(code) // counted as left out
	}
	b := rdbio.AppendLen([]byte{rdbio.OpFunction2}, uint64(len(code)))
	b = AppendDumpFooter(append(b, code...), d.version)
	return d.plain.command([]byte("FUNCTION"), []byte("RESTORE"), b, []byte("REPLACE"))
}
