// Package verify answers whether two RDB files hold the same data: per
// database the same keys, each with the same type, value and expiry,
// whatever the encodings, and whether either file is rdbz-compressed. It is
// what `rdbz verify` runs.
//
// It reads each input through listcodec.Open (an rdbz input gives the RDB
// it holds) and rdbio's Reader, LZF list nodes taken as the raw nodes they
// decode to, and decodes values (strings, lists, and sets and hashes stored
// as intsets or listpacks with rdbio's decoders, the other types with
// github.com/hdt3213/rdb) to compare their content. It does not parse RDB
// lengths or strings itself (rdbio does), it writes nothing, and it does
// not say how two files differ beyond the first difference.
package verify

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rdbz/rdbz/listcodec"
	"github.com/rdbz/rdbz/listcodec/flow"
	"github.com/rdbz/rdbz/listcodec/node"
	"github.com/rdbz/rdbz/listcodec/v1"
	"github.com/rdbz/rdbz/rdbio"
)

// DefaultDecodeCap is the default Options.DecodeCap: each side holds a
// value up to it while reading it, and decoding takes about as much again;
// at 8 MiB, verify of a dump with lists of 8 MiB and more peaked at 64–71
// MiB of RSS, at 4 MiB at 60.
const DefaultDecodeCap = 4 << 20

// Options configure Verify. A zero field means its default.
type Options struct {
	// Flow configures the decompression of each input: Workers per input
	// (0: half of flow.DefaultWorkers, at least 1, as the two inputs
	// share the CPUs), QueueBytes per input (0: a quarter of
	// v1.DefaultQueueBytes), Cap, and IgnoreChecksum to accept an
	// input whose CRC64 does not match.
	listcodec.Flow
	// Dicts are external dictionaries, for files compressed with NoEmbed
	// (none: only embedded ones).
	Dicts []*node.Dict
	// DecodeCap bounds the stored bytes of one value that is decoded to be
	// compared semantically (the decoder holds the whole value in memory);
	// a larger value is compared by its stored bytes. 0 = DefaultDecodeCap.
	DecodeCap int
}

// Result is what Verify found.
type Result struct {
	Keys     int64 // keys compared (present in both inputs)
	Semantic int64 // of which compared by decoded value (decoded in one input only when both store it identically)
	ByteWise int64 // of which compared by stored bytes
	// ByteWiseWhy lists (a few of) the reasons why keys were compared by
	// their stored bytes, e.g. `A: RDB version 13 (hdt3213/rdb: cannot
	// parse version: 13)` or `A: type module`.
	ByteWiseWhy []string
	// Unparsed reports that both inputs hold records rdbio cannot walk
	// (unknown types or opcodes), and that everything from there to the
	// trailer was compared as one run of bytes.
	Unparsed bool
	// Diff is the first difference found; nil when the inputs hold the
	// same data.
	Diff *Difference
}

// Difference is the first difference Verify found.
type Difference struct {
	DB  uint64
	Key string // the key's bytes
	// What differs: "missing in A", "missing in B", "type: ...", "element
	// count: ...", "value: ...", "expiry: ..." (the last one may follow
	// another after "; ").
	What string
	// Unparsed: the difference is in the part after a record rdbio cannot
	// walk; DB and Key are then not known.
	Unparsed bool
}

// quoteMax is how much of a key a Difference shows.
const quoteMax = 200

// String names the database, the key (quoted) and what differs.
func (d *Difference) String() string {
	if d.Unparsed {
		return "the unparsed rest of the files (from a record rdbio cannot walk to the trailer): " + d.What
	}
	return fmt.Sprintf("db %d, key %s: %s", d.DB, rdbio.QuoteKey([]byte(d.Key), quoteMax), d.What)
}

// Verify reports whether two RDB streams hold the same data: per database
// the same keys, each with the same type, value and expiry, whatever the
// encodings (a list stored as a ziplist in one and as a quicklist in the
// other is the same list; an LZF-compressed string equals its raw form).
// Either input may be rdbz-compressed: each is decoded on the fly
// (opt.Dicts supplies external dictionaries), its list nodes taken raw. AUX fields,
// functions, module AUX data, LRU/LFU hints, key metadata and the seen and
// active times of stream consumers are not compared.
//
// Each key's value is compared semantically when it decodes in both inputs
// (strings, lists, and intset and listpack sets and hashes by rdbio's
// decoders, as github.com/hdt3213/rdb decodes them; the other types by that
// decoder): a SHA-256 over its decoded content in a
// canonical form (list elements in order; hash fields, set members and
// sorted-set members sorted; stream messages, groups, consumers and
// pending entries). Otherwise (RDB versions or types that decoder does not
// know, module values, values over DecodeCap, values whose counts or string
// lengths claim more than their bytes can hold, sets, hashes and sorted sets
// of more than DecodeCap/16 elements, streams of more than DecodeCap/16
// bytes: decoding them takes tens to hundreds of bytes per element) the key
// is compared byte-wise:
// its type byte and its stored value bytes after decompression to raw
// nodes, which tells a file and its rdbz-compressed form apart from a
// different file, but calls two encodings of the same data different.
//
// Verify stops at the first difference and returns it in the result's Diff;
// an error means an input could not be read.
func Verify(a, b io.Reader, opt Options) (*Result, error) {
	if opt.DecodeCap <= 0 {
		opt.DecodeCap = DefaultDecodeCap
	}
	if opt.Workers <= 0 {
		opt.Workers = max(1, flow.DefaultWorkers()/2)
	}
	if opt.QueueBytes <= 0 {
		opt.QueueBytes = v1.DefaultQueueBytes / 4
	}
	v := &verifier{opt: opt, stop: make(chan struct{}), res: &Result{}, why: map[string]bool{}, twins: newTwins(),
		told: [2]chan struct{}{make(chan struct{}), make(chan struct{})}}
	sa, sb := v.start(0, a), v.start(1, b)
	err := v.compare(sa, sb)
	close(v.stop)
	v.wg.Wait()
	sa.close()
	sb.close()
	if err != nil {
		return nil, err
	}
	return v.res, nil
}

// errStopped ends the goroutines of a Verify that has its answer.
var errStopped = errors.New("verify: stopped")

type verifier struct {
	twins     *twins
	bigDecode sync.Mutex // held while a side decodes a value of bigValue bytes or more
	opt       Options
	stop      chan struct{}
	wg        sync.WaitGroup
	res       *Result
	why       map[string]bool

	// Whether each input's values are decoded at all (the decoder takes
	// its RDB version): decodes[i] is set before told[i] is closed.
	told     [2]chan struct{}
	tellOnce [2]sync.Once
	decodes  [2]bool
}

// tell records whether side's values are decoded (the first call counts).
func (v *verifier) tell(side int, decodes bool) {
	v.tellOnce[side].Do(func() {
		v.decodes[side] = decodes
		close(v.told[side])
	})
}

// decoding tells whether side's values are decoded and waits for the
// other side to tell the same; it reports whether both are. Only then
// may an entry go without the digest of its stored bytes (twins): where
// one input's values are all compared as stored, each decoded value of
// the other is compared with it by that digest.
func (v *verifier) decoding(side int, decodes bool) (bool, error) {
	v.tell(side, decodes)
	select {
	case <-v.told[1-side]:
		return v.decodes[0] && v.decodes[1], nil
	case <-v.stop:
		return false, errStopped
	}
}

// compare reads both inputs in step. While they hold the same keys in the
// same order, each pair is compared as it arrives and nothing is kept. A
// key that does not match the other input's current key waits in a map
// until its partner arrives: memory is O(keys out of order), so O(keys)
// when the two orders differ throughout (e.g. dumps of two servers).
func (v *verifier) compare(a, b *side) error {
	pendA, pendB := map[keyID]*entry{}, map[keyID]*entry{}
	aDone, bDone := false, false
	for !aDone || !bDone {
		var ea, eb *entry
		var err error
		if !aDone {
			if ea, err = a.next(); err != nil {
				return err
			}
			aDone = ea == nil
		}
		if !bDone {
			if eb, err = b.next(); err != nil {
				return err
			}
			bDone = eb == nil
		}
		if ea != nil && eb != nil && ea.id == eb.id {
			if v.pair(ea, eb) {
				return nil
			}
			continue
		}
		if ea != nil {
			if m := pendB[ea.id]; m != nil {
				delete(pendB, ea.id)
				if v.pair(ea, m) {
					return nil
				}
			} else {
				pendA[ea.id] = ea
			}
		}
		if eb != nil {
			if m := pendA[eb.id]; m != nil {
				delete(pendA, eb.id)
				if v.pair(m, eb) {
					return nil
				}
			} else {
				pendB[eb.id] = eb
			}
		}
	}
	if e := first(pendA); e != nil {
		v.res.Diff = missing(e, "missing in B")
	} else if e := first(pendB); e != nil {
		v.res.Diff = missing(e, "missing in A")
	}
	v.finish()
	return nil
}

// first is the entry of m that came first in its input.
func first(m map[keyID]*entry) *entry {
	var f *entry
	for _, e := range m {
		if f == nil || e.seq < f.seq {
			f = e
		}
	}
	return f
}

func missing(e *entry, what string) *Difference {
	if e.id.rest {
		return &Difference{Unparsed: true, What: "only one input has records rdbio cannot walk: " + what}
	}
	return &Difference{DB: e.id.db, Key: e.id.key, What: what}
}

// pair compares the entries of one key; it reports whether they differ
// (the result's Diff is then set).
func (v *verifier) pair(a, b *entry) bool {
	if a.id.rest {
		v.res.Unparsed = true
		if a.sum != b.sum {
			v.res.Diff = &Difference{Unparsed: true, What: "the bytes differ"}
		}
		return v.res.Diff != nil
	}
	v.res.Keys++
	var what []string
	if (a.twin && a.twinOf == b.post) || (b.twin && b.twinOf == a.post) {
		// The same stored bytes: the same value, decoded once (twins).
		if a.semOK || b.semOK {
			v.res.Semantic++
		} else {
			v.res.ByteWise++
			v.noteWhy(a, b)
		}
	} else if a.twin || b.twin {
		// A key twice in an input, its twin matched by the other
		// occurrence: this one was not decoded, and a small value has
		// no digest either (twins).
		v.res.ByteWise++
		switch {
		case !a.hasSum || !b.hasSum:
			what = append(what, "value: not compared (the key is in an input twice)")
		case a.sum != b.sum:
			what = append(what, "value: the stored bytes differ (compared as stored: the key is in an input twice)")
		}
	} else if a.semOK && b.semOK {
		v.res.Semantic++
		switch {
		case a.class != b.class:
			what = append(what, fmt.Sprintf("type: %s in A, %s in B", a.class, b.class))
		case a.count != b.count:
			what = append(what, fmt.Sprintf("element count: %d in A, %d in B", a.count, b.count))
		case a.sem != b.sem:
			what = append(what, fmt.Sprintf("value: the %s's decoded content differs", a.class))
		}
	} else {
		v.res.ByteWise++
		why := v.noteWhy(a, b)
		switch {
		case a.typ != b.typ:
			what = append(what, fmt.Sprintf("type: %s (%d) in A, %s (%d) in B (compared as stored: %s)",
				a.tname, a.typ, b.tname, b.typ, why))
		case !a.hasSum || !b.hasSum || a.sum != b.sum:
			// (An entry without the digest was decoded in its input but
			// not in the other: when both hold the same bytes, both
			// decode them or neither.)
			what = append(what, fmt.Sprintf("value: the stored bytes differ (compared as stored: %s)", why))
		}
	}
	if a.expire != b.expire {
		what = append(what, fmt.Sprintf("expiry: %s in A, %s in B", fmtExpire(a.expire), fmtExpire(b.expire)))
	}
	if len(what) == 0 {
		return false
	}
	v.res.Diff = &Difference{DB: a.id.db, Key: a.id.key, What: strings.Join(what, "; ")}
	v.finish()
	return true
}

// noteWhy records why a pair was compared byte-wise and returns it.
func (v *verifier) noteWhy(a, b *entry) string {
	var ws []string
	for _, s := range []struct {
		name string
		e    *entry
	}{{"A", a}, {"B", b}} {
		if s.e.why == "" {
			continue
		}
		w := s.name + ": " + s.e.why
		ws = append(ws, w)
		if !v.why[w] && len(v.why) < 8 {
			v.why[w] = true
		}
	}
	return strings.Join(ws, ", ")
}

// finish lists the reasons for byte-wise comparisons in the result.
func (v *verifier) finish() {
	v.res.ByteWiseWhy = v.res.ByteWiseWhy[:0]
	for w := range v.why {
		v.res.ByteWiseWhy = append(v.res.ByteWiseWhy, w)
	}
	slices.Sort(v.res.ByteWiseWhy)
}

func fmtExpire(ms int64) string {
	if ms == -1 {
		return "none"
	}
	return fmt.Sprintf("%s (%d ms)", time.UnixMilli(ms).UTC().Format(time.RFC3339Nano), ms)
}
