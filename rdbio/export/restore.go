package export

import (
	"encoding/binary"
	"fmt"
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
	limit   int    // the payload held at most (the cap)
	buf     rdbio.CappedBuffer
	num     []byte
}

// key writes RESTORE key ttl payload REPLACE ABSTTL [IDLETIME s | FREQ n]:
// the value copied as stored, within the cap.
func (d *restorer) key(v rdbio.Value, k *keyInfo) error {
	rec := k.rec
	d.buf.Reset(d.limit)
	d.buf.Write([]byte{rec.Op})
	if err := v.Copy(&d.buf); err != nil {
		return err
	}
	if d.buf.Over {
		return fmt.Errorf("%w: a RESTORE payload over the cap of %d bytes (raise --cap, or export plain commands)", rdbio.ErrTooLarge, d.limit)
	}
	d.buf.Buf = AppendDumpFooter(d.buf.Buf, d.version)
	p := d.plain
	if err := p.selectDB(rec.DB); err != nil {
		return err
	}
	ttl := max(rec.Expire, 0)
	if rec.Expire == 0 {
		ttl = 1 // expired at the epoch: 0 would mean none
	}
	args := [][]byte{[]byte("RESTORE"), rec.Key, strconv.AppendInt(d.num[:0], ttl, 10), d.buf.Buf, []byte("REPLACE"), []byte("ABSTTL")}
	switch {
	case rec.Freq >= 0:
		args = append(args, []byte("FREQ"), strconv.AppendInt(nil, int64(rec.Freq), 10))
	case rec.Idle > 0:
		args = append(args, []byte("IDLETIME"), strconv.AppendUint(nil, rec.Idle, 10))
	}
	return p.command(args...)
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
