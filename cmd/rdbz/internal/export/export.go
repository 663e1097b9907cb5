package export

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/rdbz/rdbz/cmd/rdbz/internal/convert"
	"github.com/rdbz/rdbz/cmd/rdbz/internal/escape"
	"github.com/rdbz/rdbz/cmd/rdbz/internal/servers"
	"github.com/rdbz/rdbz/rdbio"
)

// Format is what Writer writes.
type Format uint8

// Formats.
const (
	RESP  Format = iota // commands in RESP, for redis-cli --pipe
	JSON                // one JSON array of key objects
	JSONL               // one key object per line
	Text                // rdbz get's readable listing
)

// FormatNames are the formats' names as --format takes them, in Format
// order.
var FormatNames = []string{"resp", "json", "jsonl", "text"}

// ParseFormat reads a format's name.
func ParseFormat(name string) (Format, error) {
	for i, n := range FormatNames {
		if n == name {
			return Format(i), nil
		}
	}
	return 0, fmt.Errorf("format %q: want one of %s", name, strings.Join(FormatNames, ", "))
}

// Limits bound each plain command: at most Args elements (members, pairs,
// IDs) after the key, and about Bytes bytes of arguments. A single element
// larger than Bytes gets a command of its own, streamed; a string value
// larger than Bytes is SET in Bytes pieces and APPENDed.
type Limits struct {
	Args  int
	Bytes int
}

// DefaultLimits: 1000 elements and 1 MiB per command, well within the
// defaults of every server (proto-max-bulk-len 512 MB,
// client-query-buffer-limit 1 GB) and large enough that batching costs
// nothing measurable.
var DefaultLimits = Limits{Args: 1000, Bytes: 1 << 20}

// maxHeldPayload is the most of a RESTORE payload held in memory: the rest
// goes through a temporary file.
const maxHeldPayload = 4 << 20

// Options configure a Writer and Export.
type Options struct {
	// Read configures the Reader of the input (its cap bounds every string
	// held).
	Read rdbio.Options
	// Keep, when set, selects the keys written (rdbio.Filter); nil: every
	// key.
	Keep   func(*rdbio.Record) bool
	Format Format
	// Restore writes RESP as RESTORE commands (DUMP payloads) instead of
	// plain commands.
	Restore bool
	// Target is the server that loads the output ("" for any): plain
	// commands use only what it has (stream metadata from 7.0, field TTLs
	// from redis 7.4 and valkey 9, functions from 7.0); RESTORE payloads
	// are converted for it (rdbio/convert, with Drop).
	Target string
	Drop   map[string]bool
	// Escape renders strings in JSON: Auto (the default) writes valid
	// UTF-8 as JSON strings and anything else as {"base64": ...}.
	Escape JSONEscape
	Limits Limits
}

// JSONEscape is how JSON renders a string.
type JSONEscape uint8

// JSON escapes.
const (
	Auto       JSONEscape = iota // valid UTF-8 as a string, else {"base64": "..."}; over the cap always base64
	UTF8String                   // always a string: escape.UTF8 of the bytes
	Base64Obj                    // always {"base64": "..."}
)

// JSONEscapeNames are the names --escape takes for JSON, in order.
var JSONEscapeNames = []string{"auto", "utf8", "base64"}

// Report says what a Writer wrote and what it could not carry.
type Report struct {
	Keys     int64  // keys written
	Commands int64  // RESP commands written
	Bytes    int64  // bytes written
	Skipped  []Item // what was left out, by kind
	drop     map[string]bool
}

// Item is one kind of thing left out: how many, the first one, and why.
type Item struct {
	What        string `json:"what"`
	Count       int64  `json:"count"`
	FirstKey    string `json:"first_key,omitempty"`
	FirstOffset int64  `json:"first_offset"`
	Why         string `json:"why"`
}

// ErrLoss is wrapped by the error of an export that would leave out
// something the output cannot carry, and that Options.Drop does not
// accept.
var ErrLoss = errors.New("the output cannot carry it")

// dropKinds name, as Options.Drop takes them, what an export may leave
// out (Report.Skipped's What), besides the values of a type no command
// rebuilds, named by their family (as TYPE says: "module", ...).
var dropKinds = map[string]string{
	"member TTLs":        "member-ttl",
	"field TTLs":         "field-ttl",
	"function libraries": "function",
	"stream metadata":    "stream-metadata",
}

// DropKinds are the kinds Options.Drop takes for plain commands and
// JSON, sorted.
func DropKinds() []string {
	return []string{"field-ttl", "function", "member-ttl", "module", "stream-metadata"}
}

// dropName is the --drop kind of a thing left out.
func dropName(what string) string {
	if k, ok := dropKinds[what]; ok {
		return k
	}
	return strings.TrimSuffix(what, " values")
}

// skip counts one thing of kind what left out, at a key (nil for none),
// when drop accepts its loss; otherwise it is an error (ErrLoss).
func (rep *Report) skip(what string, key []byte, off int64, why string) error {
	if kind := dropName(what); !rep.drop[kind] {
		at := fmt.Sprintf("offset %d", off)
		if key != nil {
			at += fmt.Sprintf(", key %s", rdbio.QuoteKey(key, 200))
		}
		return fmt.Errorf("export: %s: %s would be left out (%s): %w; --drop %s leaves them out", at, what, why, ErrLoss, kind)
	}
	for i := range rep.Skipped {
		if rep.Skipped[i].What == what {
			rep.Skipped[i].Count++
			return nil
		}
	}
	k := ""
	if key != nil {
		k = string(escape.AppendUTF8(nil, key))
	}
	rep.Skipped = append(rep.Skipped, Item{What: what, Count: 1, FirstKey: k, FirstOffset: off, Why: why})
	return nil
}

// keyInfo is the key record being written.
type keyInfo struct {
	rec    *rdbio.Record
	family string // as TYPE says: string, list, set, zset, hash, stream, module...
}

// renderer is one output format: it takes a key's value as events (the
// walker's), in the value's order.
type renderer interface {
	begin(k *keyInfo) error
	str(e *rdbio.Elem) error // a piece of a string: the value, an item, member, field or field value
	score(f float64) error   // of the member just given
	fieldTTL(ms int64) error // of the hash field just given; 0 for none
	entry(id rdbio.StreamID, kv [][]byte) error
	meta(m *rdbio.StreamMeta) error
	group(e *rdbio.Elem) error
	pending(id rdbio.StreamID, time int64, count uint64) error
	consumer(e *rdbio.Elem) error
	consumerID(id rdbio.StreamID) error
	end() error
	// skip is called instead of begin for a value the format cannot hold.
	skip(k *keyInfo, why string) error
	function(code []byte) error
	finish() error
}

// Writer writes the keys it is given in one format.
type Writer struct {
	opt  Options
	bw   *bufio.Writer
	cw   *countWriter
	rep  Report
	rd   renderer
	wk   walker
	dump *restorer // RESTORE payloads (Options.Restore)
}

// NewWriter returns a Writer of keys read from a file with header h (the
// RDB version of RESTORE payloads) to w. Close ends the output.
func NewWriter(w io.Writer, h rdbio.Header, opt Options) (*Writer, error) {
	if opt.Limits.Args <= 0 || opt.Limits.Bytes <= 0 {
		opt.Limits = DefaultLimits
	}
	opt.Read.Cap = opt.Read.CapBytes()
	feat, err := featuresOf(opt.Target)
	if err != nil {
		return nil, err
	}
	wr := &Writer{opt: opt, cw: &countWriter{w: w}}
	wr.rep.drop = opt.Drop
	wr.bw = bufio.NewWriterSize(wr.cw, 64<<10)
	switch opt.Format {
	case RESP:
		p := newPlain(wr.bw, opt.Limits, feat, &wr.rep)
		wr.rd = p
		if opt.Restore {
			wr.dump = &restorer{plain: p, version: h.Version, limit: min(opt.Read.Cap, maxHeldPayload)}
		}
	case JSON, JSONL:
		wr.rd = newJSON(wr.bw, opt.Format == JSONL, opt.Escape, &wr.rep)
	case Text:
		wr.rd = newText(wr.bw, &wr.rep)
	default:
		return nil, fmt.Errorf("export: format %d", opt.Format)
	}
	wr.wk = walker{rd: wr.rd, rep: &wr.rep}
	return wr, nil
}

// Key writes the key record rec, whose value v holds unread.
func (w *Writer) Key(v rdbio.Value, rec *rdbio.Record) error {
	k := &keyInfo{rec: rec, family: rec.Type.Family()}
	w.rep.Keys++
	var err error
	if w.dump != nil {
		err = w.dump.key(v, k)
	} else {
		err = w.wk.value(v, k)
	}
	var re *rdbio.Error
	if err != nil && !errors.As(err, &re) { // rdbio's errors name the offset and key
		return fmt.Errorf("offset %d, key %s: %w", rec.Offset, rdbio.QuoteKey(rec.Key, 64), err)
	}
	return err
}

// Function writes a function library (a KindFunction record).
func (w *Writer) Function(rec *rdbio.Record) error {
	if w.dump != nil {
		return w.dump.function(rec.Value)
	}
	return w.rd.function(rec.Value)
}

// Close ends the output (a JSON document's closing bracket) and flushes it.
func (w *Writer) Close() error {
	if err := w.rd.finish(); err != nil {
		return err
	}
	err := w.bw.Flush()
	w.rep.Bytes = w.cw.n
	return err
}

// Report is what was written so far (complete after Close).
func (w *Writer) Report() *Report {
	w.rep.Bytes = w.cw.n + int64(w.bw.Buffered())
	return &w.rep
}

// Export reads the RDB src and writes every key and function library to
// dst. With Restore and a Target, the file is first converted for the
// target (rdbio/convert), whose refusals end the export.
func Export(ctx context.Context, dst io.Writer, src io.Reader, opt Options) (*Report, error) {
	src, wait := convertFor(ctx, src, opt)
	rep, err := export(dst, src, opt)
	if werr := wait(err); werr != nil && (err == nil || errors.Is(err, io.ErrClosedPipe)) {
		err = werr
	}
	return rep, err
}

func export(dst io.Writer, src io.Reader, opt Options) (*Report, error) {
	rr, err := rdbio.NewReader(src, opt.Read)
	if err != nil {
		return &Report{}, err
	}
	r := rdbio.NewFilter(rr, opt.Keep)
	w, err := NewWriter(dst, r.Header(), opt)
	if err != nil {
		return &Report{}, err
	}
	for {
		rec, err := r.Next()
		if err != nil {
			return w.Report(), err
		}
		switch rec.Kind {
		case rdbio.KindKey:
			err = w.Key(r.Value(), rec)
		case rdbio.KindFunction:
			err = w.Function(rec)
		case rdbio.KindEOF:
			return w.Report(), w.Close()
		}
		if err != nil {
			return w.Report(), err
		}
	}
}

// Want is a key that Scan looks for.
type Want struct {
	DB  uint64
	Key []byte
}

// Scan reads the RDB src to its end, writing each of the keys wanted to
// dst in the file's order, and reports which it found. It reads on once it
// has them all: the trailer's checksum, checked at the end, is what vouches
// for the values written.
func Scan(dst io.Writer, src io.Reader, wants []Want, opt Options) ([]bool, *Report, error) {
	found := make([]bool, len(wants))
	rr, err := rdbio.NewReader(src, opt.Read)
	if err != nil {
		return found, &Report{}, err
	}
	r := rdbio.NewFilter(rr, opt.Keep)
	w, err := NewWriter(dst, r.Header(), opt)
	if err != nil {
		return found, &Report{}, err
	}
	left := len(wants)
	for {
		rec, err := r.Next()
		if err != nil {
			return found, w.Report(), err
		}
		if rec.Kind == rdbio.KindEOF {
			break
		}
		if rec.Kind != rdbio.KindKey || left == 0 {
			continue
		}
		for i, k := range wants {
			if !found[i] && k.DB == rec.DB && string(k.Key) == string(rec.Key) {
				found[i] = true
				left--
				if err := w.Key(r.Value(), rec); err != nil {
					return found, w.Report(), err
				}
				break
			}
		}
	}
	return found, w.Report(), w.Close()
}

// features are what plain commands may use on the target.
type features struct {
	streamMeta bool // XSETID ENTRIESADDED/MAXDELETEDID, XGROUP ... ENTRIESREAD (7.0)
	fieldTTL   bool // HPEXPIREAT (redis 7.4, valkey 9)
	functions  bool // FUNCTION LOAD (7.0)
}

// featuresOf is what the target has; every feature for "".
func featuresOf(target string) (features, error) {
	if target == "" {
		return features{true, true, true}, nil
	}
	s, ok := servers.Lookup(target)
	if !ok {
		return features{}, fmt.Errorf("export: target %q: want one of %s", target, strings.Join(servers.Names(), ", "))
	}
	fn, _ := s.OpCause(rdbio.OpFunction2, false)
	return features{
		streamMeta: s.ReadsType(rdbio.TypeStream2),
		fieldTTL:   !s.Dragonfly() && (s.ReadsType(rdbio.TypeHashMetadata) || s.ReadsType(rdbio.TypeHash2)),
		functions:  fn == "",
	}, nil
}

// countWriter counts the bytes written to w.
type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// convertFor returns src converted for the target when RESTORE payloads
// are written for one (rdbio/convert, on its own goroutine), and a
// function that waits for the conversion and returns its error.
func convertFor(ctx context.Context, src io.Reader, opt Options) (io.Reader, func(error) error) {
	if !opt.Restore || opt.Target == "" {
		return src, func(error) error { return nil }
	}
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		_, err := convert.Convert(ctx, pw, src, convert.Options{Options: opt.Read, Target: opt.Target, Drop: opt.Drop})
		pw.CloseWithError(err)
		done <- err
	}()
	return pr, func(readErr error) error {
		pr.CloseWithError(errors.Join(readErr, io.ErrClosedPipe))
		return <-done
	}
}
