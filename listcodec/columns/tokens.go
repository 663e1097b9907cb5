package columns

import (
	"encoding/binary"
	"errors"
	"math/bits"
	"slices"
)

// Tokens: a role's strings as templates and runs (parts 4–7). In strings
// of records, logs and JSON, most bytes that zstd cannot match are
// numbers and hex identifiers, cut off from each other by syntax that
// repeats. An Encoder may store a role's strings (its data and lens
// streams) as
//
//   - tmpl (part 4): each string with every number and hex run replaced
//     by a marker: 0x01 for a number, 0x02 and k for a hex run of k bytes
//     (4 ≤ k ≤ 127), and in segments of version 2 (fields.go) 0x04 and a
//     role f for the next string of field f, 0x05 and k (16 ≤ k < 64)
//     for a number of slot k; a byte 0x01–0x05 of the string itself
//     (0x01–0x03 in version 1) is written 0x03 and the byte;
//   - tnums (part 5): for each number, in order, the uvarint zigzag(v −
//     p), p the number its slot (for 0x01 the i-th 0x01 of the string, i
//     ≥ 15 counted as 15; for 0x05 k) held last in the segment's role, 0
//     at first;
//   - thex (part 6): the bytes of each hex run;
//   - tlens (part 7): the uvarint total length of the strings, then each
//     template's length, a uvarint.
//
// A number is a run of 1 to 18 decimal digits without a leading zero (but
// "0"); a hex run one of 8 to 254 lowercase hex digits, even in number,
// with a letter and a digit; each a whole run of ASCII letters and digits
// (the bytes around it, if any, are not letters or digits). Rebuilding a
// string writes each number in decimal and each hex run in lowercase hex.

const (
	markNum   = 0x01
	markHex   = 0x02
	markEsc   = 0x03
	markField = 0x04 // segments of version 2
	markSlot  = 0x05 // segments of version 2

	maxDigits = 18
	minHex    = 4 // bytes
	maxHex    = 127
	slots     = 16
	pathSlots = 48 // version 2: numbers of JSON values, a slot for each path (fields.go)
	allSlots  = slots + pathSlots
)

// tokens is the four token streams of a role, and (an Encoder's) the
// fields its JSON strings' values go to, nil for none.
type tokens struct {
	tmpl, nums, hex, lens []byte
	fields                *fieldSet
	sawJSON               bool // a JSON document was met since reset (with fields)
}

func (t *tokens) reset() {
	t.tmpl, t.nums, t.hex, t.lens = t.tmpl[:0], t.nums[:0], t.hex[:0], t.lens[:0]
	t.sawJSON = false
}

// tokenize appends the strings (data cut by the uvarint lengths lens) to
// t; false, with t in no useful state, when lens do not cut data exactly.
func (t *tokens) tokenize(data, lens []byte) bool {
	sum := uint64(0)
	for p := 0; p < len(lens); {
		n, k := binary.Uvarint(lens[p:])
		if k <= 0 {
			return false
		}
		p += k
		sum += n
	}
	if sum != uint64(len(data)) {
		return false
	}
	t.lens = binary.AppendUvarint(t.lens, uint64(len(data)))
	var prev [allSlots]int64
	for p := 0; p < len(lens); {
		n, k := binary.Uvarint(lens[p:])
		p += k
		start := len(t.tmpl)
		t.tokenizeOne(data[:n], &prev)
		data = data[n:]
		t.lens = binary.AppendUvarint(t.lens, uint64(len(t.tmpl)-start))
	}
	return true
}

// tokenizeOne appends the tokens of one string.
func (t *tokens) tokenizeOne(s []byte, prev *[allSlots]int64) {
	slot := 0
	if t.fields != nil {
		t.tokenizeFields(s, prev, &slot)
		return
	}
	t.tokenizePlain(s, prev, &slot)
}

// tokenizePlain appends the tokens of s, its numbers counted from *slot.
func (t *tokens) tokenizePlain(s []byte, prev *[allSlots]int64, slot *int) {
	// s[lit:i] goes to the template as it is, in one append when a token
	// ends it: appending each run of letters and of other bytes on its own
	// was most of the tokenizer's time.
	lit := 0
	for i := 0; ; {
		// Only a run with a digit can be a token (a number, or a hex run,
		// which has a digit and a letter), and only a marker needs
		// escaping: the bytes before the next of either are literal.
		k := nextDigitOrMark(s, i)
		if k == len(s) {
			break
		}
		if class[s[k]] == clMark {
			t.tmpl = append(append(t.tmpl, s[lit:k]...), markEsc, s[k])
			i = k + 1
			lit = i
			continue
		}
		// The alphanumeric run around the digit (i is never inside a
		// run: it is 0, or follows a marker, or ends a run), classified
		// as it is scanned.
		for k > i && class[s[k-1]] >= clDigit {
			k--
		}
		var seen uint8
		j := k
		for j < len(s) && class[s[j]] >= clDigit {
			seen |= class[s[j]]
			j++
		}
		run := s[k:j]
		switch {
		case seen == clDigit && len(run) <= maxDigits && (run[0] != '0' || len(run) == 1):
			v := int64(0)
			for _, d := range run {
				v = v*10 + int64(d-'0')
			}
			sl := min(*slot, slots-1)
			t.nums = binary.AppendUvarint(t.nums, zigzag(v-prev[sl]))
			prev[sl] = v
			*slot++
			t.tmpl = append(append(t.tmpl, s[lit:k]...), markNum)
			lit = j
		case seen == clDigit|clHex && len(run)%2 == 0 && len(run) >= 2*minHex && len(run) <= 2*maxHex:
			t.tmpl = append(append(t.tmpl, s[lit:k]...), markHex, byte(len(run)/2))
			t.hex = appendUnhex(t.hex, run)
			lit = j
		}
		i = j
	}
	t.tmpl = append(t.tmpl, s[lit:]...)
}

// nextDigitOrMark returns the index of the first decimal digit or marker
// byte of s from i on, or len(s). It looks at 8 bytes at a time: in a
// word x, hasBetween flags exactly the bytes strictly between lo and hi
// (both at most 128; bytes of 128 and more are flagged by neither). On
// text, most bytes lie before the next digit: the byte loop this replaced
// was an eighth of compress's CPU on a dump of source files.
func nextDigitOrMark(s []byte, i int) int {
	for ; i+8 <= len(s); i += 8 {
		x := binary.LittleEndian.Uint64(s[i : i+8])
		if m := hasBetween(x, '0'-1, '9'+1) | hasBetween(x, markNum-1, markSlot+1); m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for ; i < len(s); i++ {
		if c := class[s[i]]; c == clDigit || c == clMark {
			return i
		}
	}
	return i
}

// hasBetween is the high bit of each byte of x that is over lo and under
// hi (Sean Anderson's bit hack, per byte and without carries between
// bytes: the low seven bits are summed apart from the high one).
func hasBetween(x uint64, lo, hi uint64) uint64 {
	const ones, low7, highs = 0x0101010101010101, 0x7f7f7f7f7f7f7f7f, 0x8080808080808080
	y := x & low7
	return (ones*(127+hi) - y) &^ x & (y + ones*(127-lo)) & highs
}

// Byte classes for tokenizing: flags of the alphanumerics (a run's
// classes or-ed tell a number, clDigit, from a hex run, clDigit|clHex).
const (
	clOther = 0 // not a letter or digit, not a marker
	clMark  = 1 // 0x01..0x05: escaped in a template
	clDigit = 2 // 0-9
	clHex   = 4 // a-f
	clAlpha = 8 // the other letters
)

var class = func() (a [256]uint8) {
	for c := range 256 {
		switch {
		case c >= markNum && c <= markSlot:
			a[c] = clMark
		case c >= '0' && c <= '9':
			a[c] = clDigit
		case c >= 'a' && c <= 'f':
			a[c] = clHex
		case c >= 'g' && c <= 'z' || c >= 'A' && c <= 'Z':
			a[c] = clAlpha
		}
	}
	return a
}()

func unhex(c byte) byte {
	if c <= '9' {
		return c - '0'
	}
	return c - 'a' + 10
}

func appendUnhex(dst, run []byte) []byte {
	for i := 0; i < len(run); i += 2 {
		dst = append(dst, unhex(run[i])<<4|unhex(run[i+1]))
	}
	return dst
}

var (
	errTokens    = errors.New("the token streams do not add up")
	errTokNumber = errors.New("a token number out of range")
	errTokMark   = errors.New("a template's marker cut short or out of range")
	errTokField  = errors.New("a field marker names a role that cannot be a field")
	errFieldLeft = errors.New("a field's strings are not all taken")
)

const hexDigits = "0123456789abcdef"

// untokenize rebuilds the strings of token streams: their bytes appended
// to data (at most limit of them) and their lengths, uvarints, to lens.
// Every stream must be read to its end. fields is where a version 2
// segment's field markers take their strings; nil, a version 1 segment's
// templates have none (a byte 0x04 is itself).
func untokenize(data, lens []byte, t tokens, limit int, fields *fieldReader) ([]byte, []byte, error) {
	r := tokReader{t: t, last: markEsc, fields: fields}
	if fields != nil {
		r.last = markSlot
	}
	total, err := r.uvarint(&r.lp, t.lens)
	if err != nil {
		return data, lens, err
	}
	if total > uint64(limit) {
		return data, lens, errTokens
	}
	end := len(data) + int(total)
	var prev [allSlots]int64
	for r.lp < len(t.lens) {
		tl, err := r.uvarint(&r.lp, t.lens)
		if err != nil {
			return data, lens, err
		}
		if tl > uint64(len(t.tmpl)-r.tp) {
			return data, lens, errTokens
		}
		tmpl := t.tmpl[r.tp : r.tp+int(tl)]
		r.tp += int(tl)
		start := len(data)
		if data, err = r.expand(data, tmpl, end, &prev); err != nil {
			return data, lens, err
		}
		lens = binary.AppendUvarint(lens, uint64(len(data)-start))
	}
	if len(data) != end || r.tp != len(t.tmpl) || r.np != len(t.nums) || r.hp != len(t.hex) {
		return data, lens, errTokens
	}
	return data, lens, nil
}

type tokReader struct {
	t              tokens
	tp, np, hp, lp int
	last           byte // the last marker byte: markEsc (version 1) or markSlot
	fields         *fieldReader
}

func (r *tokReader) uvarint(p *int, b []byte) (uint64, error) {
	v, n := binary.Uvarint(b[*p:])
	if n <= 0 {
		return 0, errTokens
	}
	*p += n
	return v, nil
}

// expand writes one template's string, never past end.
func (r *tokReader) expand(data, tmpl []byte, end int, prev *[allSlots]int64) ([]byte, error) {
	slot := 0
	for i := 0; i < len(tmpl); {
		// The literal bytes up to the next marker, in one copy.
		k := literalEnd(tmpl, i, r.last)
		if k > i {
			if len(data)+k-i > end {
				return data, errTokens
			}
			data = append(data, tmpl[i:k]...)
			if i = k; i == len(tmpl) {
				break
			}
		}
		var err error
		switch tmpl[i] {
		case markNum:
			data, err = r.number(data, end, prev, min(slot, slots-1))
			slot++
			i++
		case markHex:
			data, err = r.hexRun(data, tmpl[i+1:], end)
			i += 2
		case markField:
			if i+1 >= len(tmpl) {
				return data, errTokMark
			}
			data, err = r.field(data, tmpl[i+1], end)
			i += 2
		case markSlot:
			if i+1 >= len(tmpl) || tmpl[i+1] < slots || tmpl[i+1] >= allSlots {
				return data, errTokMark
			}
			data, err = r.number(data, end, prev, int(tmpl[i+1]))
			i += 2
		default: // markEsc
			if i+1 >= len(tmpl) || tmpl[i+1]-markNum > r.last-markNum {
				return data, errTokMark
			}
			if len(data) >= end {
				return data, errTokens
			}
			data = append(data, tmpl[i+1])
			i += 2
		}
		if err != nil {
			return data, err
		}
	}
	return data, nil
}

// literalEnd returns the index of the first marker byte (markNum to last)
// in tmpl from i on, or len(tmpl). It looks at 8 bytes at a time: in
// ((x - n·0x01…01) &^ x) & 0x80…80 the lowest byte flagged holds a value
// under n exactly (a borrow only starts at such a byte, and flags only
// bytes above it), and of those only 0 is not a marker. (Byte by byte,
// the scan was a quarter of expand's time on app-cache-nocompress.)
func literalEnd(tmpl []byte, i int, last byte) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	under := ones * (uint64(last) + 1)
	for i+8 <= len(tmpl) {
		x := binary.LittleEndian.Uint64(tmpl[i : i+8])
		m := (x - under) &^ x & highs
		if m == 0 {
			i += 8
			continue
		}
		j := i + bits.TrailingZeros64(m)/8
		if tmpl[j] != 0 {
			return j
		}
		i = j + 1
	}
	for i < len(tmpl) && tmpl[i]-markNum > last-markNum {
		i++
	}
	return i
}

// field writes the next string of field role f.
func (r *tokReader) field(data []byte, f byte, end int) ([]byte, error) {
	s, err := r.fields.next(int(f))
	if err != nil {
		return data, err
	}
	if len(data)+len(s) > end {
		return data, errTokens
	}
	return append(data, s...), nil
}

// number writes the next number of the template's string.
func (r *tokReader) number(data []byte, end int, prev *[allSlots]int64, sl int) ([]byte, error) {
	u, err := r.uvarint(&r.np, r.t.nums)
	if err != nil {
		return data, err
	}
	v := prev[sl] + unzigzag(u)
	if v < 0 || v >= 1e18 {
		return data, errTokNumber
	}
	prev[sl] = v
	n := decLen(uint64(v))
	l := len(data)
	if l+n > end {
		return data, errTokens
	}
	data = slices.Grow(data, n)[:l+n]
	putDec(data[l:], uint64(v), n)
	return data, nil
}

// hexRun writes a hex run; rest is the template after its marker.
func (r *tokReader) hexRun(data, rest []byte, end int) ([]byte, error) {
	if len(rest) == 0 || rest[0] < minHex || rest[0] > maxHex {
		return data, errTokMark
	}
	k := int(rest[0])
	if k > len(r.t.hex)-r.hp || len(data)+2*k > end {
		return data, errTokens
	}
	for _, b := range r.t.hex[r.hp : r.hp+k] {
		data = append(data, hexDigits[b>>4], hexDigits[b&15])
	}
	r.hp += k
	return data, nil
}
