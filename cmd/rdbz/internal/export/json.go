package export

import (
	"bufio"
	"encoding/base64"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/rdbz/rdbz/cmd/rdbz/internal/escape"
	"github.com/rdbz/rdbz/rdbio"
)

// jsonOut renders each key as one JSON object (docs/export.md):
//
//	{"db":0,"key":"k","type":"hash","encoding":"hash-listpack","expire":1700000000000,"value":[["f","v"]]}
//
// value is a string (string), an array of strings (list, set), of
// [member, score] (zset), of [field, value] or [field, value, ttl-ms]
// (hash), or an object (stream: entries, metadata, groups). expire is
// absolute Unix ms, absent without one. Strings are rendered as esc says.
type jsonOut struct {
	w     *bufio.Writer
	lines bool // JSONL: one object per line; else one array
	esc   JSONEscape
	rep   *Report
	k     *keyInfo
	keys  int64 // objects written
	buf   []byte
	first bool // no element written yet at this level
	n     int64
	open  bool // a hash pair or zset pair is open
	carry []byte
	st    jsonStream
}

// jsonStream is where a stream's object is.
type jsonStream struct {
	groupOpen, inConsumers, consumerOpen bool
	groups, consumers                    int // written so far (the stream's, the group's)
}

func newJSON(w *bufio.Writer, lines bool, esc JSONEscape, rep *Report) *jsonOut {
	return &jsonOut{w: w, lines: lines, esc: esc, rep: rep}
}

// raw writes s.
func (j *jsonOut) raw(s string) error {
	_, err := j.w.WriteString(s)
	return err
}

// comma writes the separator before an element, except the first.
func (j *jsonOut) comma() error {
	if j.first {
		j.first = false
		return nil
	}
	return j.w.WriteByte(',')
}

// object starts a key's (or a function's) object.
func (j *jsonOut) object() error {
	sep := ",\n"
	switch {
	case j.lines:
		sep = ""
	case j.keys == 0:
		sep = "[\n"
	}
	j.keys++
	return j.raw(sep)
}

// head writes the fields before the value.
func (j *jsonOut) head(k *keyInfo) error {
	if err := j.object(); err != nil {
		return err
	}
	rec := k.rec
	j.buf = strconv.AppendUint(append(j.buf[:0], `{"db":`...), rec.DB, 10)
	j.buf = append(j.buf, `,"key":`...)
	j.buf = j.whole(j.buf, rec.Key)
	j.buf = append(j.buf, `,"type":`...)
	j.buf = appendJSONString(j.buf, []byte(k.family))
	j.buf = append(j.buf, `,"encoding":`...)
	j.buf = appendJSONString(j.buf, []byte(rec.Type.String()))
	if rec.Expire >= 0 {
		j.buf = strconv.AppendInt(append(j.buf, `,"expire":`...), rec.Expire, 10)
	}
	j.buf = append(j.buf, `,"value":`...)
	_, err := j.w.Write(j.buf)
	return err
}

func (j *jsonOut) begin(k *keyInfo) error {
	j.k, j.n, j.first, j.open = k, 0, true, false
	j.st = jsonStream{}
	if err := j.head(k); err != nil {
		return err
	}
	switch k.family {
	case "string":
		return nil
	case "stream":
		return j.raw(`{"entries":[`)
	}
	return j.raw("[")
}

func (j *jsonOut) str(e *rdbio.Elem) error {
	last := e.Pos+uint64(len(e.Data)) == e.Len
	if e.Pos == 0 {
		if err := j.before(); err != nil {
			return err
		}
	}
	if last {
		j.n++
	}
	return j.piece(e, last)
}

// before writes what goes before a string of the value: a separator, and
// a pair's opening or middle.
func (j *jsonOut) before() error {
	switch j.k.family {
	case "string", "stream":
		return nil
	case "hash":
		if j.n%2 == 1 {
			return j.raw(",")
		}
		if err := j.closePair(); err != nil {
			return err
		}
		if err := j.comma(); err != nil {
			return err
		}
		j.open = true
		return j.raw("[")
	case "zset":
		if err := j.comma(); err != nil {
			return err
		}
		return j.raw("[")
	}
	return j.comma()
}

// closePair ends an open hash pair.
func (j *jsonOut) closePair() error {
	if !j.open {
		return nil
	}
	j.open = false
	return j.raw("]")
}

// whole appends a whole string as esc says.
func (j *jsonOut) whole(dst, b []byte) []byte {
	switch {
	case j.esc == Base64Obj, j.esc == Auto && !utf8.Valid(b):
		dst = append(dst, `{"base64":"`...)
		return append(base64.StdEncoding.AppendEncode(dst, b), `"}`...)
	case j.esc == UTF8String:
		return appendJSONString(dst, escape.AppendUTF8(nil, b))
	}
	return appendJSONString(dst, b)
}

// piece writes a piece of a string: a whole one as whole does; pieces of a
// longer one as one string (UTF8String) or one base64 object, holding back
// the bytes that the next piece completes.
func (j *jsonOut) piece(e *rdbio.Elem, last bool) error {
	if e.Pos == 0 && last {
		j.buf = j.whole(j.buf[:0], e.Data)
		_, err := j.w.Write(j.buf)
		return err
	}
	b64 := j.esc != UTF8String
	if e.Pos == 0 {
		j.carry = j.carry[:0]
		open := `{"base64":"`
		if !b64 {
			open = `"`
		}
		if err := j.raw(open); err != nil {
			return err
		}
	}
	data := append(j.carry, e.Data...)
	keep := 0
	if !last && b64 {
		keep = len(data) % 3
	} else if !last {
		keep = escape.Carry(data)
	}
	now := data[:len(data)-keep]
	if b64 {
		j.buf = base64.StdEncoding.AppendEncode(j.buf[:0], now)
	} else {
		j.buf = appendJSONChars(j.buf[:0], escape.AppendUTF8(nil, now))
	}
	j.carry = append(j.carry[:0], data[len(data)-keep:]...)
	if last {
		if b64 {
			j.buf = append(j.buf, `"}`...)
		} else {
			j.buf = append(j.buf, '"')
		}
	}
	_, err := j.w.Write(j.buf)
	return err
}

func (j *jsonOut) score(f float64) error {
	j.buf = appendJSONScore(append(j.buf[:0], ','), f)
	j.buf = append(j.buf, ']')
	_, err := j.w.Write(j.buf)
	return err
}

// appendJSONScore appends a score: a number, or "inf", "-inf" (JSON has
// no infinities).
func appendJSONScore(dst []byte, f float64) []byte {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return appendJSONString(dst, scoreText(nil, f))
	}
	return strconv.AppendFloat(dst, f, 'g', -1, 64)
}

func (j *jsonOut) fieldTTL(ms int64) error {
	if ms == 0 {
		return nil
	}
	if j.k.family == "set" {
		return j.rep.skip("member TTLs", j.k.rec.Key, j.k.rec.Offset, "JSON set members carry no TTL")
	}
	j.buf = strconv.AppendInt(append(j.buf[:0], ','), ms, 10)
	_, err := j.w.Write(j.buf)
	return err
}

func (j *jsonOut) entry(id rdbio.StreamID, kv [][]byte) error {
	if err := j.comma(); err != nil {
		return err
	}
	j.buf = append(j.buf[:0], `{"id":"`...)
	j.buf = append(append(j.buf, id.String()...), `","fields":[`...)
	for i := 0; i+1 < len(kv); i += 2 {
		if i > 0 {
			j.buf = append(j.buf, ',')
		}
		j.buf = j.whole(append(j.buf, '['), kv[i])
		j.buf = append(j.whole(append(j.buf, ','), kv[i+1]), ']')
	}
	j.buf = append(j.buf, "]}"...)
	_, err := j.w.Write(j.buf)
	return err
}

func (j *jsonOut) meta(m *rdbio.StreamMeta) error {
	j.buf = strconv.AppendUint(append(j.buf[:0], `],"length":`...), m.Length, 10)
	j.buf = appendIDField(j.buf, "last_id", m.LastID)
	if m.Version >= 2 {
		j.buf = appendIDField(j.buf, "first_id", m.FirstID)
		j.buf = appendIDField(j.buf, "max_deleted_id", m.MaxDeletedID)
		j.buf = strconv.AppendUint(append(j.buf, `,"entries_added":`...), m.EntriesAdded, 10)
	}
	j.buf = append(j.buf, `,"groups":[`...)
	j.first = true
	_, err := j.w.Write(j.buf)
	return err
}

// appendIDField appends ,"name":"ms-seq".
func appendIDField(dst []byte, name string, id rdbio.StreamID) []byte {
	dst = append(append(append(dst, `,"`...), name...), `":"`...)
	return append(append(dst, id.String()...), '"')
}

// closeGroup ends the open consumer and group.
func (j *jsonOut) closeGroup() error {
	s := ""
	if j.st.consumerOpen {
		s += "]}"
	}
	if j.st.groupOpen {
		if !j.st.inConsumers {
			s += `],"consumers":[`
		}
		s += "]}"
	}
	j.st = jsonStream{groups: j.st.groups}
	return j.raw(s)
}

func (j *jsonOut) group(e *rdbio.Elem) error {
	if err := j.closeGroup(); err != nil {
		return err
	}
	j.buf = j.buf[:0]
	if j.st.groups > 0 {
		j.buf = append(j.buf, ',')
	}
	j.st.groups++
	j.buf = j.whole(append(j.buf, `{"name":`...), e.Name)
	j.buf = appendIDField(j.buf, "last_id", e.LastID)
	j.buf = strconv.AppendInt(append(j.buf, `,"entries_read":`...), e.Read, 10)
	j.buf = append(j.buf, `,"pending":[`...)
	j.st.groupOpen, j.first = true, true
	_, err := j.w.Write(j.buf)
	return err
}

func (j *jsonOut) pending(id rdbio.StreamID, time int64, count uint64) error {
	if err := j.comma(); err != nil {
		return err
	}
	j.buf = append(j.buf[:0], `{"id":"`...)
	j.buf = strconv.AppendInt(append(append(j.buf, id.String()...), `","delivery_time":`...), time, 10)
	j.buf = append(strconv.AppendUint(append(j.buf, `,"delivery_count":`...), count, 10), '}')
	_, err := j.w.Write(j.buf)
	return err
}

func (j *jsonOut) consumer(e *rdbio.Elem) error {
	j.buf = j.buf[:0]
	if j.st.consumerOpen {
		j.buf = append(j.buf, "]}"...)
	}
	if !j.st.inConsumers {
		j.buf = append(j.buf, `],"consumers":[`...)
		j.st.inConsumers = true
	}
	if j.st.consumers > 0 {
		j.buf = append(j.buf, ',')
	}
	j.st.consumers++
	j.buf = j.whole(append(j.buf, `{"name":`...), e.Name)
	j.buf = strconv.AppendInt(append(j.buf, `,"seen_time":`...), e.Time, 10)
	if e.Active >= 0 {
		j.buf = strconv.AppendInt(append(j.buf, `,"active_time":`...), e.Active, 10)
	}
	j.buf = append(j.buf, `,"pending":[`...)
	j.st.consumerOpen, j.first = true, true
	_, err := j.w.Write(j.buf)
	return err
}

func (j *jsonOut) consumerID(id rdbio.StreamID) error {
	if err := j.comma(); err != nil {
		return err
	}
	j.buf = append(append(append(j.buf[:0], '"'), id.String()...), '"')
	_, err := j.w.Write(j.buf)
	return err
}

func (j *jsonOut) end() error {
	s := "}"
	switch j.k.family {
	case "string":
	case "stream":
		if err := j.closeGroup(); err != nil {
			return err
		}
		s = "]}}"
	default:
		if err := j.closePair(); err != nil {
			return err
		}
		s = "]}"
	}
	if j.lines {
		s += "\n"
	}
	return j.raw(s)
}

func (j *jsonOut) skip(k *keyInfo, why string) error {
	if err := j.head(k); err != nil {
		return err
	}
	j.buf = appendJSONString(append(j.buf[:0], `null,"skipped":`...), []byte(why))
	j.buf = append(j.buf, '}')
	if j.lines {
		j.buf = append(j.buf, '\n')
	}
	_, err := j.w.Write(j.buf)
	return err
}

func (j *jsonOut) function(code []byte) error {
	if err := j.object(); err != nil {
		return err
	}
	j.buf = j.whole(append(j.buf[:0], `{"type":"function","value":`...), code)
	j.buf = append(j.buf, '}')
	if j.lines {
		j.buf = append(j.buf, '\n')
	}
	_, err := j.w.Write(j.buf)
	return err
}

func (j *jsonOut) finish() error {
	switch {
	case j.lines:
		return nil
	case j.keys == 0:
		return j.raw("[]\n")
	}
	return j.raw("\n]\n")
}

// appendJSONString appends valid UTF-8 s as a JSON string.
func appendJSONString(dst, s []byte) []byte {
	return append(appendJSONChars(append(dst, '"'), s), '"')
}

// appendJSONChars appends s escaped for the inside of a JSON string: the
// quote, the backslash and control characters.
func appendJSONChars(dst, s []byte) []byte {
	const hex = "0123456789abcdef"
	for _, c := range s {
		switch {
		case c == '"' || c == '\\':
			dst = append(dst, '\\', c)
		case c == '\n':
			dst = append(dst, '\\', 'n')
		case c == '\r':
			dst = append(dst, '\\', 'r')
		case c == '\t':
			dst = append(dst, '\\', 't')
		case c < 0x20 || c == 0x7f:
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
		default:
			dst = append(dst, c)
		}
	}
	return dst
}
