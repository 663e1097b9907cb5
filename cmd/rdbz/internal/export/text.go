package export

import (
	"bufio"
	"strconv"

	"github.com/rdbz/rdbz/cmd/rdbz/internal/escape"
	"github.com/rdbz/rdbz/rdbio"
)

// textOut renders keys for reading (rdbz get): a line naming the key, then
// a line per element, every string Go-quoted (binary-safe: other bytes
// as \xNN):
//
//	db 0 key "user:1" type hash encoding hash-listpack expire 1700000000000
//	  "name" "alice"
//	  "token" "x9" expire 1700000001000
type textOut struct {
	w     *bufio.Writer
	rep   *Report
	k     *keyInfo
	buf   []byte
	n     int64
	line  bool // an element's line is open (a hash pair waits for its TTL)
	carry []byte
	q     []byte // a quoted piece
}

func newText(w *bufio.Writer, rep *Report) *textOut { return &textOut{w: w, rep: rep} }

func (t *textOut) write(b []byte) error {
	_, err := t.w.Write(b)
	return err
}

func (t *textOut) head(k *keyInfo) []byte {
	rec := k.rec
	t.buf = strconv.AppendUint(append(t.buf[:0], "db "...), rec.DB, 10)
	t.buf = strconv.AppendQuote(append(t.buf, " key "...), string(rec.Key))
	t.buf = append(append(t.buf, " type "...), k.family...)
	t.buf = append(append(t.buf, " encoding "...), rec.Type.String()...)
	if rec.Expire >= 0 {
		t.buf = strconv.AppendInt(append(t.buf, " expire "...), rec.Expire, 10)
	}
	return append(t.buf, '\n')
}

func (t *textOut) begin(k *keyInfo) error {
	t.k, t.n, t.line = k, 0, false
	return t.write(t.head(k))
}

// endLine ends an open element line.
func (t *textOut) endLine() error {
	if !t.line {
		return nil
	}
	t.line = false
	return t.w.WriteByte('\n')
}

func (t *textOut) str(e *rdbio.Elem) error {
	last := e.Pos+uint64(len(e.Data)) == e.Len
	t.buf = t.buf[:0]
	if e.Pos == 0 {
		if err := t.before(); err != nil {
			return err
		}
	}
	data := append(t.carry, e.Data...)
	keep := 0
	if !last {
		keep = escape.Carry(data)
	}
	t.q = strconv.AppendQuote(t.q[:0], string(data[:len(data)-keep]))
	q := t.q
	if e.Pos != 0 {
		q = q[1:] // a piece after the first: no opening quote
	}
	if !last {
		q = q[:len(q)-1] // nor a closing one before the last
	}
	t.buf = append(t.buf, q...)
	t.carry = append(t.carry[:0], data[len(data)-keep:]...)
	if last {
		t.n++
		switch t.k.family {
		case "hash":
			if t.n%2 == 1 {
				t.buf = append(t.buf, ' ')
			}
		case "zset":
			t.buf = append(t.buf, ' ')
		default:
			t.buf, t.line = append(t.buf, '\n'), false
		}
	}
	return t.write(t.buf)
}

// before starts a string's place: a new element line, or the value after
// its field.
func (t *textOut) before() error {
	t.carry = t.carry[:0]
	if t.k.family == "hash" && t.n%2 == 1 {
		return nil
	}
	if err := t.endLine(); err != nil {
		return err
	}
	t.line = true
	if t.k.family != "string" {
		t.buf = append(t.buf, "  "...)
	}
	return nil
}

func (t *textOut) score(f float64) error {
	t.buf = append(scoreText(t.buf[:0], f), '\n')
	t.line = false
	return t.write(t.buf)
}

func (t *textOut) fieldTTL(ms int64) error {
	t.buf = t.buf[:0]
	if ms != 0 {
		t.buf = strconv.AppendInt(append(t.buf, " expire "...), ms, 10)
	}
	return t.write(t.buf)
}

func (t *textOut) entry(id rdbio.StreamID, kv [][]byte) error {
	t.buf = append(append(t.buf[:0], "  "...), id.String()...)
	for _, b := range kv {
		t.buf = strconv.AppendQuote(append(t.buf, ' '), string(b))
	}
	return t.write(append(t.buf, '\n'))
}

func (t *textOut) meta(m *rdbio.StreamMeta) error {
	t.buf = strconv.AppendUint(append(t.buf[:0], "  length "...), m.Length, 10)
	t.buf = append(append(t.buf, " last-id "...), m.LastID.String()...)
	if m.Version >= 2 {
		t.buf = append(append(t.buf, " first-id "...), m.FirstID.String()...)
		t.buf = append(append(t.buf, " max-deleted-id "...), m.MaxDeletedID.String()...)
		t.buf = strconv.AppendUint(append(t.buf, " entries-added "...), m.EntriesAdded, 10)
	}
	return t.write(append(t.buf, '\n'))
}

func (t *textOut) group(e *rdbio.Elem) error {
	t.buf = strconv.AppendQuote(append(t.buf[:0], "  group "...), string(e.Name))
	t.buf = append(append(t.buf, " last-id "...), e.LastID.String()...)
	t.buf = strconv.AppendInt(append(t.buf, " entries-read "...), e.Read, 10)
	t.buf = strconv.AppendUint(append(t.buf, " pending "...), e.Count, 10)
	return t.write(append(t.buf, '\n'))
}

func (t *textOut) pending(id rdbio.StreamID, time int64, count uint64) error {
	t.buf = append(append(t.buf[:0], "    pending "...), id.String()...)
	t.buf = strconv.AppendInt(append(t.buf, " delivery-time "...), time, 10)
	t.buf = strconv.AppendUint(append(t.buf, " delivery-count "...), count, 10)
	return t.write(append(t.buf, '\n'))
}

func (t *textOut) consumer(e *rdbio.Elem) error {
	t.buf = strconv.AppendQuote(append(t.buf[:0], "    consumer "...), string(e.Name))
	t.buf = strconv.AppendInt(append(t.buf, " seen-time "...), e.Time, 10)
	if e.Active >= 0 {
		t.buf = strconv.AppendInt(append(t.buf, " active-time "...), e.Active, 10)
	}
	return t.write(append(t.buf, '\n'))
}

func (t *textOut) consumerID(id rdbio.StreamID) error {
	t.buf = append(append(t.buf[:0], "      pending "...), id.String()...)
	return t.write(append(t.buf, '\n'))
}

func (t *textOut) end() error { return t.endLine() }

func (t *textOut) skip(k *keyInfo, why string) error {
	t.buf = append(append(append(t.head(k), "  (not shown: "...), why...), ")\n"...)
	return t.write(t.buf)
}

func (t *textOut) function(code []byte) error {
	t.buf = strconv.AppendQuote(append(t.buf[:0], "function "...), string(code))
	return t.write(append(t.buf, '\n'))
}

func (t *textOut) finish() error { return nil }
