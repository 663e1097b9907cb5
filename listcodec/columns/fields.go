package columns

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

// Fields: the string values of JSON documents, by their path. A role's
// strings of JSON (records, events, sessions, API responses: what a cache
// holds most) repeat their keys and punctuation in every string, while
// their values vary; and a value is most like the values of the same key
// in the other documents, not its neighbours in the same document. So an
// Encoder tokenizing a role (tokens.go) cuts each string value of a JSON
// document out of the template into a field: a role of the segment that
// holds nothing else, one per path (the keys from the document's root to
// the value, an array's elements sharing one path), and writes in its
// place the marker markField and the field's role; and it writes each
// integer value with a slot of its path (markSlot), so that its number is
// a delta from the same key's last one, whatever keys the documents leave
// out. The events of mixed-nocompress's list, their values by path, took
// 0.76 of what they take whole with zstd -3 (MEASURED.md §9).
//
// This is a choice of the writer: the template keeps every byte but the
// values', so whatever the scanner below makes of a string that is not
// JSON, the string is rebuilt as it was.

const (
	// maxFields bounds the fields of one role in a segment: a document
	// whose keys are data (ids as keys) gives a new path for every value,
	// and a field of one value costs more than it saves.
	maxFields = 48
	// maxDepth bounds the paths' nesting: deeper containers share their
	// parent's path.
	maxDepth = 16
	// arrayKey stands for the key of an array's elements.
	arrayKey = 0x9e3779b97f4a7c15
)

// field is one field role's strings in a segment.
type field struct {
	role       int
	data, lens []byte
}

// fieldSet gives out the free roles of a segment to the fields of the
// roles an Encoder tokenizes, and holds their strings until the Encoder
// writes their streams.
type fieldSet struct {
	free   []int // the segment's roles that hold nothing, highest last
	fields []field
	n      int                  // fields given out: fields[:n]
	byRole [MaxRoles]int        // 1 + index into fields, 0: not a field
	byPath pathTable            // the tokenized role's paths
	owner  int                  // the role being tokenized
	count  int                  // fields given out to owner
	path   [maxDepth + 1]uint64 // the containers' paths, outermost first
	key    [maxDepth + 1]uint64 // the last key of each container
	spare  spares               // buffers the fields grow into
}

// reset starts a segment: its free roles are those of seg that hold no
// stream.
func (fs *fieldSet) reset(seg *Segment) {
	for i := range fs.n {
		fs.byRole[fs.fields[i].role] = 0
	}
	// The fields the last segment did not give out hand their buffers to
	// the spares, which the fields that grow take from: the first
	// segments of lists-events at scale 8 gave out 87 fields, the rest 2,
	// and the 85 others' buffers held 5 MB of each Encoder's heap, where
	// compress collected without pause; let go instead, they were
	// allocated again as fields came back (41 -> 62 MB).
	fs.spare.age()
	for i := fs.n; i < len(fs.fields); i++ {
		f := &fs.fields[i]
		fs.spare.put(f.data)
		f.data, f.lens = nil, nil
	}
	fs.n, fs.free = 0, fs.free[:0]
	for r := firstDynamic; r < MaxRoles; r++ {
		empty := true
		for part := range 1 << partBits {
			if len(seg.bufs[streamID(r, part)]) > 0 {
				empty = false
				break
			}
		}
		if empty {
			fs.free = append(fs.free, r)
		}
	}
}

// begin starts the strings of role r.
func (fs *fieldSet) begin(r int) {
	fs.owner, fs.count = r, 0
	fs.byPath.vals = [pathTableSize]uint16{}
}

// drop gives back the fields given out since mark (fs.n at the time): a
// trial whose tokens lost.
func (fs *fieldSet) drop(mark int) {
	for i := fs.n - 1; i >= mark; i-- {
		r := fs.fields[i].role
		fs.byRole[r] = 0
		fs.free = append(fs.free, r)
	}
	fs.n = mark
}

// of returns the field of a path of the role being tokenized, given out
// when it is new; nil when there is none to give (then the value stays in
// the template).
func (fs *fieldSet) of(path uint64) *field {
	if i := fs.byPath.get(path); i != 0 {
		return &fs.fields[i-1]
	}
	k := len(fs.free) - 1
	if fs.count >= maxFields || k < 0 || fs.free[k] <= fs.owner {
		// A field's role is above its owner's: the Encoder writes the
		// streams in role order, and the owner's tokens first.
		return nil
	}
	r := fs.free[k]
	fs.free = fs.free[:k]
	if fs.n == len(fs.fields) {
		fs.fields = append(fs.fields, field{})
	}
	f := &fs.fields[fs.n]
	f.role, f.data, f.lens = r, f.data[:0], f.lens[:0]
	fs.n++
	fs.count++
	fs.byRole[r] = fs.n
	fs.byPath.put(path, fs.n)
	return f
}

// pathTable maps the paths of the role being tokenized to their fields (1
// + index into fieldSet.fields; 0: none), open addressed: at most
// maxFields entries in pathTableSize slots, so a probe always meets an
// empty slot. (A Go map's lookups were a fifth of tokenizeJSON's time.)
type pathTable struct {
	keys [pathTableSize]uint64
	vals [pathTableSize]uint16
}

const pathTableBits = 7

const pathTableSize = 1 << pathTableBits

// The table holds at least twice maxFields (a compile error otherwise).
var _ [pathTableSize - 2*maxFields]struct{}

// slot is where path's probe starts: the top bits of a multiplicative hash.
func (t *pathTable) slot(path uint64) int {
	return int(path * 0x9e3779b97f4a7c15 >> (64 - pathTableBits))
}

func (t *pathTable) get(path uint64) int {
	for i := t.slot(path); ; i = (i + 1) % pathTableSize {
		if t.vals[i] == 0 || t.keys[i] == path {
			return int(t.vals[i])
		}
	}
}

// put maps path to v (1 to 65535).
func (t *pathTable) put(path uint64, v int) {
	i := t.slot(path)
	for t.vals[i] != 0 && t.keys[i] != path {
		i = (i + 1) % pathTableSize
	}
	t.keys[i], t.vals[i] = path, uint16(v)
}

// add appends one value to f, its data grown as a Splitter grows a
// stream (spares.grow).
func (fs *fieldSet) add(f *field, v []byte) {
	f.data = append(fs.spare.grow(f.data, len(v)), v...)
	f.lens = binary.AppendUvarint(f.lens, uint64(len(v)))
}

// tokenizeFields appends the tokens of a string that may hold JSON
// documents. A document is an object: a '{', then a key, a string
// followed by ':' (blanks allowed between, as pretty-printed JSON has
// them; source code's lists of strings, {"a", "b"}, are not). Documents
// are looked for wherever a string holds them, so that a string of
// several (the pieces of a list longer than a segment, with their
// listpacks' headers between them) has its values cut out too.
func (t *tokens) tokenizeFields(s []byte, prev *[allSlots]int64, slot *int) {
	for from := 0; ; {
		i := bytes.IndexByte(s[from:], '{')
		if i < 0 {
			break
		}
		i += from
		if !objectAt(s, i) {
			from = i + 1
			continue
		}
		t.sawJSON = true
		t.tokenizePlain(s[:i], prev, slot)
		s, from = s[i+t.tokenizeJSON(s[i:], prev, slot):], 0
	}
	t.tokenizePlain(s, prev, slot)
}

// objectAt tells whether a JSON object starts at s[i] ('{'): a key follows.
func objectAt(s []byte, i int) bool {
	j := skipBlanks(s, i+1)
	if j == len(s) || s[j] != '"' {
		return false
	}
	q := stringEnd(s, j+1)
	return q >= 0 && isKey(s, q+1)
}

// skipBlanks returns the index of the first byte of s from i on that is
// not JSON whitespace, or len(s).
func skipBlanks(s []byte, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

// tokenizeJSON appends the tokens of a JSON document at the start of s
// (s[0] is '{'): its string values as fields where one is given, the rest
// as tokenizePlain does. It returns the bytes it took: up to the brace
// that closes the document, or all of s.
func (t *tokens) tokenizeJSON(s []byte, prev *[allSlots]int64, slot *int) int {
	fs := t.fields
	depth, over := 0, 0 // over: containers deeper than maxDepth
	fs.path[0], fs.key[0] = 0, 0
	lit := 0 // s[lit:] is not yet in the template
	for i := 0; i < len(s); i++ {
		for i < len(s) && !jsonSyntax[s[i]] {
			i++
		}
		if i == len(s) {
			break
		}
		switch s[i] {
		case '{', '[':
			if depth == maxDepth {
				over++
				continue
			}
			fs.path[depth+1] = mix(fs.path[depth], fs.key[depth])
			depth++
			fs.key[depth] = 0
			if s[i] == '[' {
				fs.key[depth] = arrayKey
			}
		case '}', ']':
			if over > 0 {
				over--
				continue
			}
			if depth--; depth == 0 {
				t.tokenizePlain(s[lit:i+1], prev, slot)
				return i + 1
			}
		case '"':
			j := stringEnd(s, i+1)
			if j < 0 {
				t.tokenizePlain(s[lit:], prev, slot)
				return len(s)
			}
			if isKey(s, j+1) {
				fs.key[depth] = hashBytes(s[i+1 : j])
				if k, e := intValue(s, j+1); e > k {
					t.tokenizePlain(s[lit:k], prev, slot)
					t.pathNumber(s[k:e], mix(fs.path[depth], fs.key[depth]), prev)
					lit, j = e, e-1
				}
			} else if j > i+1 {
				if f := fs.of(mix(fs.path[depth], fs.key[depth])); f != nil {
					t.tokenizePlain(s[lit:i+1], prev, slot)
					t.tmpl = append(t.tmpl, markField, byte(f.role))
					fs.add(f, s[i+1:j])
					lit = j
				}
			}
			i = j
		}
	}
	t.tokenizePlain(s[lit:], prev, slot)
	return len(s)
}

// jsonSyntax marks the bytes tokenizeJSON stops at.
var jsonSyntax = [256]bool{'{': true, '[': true, '}': true, ']': true, '"': true}

// stringEnd returns the index of the quote that ends the JSON string
// starting at s[i] (after its opening quote), or -1.
func stringEnd(s []byte, i int) int {
	for {
		k := bytes.IndexByte(s[i:], '"')
		if k < 0 {
			return -1
		}
		j := i + k
		b := j // the quote is escaped when an odd run of backslashes precedes it
		for b > i && s[b-1] == '\\' {
			b--
		}
		if (j-b)%2 == 0 {
			return j
		}
		i = j + 1
	}
}

// isKey tells whether a ':' follows s[i:], after blanks.
func isKey(s []byte, i int) bool {
	i = skipBlanks(s, i)
	return i < len(s) && s[i] == ':'
}

func mix(path, key uint64) uint64 {
	return (path^key)*0x100000001b3 + 0x9e3779b97f4a7c15
}

// hashBytes is FNV-1a.
func hashBytes(b []byte) uint64 {
	h := uint64(0xcbf29ce484222325)
	for _, c := range b {
		h = (h ^ uint64(c)) * 0x100000001b3
	}
	return h
}

// fieldReader gives the templates of a version 2 segment the strings of
// its field roles, in order. A field role holds data and lens only (no
// numbers, order or tokens) and is not the role whose template names it;
// once every template is expanded its strings must all be taken, and its
// streams are emptied before the tape runs, so that the tape can take
// none of them.
type fieldReader struct {
	seg    *Segment
	owner  int
	bad    [MaxRoles]bool // roles that cannot be fields
	used   [MaxRoles]bool
	dp, lp [MaxRoles]int // read positions in data and lens
}

// start readies the fields of seg, before any of its roles' tokens is
// rebuilt.
func (fr *fieldReader) start(seg *Segment) {
	fr.seg = seg
	for r := range MaxRoles {
		fr.used[r], fr.dp[r], fr.lp[r] = false, 0, 0
		fr.bad[r] = r == 0 || len(seg.bufs[numsID(r)])+len(seg.bufs[orderID(r)]) > 0
		for part := partTmpl; part <= partTLens && !fr.bad[r]; part++ {
			fr.bad[r] = len(seg.bufs[streamID(r, part)]) > 0
		}
	}
}

// next returns the next string of field role f.
func (fr *fieldReader) next(f int) ([]byte, error) {
	if f == fr.owner || fr.bad[f] {
		return nil, errTokField
	}
	data, lens := fr.seg.bufs[dataID(f)], fr.seg.bufs[lensID(f)]
	n, k := binary.Uvarint(lens[fr.lp[f]:])
	if k <= 0 || n > uint64(len(data)-fr.dp[f]) {
		return nil, errTokens
	}
	fr.used[f] = true
	fr.lp[f] += k
	s := data[fr.dp[f] : fr.dp[f]+int(n)]
	fr.dp[f] += int(n)
	return s, nil
}

// finish checks that the fields' strings were all taken and empties their
// streams.
func (fr *fieldReader) finish() error {
	for r, used := range fr.used {
		if !used {
			continue
		}
		if fr.dp[r] != len(fr.seg.bufs[dataID(r)]) || fr.lp[r] != len(fr.seg.bufs[lensID(r)]) {
			return fmt.Errorf("role %d: %w", r, errFieldLeft)
		}
		fr.seg.bufs[dataID(r)], fr.seg.bufs[lensID(r)] = nil, nil
	}
	return nil
}

// intValue finds the value after a key's quote at s[i]: when it is an
// integer t.tokenizePlain would take as a number, followed by what ends
// a JSON value, its start and end; else 0, 0.
func intValue(s []byte, i int) (int, int) {
	i = skipBlanks(s, i) + 1 // after the ':' isKey saw
	i = skipBlanks(s, i)
	k := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if n := i - k; n == 0 || n > maxDigits || n > 1 && s[k] == '0' || i == len(s) || !jsonValueEnd[s[i]] {
		return 0, 0
	}
	return k, i
}

var jsonValueEnd = [256]bool{',': true, '}': true, ']': true, ' ': true, '\t': true, '\n': true, '\r': true}

// pathNumber appends the number run, a JSON value, with the slot of its
// path: markSlot and the slot, and its delta from the slot's last number.
func (t *tokens) pathNumber(run []byte, path uint64, prev *[allSlots]int64) {
	v := int64(0)
	for _, d := range run {
		v = v*10 + int64(d-'0')
	}
	sl := slots + int(path%pathSlots)
	t.tmpl = append(t.tmpl, markSlot, byte(sl))
	t.nums = binary.AppendUvarint(t.nums, zigzag(v-prev[sl]))
	prev[sl] = v
}
