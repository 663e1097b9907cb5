package reshape

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/rdbz/rdbz/cmd/rdbz/internal/convert"
	"github.com/rdbz/rdbz/cmd/rdbz/internal/extsort"
	"github.com/rdbz/rdbz/rdbio"
)

// Policy says what Merge does with a key that more than one input holds.
type Policy uint8

// The policies (rdbz merge --on-duplicate).
const (
	OnDuplicateError Policy = iota // refuse the inputs, naming the first such key
	KeepFirst                      // keep the value of the first input that holds it
	KeepLast                       // keep the value of the last input that holds it
)

// MergeOptions configure Merge. The zero value refuses duplicate keys.
type MergeOptions struct {
	// Options say how each input is read (Cap, IgnoreChecksum).
	rdbio.Options
	// Keep, when set, selects the keys merged (rdbio.Filter); nil: every
	// key.
	Keep        func(*rdbio.Record) bool
	OnDuplicate Policy
	// Phase, when set, is called as the work moves on: "indexing" (the
	// first pass over every input), "merging".
	Phase func(name string)
}

// MergeReport is what Merge did.
type MergeReport struct {
	Magic  string
	Inputs []InputReport
	// Keys and Expires are the output's keys and keys with an expiry;
	// Bytes its size.
	Keys, Expires, Bytes int64
	// Duplicates counts the key occurrences left out as another input's
	// were kept (KeepFirst, KeepLast).
	Duplicates int64
	// Functions counts the function libraries written; SameFunctions the
	// identical ones left out.
	Functions, SameFunctions int64
}

// InputReport is what Merge took from one input.
type InputReport struct {
	Name  string
	Magic string
	Keys  int64 // the keys it holds
	// Shadowed counts its keys left out because another input's value of
	// the same key was kept.
	Shadowed int64
}

// Merge writes to dst one RDB holding the keys of every input, each value
// as it is stored (its record's bytes), with the magic
// convert.MergedHeader gives the inputs' (the highest of their versions;
// inputs that cannot share one are refused: convert them for one target
// first). It reads every input twice: a first pass indexes the keys
// (keyIndex: bounded memory) and the function libraries, and refuses a
// library two inputs define differently and, under OnDuplicateError, a key
// two inputs hold (naming the first one met in input order, and both
// inputs); the second writes, per input in turn, its records: the AUX
// fields (the first of each name: those of the first input that has it;
// every distinct "lua" script of Redis ≤ 6), each function library once,
// each identical module AUX record once, its keys under a SELECTDB per db
// (with a RESIZEDB of the db's total before its first key), minus the
// occurrences the policy leaves out. The trailer is the CRC64 of the
// output. It returns the report, also when it fails.
func Merge(ctx context.Context, inputs []Input, dst io.Writer, opt MergeOptions) (*MergeReport, error) {
	rep := &MergeReport{Inputs: make([]InputReport, len(inputs))}
	m := &merger{ctx: ctx, inputs: inputs, opt: opt, rep: rep, funcs: map[string]function{},
		dbs: map[uint64]*dbCount{}}
	for i, in := range inputs {
		if in.Once {
			return rep, fmt.Errorf("%s: merge reads each input twice: name a file, not a stream", in.Name)
		}
		rep.Inputs[i].Name = in.Name
	}
	if len(inputs) >= 1<<(64-offsetBits) {
		return rep, fmt.Errorf("merge: %d inputs, at most %d", len(inputs), 1<<(64-offsetBits)-1)
	}
	phase(opt.Phase, "indexing")
	drops, err := m.index()
	if err != nil {
		return rep, err
	}
	defer drops.Close()
	phase(opt.Phase, "merging")
	return rep, m.write(dst, drops)
}

// merger is the state of one Merge.
type merger struct {
	ctx    context.Context
	inputs []Input
	opt    MergeOptions
	rep    *MergeReport
	hdr    rdbio.Header
	funcs  map[string]function // by library name (pass 1), written (pass 2)
	dbs    map[uint64]*dbCount

	// pass 2
	w       *rdbio.Writer
	g       *gate
	r       *rdbio.Filter
	cur     int   // the input being written
	db      int64 // the output's selected db; -1 before the first
	written map[string]bool
	once    map[[sha256.Size]byte]bool
	drops   *dropList
}

// function is a library: its code's hash and the first input defining it.
type function struct {
	sum     [sha256.Size]byte
	input   int
	written bool
}

// dbCount is a db of the output: its keys and keys with an expiry, once
// the duplicates left out are taken away.
type dbCount struct {
	keys, expires int64
	resized       bool
}

// index is the first pass: keys, function libraries and magics of every
// input; then the duplicates, which it refuses or turns into the sorted
// list of the occurrences to leave out.
func (m *merger) index() (*extsort.Sorter[uint64], error) {
	x := newKeyIndex()
	defer x.close()
	hs := make([]rdbio.Header, len(m.inputs))
	dfly := make([]bool, len(m.inputs))
	for i, in := range m.inputs {
		r, err := eachRecord(m.ctx, in, m.opt.Options, m.opt.Keep, func(_ *rdbio.Filter, rec *rdbio.Record) error {
			return m.indexRecord(x, i, rec)
		})
		if err != nil {
			return nil, err
		}
		hs[i], dfly[i] = r.Header(), r.Dragonfly()
		m.rep.Inputs[i].Magic = hs[i].Magic
	}
	hdr, err := convert.MergedHeader(hs, dfly)
	if err != nil {
		return nil, err
	}
	m.hdr, m.rep.Magic = hdr, hdr.Magic
	return m.resolve(x)
}

// indexRecord takes what the first pass needs of one record.
func (m *merger) indexRecord(x *keyIndex, i int, rec *rdbio.Record) error {
	switch rec.Kind {
	case rdbio.KindKey:
		if rec.Offset >= 1<<offsetBits {
			return fmt.Errorf("offset %d: inputs over %d bytes cannot be merged", rec.Offset, int64(1)<<offsetBits)
		}
		m.rep.Inputs[i].Keys++
		d := m.dbs[rec.DB]
		if d == nil {
			d = &dbCount{}
			m.dbs[rec.DB] = d
		}
		d.keys++
		if rec.Expire >= 0 {
			d.expires++
		}
		return x.add(rec.DB, rec.DB, rec.Key, i, rec.Offset, rec.Expire >= 0)
	case rdbio.KindFunction:
		if rec.Op == rdbio.OpFunction2 {
			return m.indexFunction(i, rec)
		}
	}
	return nil
}

// indexFunction refuses a library defined differently by another input.
func (m *merger) indexFunction(i int, rec *rdbio.Record) error {
	name := libraryName(rec.Value)
	f := function{sum: sha256.Sum256(rec.Value), input: i}
	prev, ok := m.funcs[name]
	switch {
	case !ok:
		m.funcs[name] = f
	case prev.sum != f.sum:
		return fmt.Errorf("offset %d: function library %q: %s defines it otherwise: %w",
			rec.Offset, name, m.inputs[prev.input].Name, ErrDuplicate)
	}
	return nil
}

// libraryName is the name a library's code gives itself on its first line
// ("#!lua name=mylib"); the code itself when it has none.
func libraryName(code []byte) string {
	line := code
	for i, c := range code {
		if c == '\n' {
			line = code[:i]
			break
		}
	}
	var name string
	if n, err := fmt.Sscanf(string(line), "#!%s name=%s", new(string), &name); err == nil && n == 2 {
		return name
	}
	return string(code)
}

// resolve goes through the duplicates: the first one refuses the inputs
// under OnDuplicateError; otherwise the occurrences the policy leaves out
// are sorted by id for the second pass, and taken from the dbs' counts.
func (m *merger) resolve(x *keyIndex) (*extsort.Sorter[uint64], error) {
	drops := extsort.New(u64Codec, cmp.Compare[uint64], sortMem, "")
	var first *[2]keyRec
	err := x.pairs(func(prev, cur keyRec) error {
		switch m.opt.OnDuplicate {
		case OnDuplicateError:
			if first == nil || cur.id < first[1].id {
				first = &[2]keyRec{prev, cur}
			}
			return nil
		case KeepLast:
			prev, cur = cur, prev // cur is left out
		}
		m.dropped(cur)
		return drops.Add(cur.id)
	})
	if err == nil && first != nil {
		err = m.duplicateError(first[0], first[1])
	}
	if err != nil {
		drops.Close()
		return nil, err
	}
	return drops, nil
}

// dropped takes an occurrence left out from the counts.
func (m *merger) dropped(k keyRec) {
	d := m.dbs[k.meta>>1]
	d.keys--
	if k.meta&1 != 0 {
		d.expires--
	}
	in, _ := splitID(k.id)
	m.rep.Inputs[in].Shadowed++
	m.rep.Duplicates++
}

// duplicateError names the duplicate key (read again from its input) and
// both inputs.
func (m *merger) duplicateError(prev, cur keyRec) error {
	in, off := splitID(cur.id)
	pin, poff := splitID(prev.id)
	key, err := keyAt(m.ctx, m.inputs[in], m.opt.Options, m.opt.Keep, off)
	if err != nil {
		return err
	}
	return fmt.Errorf("%w %s in db %d: %s (input %d, offset %d) and %s (input %d, offset %d) both hold it (--on-duplicate first or last keeps one)",
		ErrDuplicate, rdbio.QuoteKey(key, quoteMax), cur.meta>>1, m.inputs[pin].Name, pin+1, poff, m.inputs[in].Name, in+1, off)
}

var u64Codec = extsort.Codec[uint64]{Size: 8,
	Put: func(b []byte, v uint64) { binary.LittleEndian.PutUint64(b, v) },
	Get: func(b []byte) uint64 { return binary.LittleEndian.Uint64(b) }}
