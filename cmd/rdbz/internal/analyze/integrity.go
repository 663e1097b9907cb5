package analyze

import (
	"errors"
	"fmt"
	"strings"

	"github.com/rdbz/rdbz/cmd/rdbz/internal/servers"
	"github.com/rdbz/rdbz/rdbio"
	"github.com/rdbz/rdbz/rdbio/blob"
)

// integrity gathers, during the walk, the data problems that make a server
// refuse a file while it loads it: keys written twice in one db, and blobs
// that fail the checks servers make (blob.Check), deep or shallow.
type integrity struct {
	keys *keySet
	now  int64 // Unix ms: a master drops keys whose TTL is past before it adds them
	// blobs[kind] holds the blobs of that kind failing the deep check
	// (deep) and those failing even the shallow one (shallow).
	blobs     [4]struct{ deep, shallow fault }
	unchecked use // blobs over the cap, not checked
	capture   rdbio.CappedBuffer
	dec       []byte
	limit     int // the most bytes of one blob checked
	keysErr   error
}

// fault is a kind of problem: where it is first met, and why.
type fault struct {
	use
	why string
}

func (f *fault) add(key []byte, off int64, why string) {
	if f.n == 0 {
		why = strings.TrimPrefix(why, rdbio.ErrCorrupt.Error()+": ")
		_, f.why, _ = strings.Cut(why, ": ") // less the blob kind, which the cause names
	}
	f.use.add(key, true, off)
}

func newIntegrity(now int64, limit int) *integrity {
	return &integrity{keys: newKeySet(maxKeySlots), now: now, limit: limit}
}

// visitValue is Value.Visit(a.visit) that also checks the blob the value
// is, when it is one: the decoded blob Visit reports. Hashes with field
// expiry, whose blob Visit does not report, are captured and checked
// whole.
func (a *analyzer) visitValue(rec *rdbio.Record) (rdbio.ValueInfo, error) {
	ig := a.compat.integ
	v := a.r.Value()
	kind, per, skip, ok := rec.Type.Blob()
	if !ok {
		return v.Visit(a.visit)
	}
	if rec.Type == rdbio.TypeHashListpackEx || rec.Type == rdbio.TypeHashLpExPreGA {
		ig.capture.Reset(ig.limit + 64)
		vc, err := v.Count(&ig.capture)
		if err == nil {
			ig.value(rec, kind, per, skip)
		}
		return vc, err
	}
	checked := false
	vc, err := v.Visit(func(e *rdbio.Elem) error {
		if e.Kind == rdbio.ElemBlob && !checked {
			checked = true
			ig.blob(rec, kind, per, e)
		}
		return a.visit(e)
	})
	return vc, err
}

// blob checks the blob Value.Visit reported. Without its bytes it is over
// the cap (not checked), stored as an integer (whose digits no server
// takes for a blob: every blob kind's header rules them out) or LZF that
// does not decode (every server refuses it).
func (ig *integrity) blob(rec *rdbio.Record, kind blob.Kind, per int, e *rdbio.Elem) {
	switch {
	case e.Data != nil:
		ig.check(rec, kind, per, e.Data)
	case e.Bad:
		ig.decodeFailed(rec, kind, fmt.Errorf("%w: LZF blob does not decode", rdbio.ErrCorrupt))
	case e.Len > uint64(ig.limit):
		ig.unchecked.add(rec.Key, true, rec.Offset)
	default:
		ig.decodeFailed(rec, kind, fmt.Errorf("%w: blob stored as an integer", rdbio.ErrCorrupt))
	}
}

// value checks the captured value of a blob type.
func (ig *integrity) value(rec *rdbio.Record, kind blob.Kind, per, skip int) {
	if ig.capture.Over {
		ig.unchecked.add(rec.Key, true, rec.Offset)
		return
	}
	b, err := rdbio.DecodeValueBlob(ig.dec[:0], ig.capture.Buf, skip, ig.limit)
	if err != nil {
		ig.decodeFailed(rec, kind, err)
		return
	}
	ig.dec = b
	ig.check(rec, kind, per, b)
}

// node checks a PACKED list node.
func (ig *integrity) node(rec *rdbio.Record, n *rdbio.Node) {
	if n.Container == 1 || n.Enc == rdbio.EncInt || n.Enc == rdbio.EncZstd {
		return
	}
	kind := rdbio.NodeBlob(rec.Type)
	switch {
	case n.Data == nil:
		ig.unchecked.add(rec.Key, true, n.Offset)
	case n.Enc == rdbio.EncLZF:
		b, err := rdbio.DecodeNodeLZF(ig.dec[:0], n.Data, n.ULen, ig.limit)
		if err != nil {
			ig.decodeFailed(rec, kind, err)
			return
		}
		ig.dec = b
		ig.check(rec, kind, 1, b)
	default:
		ig.check(rec, kind, 1, n.Data)
	}
}

// decodeFailed counts a blob whose string is over the cap (unchecked) or
// does not decode (every server refuses it).
func (ig *integrity) decodeFailed(rec *rdbio.Record, kind blob.Kind, err error) {
	if errors.Is(err, rdbio.ErrTooLarge) {
		ig.unchecked.add(rec.Key, true, rec.Offset)
		return
	}
	f := &ig.blobs[kind]
	f.shallow.add(rec.Key, rec.Offset, err.Error())
	f.deep.add(rec.Key, rec.Offset, err.Error())
}

// check runs the deep check, and the shallow one when the deep one fails;
// for a kind no server checks deeply (listpacks, intsets: every list node
// of a dump is one), the shallow check only, which walks no entry.
func (ig *integrity) check(rec *rdbio.Record, kind blob.Kind, per int, b []byte) {
	if !deepChecked[kind] {
		if err := blob.Check(kind, b, false, per); err != nil {
			f := &ig.blobs[kind]
			f.shallow.add(rec.Key, rec.Offset, err.Error())
			f.deep.add(rec.Key, rec.Offset, err.Error())
		}
		return
	}
	err := blob.Check(kind, b, true, per)
	if err == nil {
		return
	}
	f := &ig.blobs[kind]
	f.deep.add(rec.Key, rec.Offset, err.Error())
	if err := blob.Check(kind, b, false, per); err != nil {
		f.shallow.add(rec.Key, rec.Offset, err.Error())
	}
}

// key records a key the server adds to its db: not one whose TTL is past
// (a master drops it first), nor an empty list, set, sorted set or hash
// (skipped: "rdbLoadObject skipping empty key"; an empty stream is kept).
func (ig *integrity) key(rec *rdbio.Record, family string, vc rdbio.ValueInfo) {
	if rec.Expire != -1 && rec.Expire < ig.now {
		return
	}
	if emptySkipped[family] && vc.Known && vc.Elements == 0 {
		return
	}
	ig.keys.add(rec.DB, rec.Key, rec.Offset)
}

// deepChecked says, per blob kind, whether some server checks it deeply
// while loading (deepBlob).
var deepChecked = func() (d [4]bool) {
	for _, s := range servers.All() {
		for k := range d {
			d[k] = d[k] || deepBlob(s, blob.Kind(k))
		}
	}
	return d
}()

// emptySkipped are the families whose empty values servers skip.
var emptySkipped = map[string]bool{"list": true, "set": true, "zset": true, "hash": true}

// finish ends the duplicate-key check.
func (ig *integrity) finish() {
	if ig.keys != nil {
		ig.keysErr = ig.keys.Finish()
	}
}
