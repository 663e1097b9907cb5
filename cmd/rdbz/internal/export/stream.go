package export

import (
	"fmt"
	"strconv"

	"github.com/rdbz/rdbz/rdbio"
)

// A stream as plain commands: XADD for each entry; XSETID for its last ID
// (with ENTRIESADDED and MAXDELETEDID where the target has them); per group
// XGROUP CREATE (ENTRIESREAD), per consumer XGROUP CREATECONSUMER and
// XCLAIM ... TIME RETRYCOUNT FORCE JUSTID for its pending entries, which
// restores each entry's delivery time and count. A consumer's seen and
// active times become the time of the import (no command sets them).

// tmpGroup creates an empty stream (XGROUP CREATE ... MKSTREAM), then goes.
const tmpGroup = "rdbz-export-empty-stream"

// streamState is the stream being written.
type streamState struct {
	entries  int64
	version  int // of the stream type (StreamMeta.Version)
	first    rdbio.StreamID
	last     rdbio.StreamID
	group    []byte
	consumer []byte
	pel      map[rdbio.StreamID]pelEntry // the group's PEL, for its consumers' XCLAIMs
	claim    []rdbio.StreamID            // IDs of one XCLAIM: same delivery time and count
	at       pelEntry
}

type pelEntry struct {
	time  int64
	count uint64
}

// maxPEL bounds a group's PEL held for its consumers (about 48 bytes an
// entry): what the cap allows.
func (p *plain) maxPEL() int { return max(p.lim.Bytes, p.capBytes) / 48 }

func (p *plain) entry(id rdbio.StreamID, kv [][]byte) error {
	st := &p.st
	if st.entries == 0 {
		*st = streamState{pel: st.pel, claim: st.claim[:0]}
	}
	if st.entries == 0 {
		st.first = id
	}
	st.entries++
	p.buf = appendHead(p.buf[:0], 3+len(kv))
	p.buf = appendBulk(appendBulk(p.buf, []byte("XADD")), p.key)
	p.buf = appendBulk(p.buf, []byte(id.String()))
	for _, b := range kv {
		p.buf = appendBulk(p.buf, b)
	}
	return p.send(p.buf)
}

func (p *plain) meta(m *rdbio.StreamMeta) error {
	st := &p.st
	if st.entries == 0 {
		*st = streamState{pel: st.pel, claim: st.claim[:0]}
		g := []byte(tmpGroup)
		if err := p.command([]byte("XGROUP"), []byte("CREATE"), p.key, g, []byte("0"), []byte("MKSTREAM")); err != nil {
			return err
		}
		if err := p.command([]byte("XGROUP"), []byte("DESTROY"), p.key, g); err != nil {
			return err
		}
	}
	st.version, st.last = m.Version, m.LastID
	args := [][]byte{[]byte("XSETID"), p.key, []byte(m.LastID.String())}
	if m.Version >= 2 {
		if p.feat.streamMeta {
			args = append(args, []byte("ENTRIESADDED"), strconv.AppendUint(nil, m.EntriesAdded, 10),
				[]byte("MAXDELETEDID"), []byte(m.MaxDeletedID.String()))
		} else if err := p.rep.skip("stream metadata", p.key, p.k.rec.Offset, "the target has no XSETID ENTRIESADDED / MAXDELETEDID (redis 7.0)"); err != nil {
			return err
		}
	}
	return p.command(args...)
}

func (p *plain) group(e *rdbio.Elem) error {
	st := &p.st
	if err := p.flushClaim(); err != nil {
		return err
	}
	st.group, st.consumer = append(st.group[:0], e.Name...), st.consumer[:0]
	clear(st.pel)
	if st.pel == nil {
		st.pel = map[rdbio.StreamID]pelEntry{}
	}
	args := [][]byte{[]byte("XGROUP"), []byte("CREATE"), p.key, st.group, []byte(e.LastID.String())}
	switch {
	case p.st.version < 2 && p.feat.streamMeta: // none stored: what a server loading the stream estimates
		if read := p.st.estimateRead(e.LastID); read >= 0 {
			args = append(args, []byte("ENTRIESREAD"), strconv.AppendInt(nil, read, 10))
		}
	case p.st.version < 2:
	case p.feat.streamMeta:
		args = append(args, []byte("ENTRIESREAD"), strconv.AppendInt(nil, e.Read, 10))
	case e.Read >= 0:
		if err := p.rep.skip("stream metadata", p.key, p.k.rec.Offset, "the target has no XGROUP ENTRIESREAD (redis 7.0)"); err != nil {
			return err
		}
	}
	return p.command(args...)
}

func (p *plain) pending(id rdbio.StreamID, time int64, count uint64) error {
	if len(p.st.pel) >= p.maxPEL() {
		return fmt.Errorf("consumer group %q with over %d pending entries (raise --cap): %w", p.st.group, p.maxPEL(), rdbio.ErrTooLarge)
	}
	p.st.pel[id] = pelEntry{time, count}
	return nil
}

func (p *plain) consumer(e *rdbio.Elem) error {
	st := &p.st
	if err := p.flushClaim(); err != nil {
		return err
	}
	st.consumer = append(st.consumer[:0], e.Name...)
	return p.command([]byte("XGROUP"), []byte("CREATECONSUMER"), p.key, st.group, st.consumer)
}

func (p *plain) consumerID(id rdbio.StreamID) error {
	st := &p.st
	at, ok := st.pel[id]
	if !ok {
		at = pelEntry{count: 1}
	}
	if len(st.claim) > 0 && at != st.at {
		if err := p.flushClaim(); err != nil {
			return err
		}
	}
	st.at = at
	st.claim = append(st.claim, id)
	if len(st.claim) >= p.lim.Args {
		return p.flushClaim()
	}
	return nil
}

// flushClaim sends the XCLAIM of the IDs gathered.
func (p *plain) flushClaim() error {
	st := &p.st
	if len(st.claim) == 0 {
		return nil
	}
	p.buf = appendHead(p.buf[:0], 5+len(st.claim)+6)
	for _, a := range [][]byte{[]byte("XCLAIM"), p.key, st.group, st.consumer, []byte("0")} {
		p.buf = appendBulk(p.buf, a)
	}
	for _, id := range st.claim {
		p.buf = appendBulk(p.buf, []byte(id.String()))
	}
	p.buf = appendBulk(p.buf, []byte("TIME"))
	p.buf = appendBulk(p.buf, strconv.AppendInt(p.num[:0], st.at.time, 10))
	p.buf = appendBulk(p.buf, []byte("RETRYCOUNT"))
	p.buf = appendBulk(p.buf, strconv.AppendUint(p.num[:0], st.at.count, 10))
	p.buf = appendBulk(p.buf, []byte("FORCE"))
	p.buf = appendBulk(p.buf, []byte("JUSTID"))
	st.claim = st.claim[:0]
	return p.send(p.buf)
}

// endStream ends a stream's commands.
func (p *plain) endStream() error {
	err := p.flushClaim()
	p.st.entries = 0
	return err
}

// estimateRead is the entries-read of a group whose last ID is id in a
// stream of type 15, which stores none: what redis 7.0 estimates when it
// loads one (rdb.c, streamEstimateDistanceFromFirstEverEntry, with
// entries-added the length and no deleted entries): exact at the first and
// last entries and before the first, else unknown (-1).
func (st *streamState) estimateRead(id rdbio.StreamID) int64 {
	n := st.entries
	switch c := compareIDs(id, st.last); {
	case n == 0:
		return 0
	case c == 0:
		return n
	case c > 0:
		return -1
	}
	switch compareIDs(id, st.first) {
	case -1:
		return 0
	case 0:
		return 1
	}
	return -1
}

// compareIDs is -1, 0 or 1 as a is before, at or after b.
func compareIDs(a, b rdbio.StreamID) int {
	switch {
	case a == b:
		return 0
	case a.Ms < b.Ms || a.Ms == b.Ms && a.Seq < b.Seq:
		return -1
	}
	return 1
}
