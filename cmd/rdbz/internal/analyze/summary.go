package analyze

import (
	"errors"
	"io"
	"sort"

	"github.com/rdbz/rdbz/rdbio"
	"github.com/rdbz/rdbz/rdbio/envelope"
)

// Summary is what a file holds, counted in one streaming pass.
type Summary struct {
	Magic    string               `json:"magic"`
	Version  int                  `json:"version"`
	Bytes    int64                `json:"bytes"`
	Checksum rdbio.ChecksumStatus `json:"checksum"`
	Aux      []AuxField           `json:"aux"`
	Keys     int64                `json:"keys"`
	// LeftOut counts the keys a filter (Options.Keep) left out: the
	// rest of the summary does not count them.
	LeftOut   int64                   `json:"left_out,omitempty"`
	Expires   int64                   `json:"expires"`
	DBs       []*DBSummary            `json:"dbs"`
	Types     map[string]*TypeSummary `json:"types"`
	ListNodes NodeSummary             `json:"list_nodes"`
	Functions int                     `json:"functions"`
	ModuleAux int                     `json:"module_aux"`
	Dragonfly bool                    `json:"dragonfly"`
	// Unwalked says where and why the walk stopped early at a type or
	// opcode whose layout rdbio does not know; the rest was only checked
	// for a valid trailer, and its keys are not counted.
	Unwalked *Unwalked `json:"unwalked,omitempty"`
	// Envelope is the VKCS envelope the RDB was in (nil for none): the
	// counts and Bytes above are the inner RDB's.
	Envelope *EnvelopeSummary `json:"envelope,omitempty"`
	idx      summaryIndex
}

// summaryIndex finds a Summary's entries as it counts (it is not part of
// what the Summary says): by database, and the last one used and each
// type's, so that most keys cost no map lookup and no type name (info of
// app-cache x4, 353,000 keys, spent 5% of its CPU in them; now, in turns,
// 15 runs 83 -> 78 ms, 25 on a busier machine CPU 138 -> 132 ms).
type summaryIndex struct {
	dbs    map[uint64]*DBSummary
	lastDB *DBSummary
	types  [256]*TypeSummary
}

// EnvelopeSummary is what a VKCS envelope says (docs/rdb-format.md §8).
type EnvelopeSummary struct {
	Version  int    `json:"version"`
	Codec    string `json:"codec"` // lz4 or zstd
	Flags    int    `json:"flags"`
	Checksum bool   `json:"checksum"` // flag bit 0: the codec's checksum is on
	Kind     int    `json:"kind"`     // 0: an RDB
	// LZ4 is the LZ4 frame's descriptor (codec lz4).
	LZ4 *LZ4Frame `json:"lz4,omitempty"`
	// Text is the envelope in words (rdbz info prints it).
	Text string `json:"-"`
}

// LZ4Frame is an LZ4 frame's descriptor.
type LZ4Frame struct {
	BlockMax          int     `json:"block_max"`
	IndependentBlocks bool    `json:"independent_blocks"`
	BlockChecksum     bool    `json:"block_checksum"`
	ContentChecksum   bool    `json:"content_checksum"`
	ContentSize       *uint64 `json:"content_size,omitempty"`
}

// newEnvelopeSummary describes h's envelope; nil for none.
func newEnvelopeSummary(e envelope.Info) *EnvelopeSummary {
	if !e.Enveloped() {
		return nil
	}
	s := &EnvelopeSummary{Version: int(e.Version), Codec: e.Codec.String(), Flags: int(e.Flags),
		Checksum: e.Checksum(), Kind: int(e.Kind), Text: e.String()}
	if e.Codec == envelope.CodecLZ4 {
		f := e.LZ4
		s.LZ4 = &LZ4Frame{BlockMax: f.BlockMax(), IndependentBlocks: f.Independent(),
			BlockChecksum: f.BlockChecksum(), ContentChecksum: f.ContentChecksum()}
		if f.HasContentSize() {
			s.LZ4.ContentSize = &f.ContentSize
		}
	}
	return s
}

// Unwalked is where a walk stopped.
type Unwalked struct {
	Offset int64  `json:"offset"`
	Reason string `json:"reason"`
}

// AuxField is one AUX record.
type AuxField struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// DBSummary counts the keys of one database.
type DBSummary struct {
	DB      uint64 `json:"db"`
	Keys    int64  `json:"keys"`
	Expires int64  `json:"expires"`
}

// TypeSummary counts the keys of one value type and their serialized bytes
// (type byte, key and value as stored).
type TypeSummary struct {
	Keys  int64 `json:"keys"`
	Bytes int64 `json:"bytes"`
}

// NodeSummary counts quicklist node strings by how they are stored.
type NodeSummary struct {
	Nodes       int64 `json:"nodes"`
	Raw         int64 `json:"raw"`
	LZF         int64 `json:"lzf"`
	Zstd        int64 `json:"zstd"`
	Int         int64 `json:"int"`
	Plain       int64 `json:"plain"`
	StoredBytes int64 `json:"stored_bytes"`  // payload bytes as stored
	RawBytes    int64 `json:"decoded_bytes"` // payload bytes decoded
}

// Add counts one node.
func (s *NodeSummary) Add(n *rdbio.Node) {
	s.Nodes++
	switch n.Enc {
	case rdbio.EncRaw:
		s.Raw++
	case rdbio.EncLZF:
		s.LZF++
	case rdbio.EncZstd:
		s.Zstd++
	case rdbio.EncInt:
		s.Int++
	}
	if n.Container == 1 {
		s.Plain++
	}
	s.StoredBytes += int64(n.Size)
	if n.Enc == rdbio.EncInt {
		s.RawBytes += int64(n.Size)
	} else {
		s.RawBytes += int64(n.ULen)
	}
}

// Summarize reads r to the end and counts what it holds. On error it
// returns what it counted so far with the error. progress, if not nil, is
// called now and then with the input offset.
func Summarize(r *rdbio.Reader, progress func(int64)) (*Summary, error) {
	f := rdbio.NewFilter(r, nil)
	s := newSummary(r.Header())
	err := s.finish(f, s.scan(f, progress))
	return s, err
}

// newSummary is the empty summary of a file with header h.
func newSummary(h rdbio.Header) *Summary {
	return &Summary{Magic: h.Magic, Version: h.Version, Types: map[string]*TypeSummary{},
		idx: summaryIndex{dbs: map[uint64]*DBSummary{}}, DBs: []*DBSummary{}, Aux: []AuxField{}, Envelope: newEnvelopeSummary(h.Envelope)}
}

// finish records how a walk ended: where an unknown record stopped it (the
// rest then only checked for a valid trailer), the checksum status, the
// bytes read; it sorts the dbs and returns the walk's error, if any.
func (s *Summary) finish(r *rdbio.Filter, err error) error {
	if errors.Is(err, rdbio.ErrUnsupported) {
		var e *rdbio.Error
		errors.As(err, &e)
		s.Unwalked = &Unwalked{Offset: e.Offset, Reason: err.Error()}
		var eof *rdbio.Record
		if eof, err = r.PassBody(); err == nil {
			s.Checksum = eof.Checksum
		}
	}
	if errors.Is(err, rdbio.ErrChecksum) {
		s.Checksum = rdbio.ChecksumMismatch
	}
	s.Bytes = r.Offset()
	s.LeftOut = r.Filtered().LeftOut
	s.Dragonfly = r.Dragonfly()
	sort.Slice(s.DBs, func(i, j int) bool { return s.DBs[i].DB < s.DBs[j].DB })
	return err
}

func (s *Summary) scan(r *rdbio.Filter, progress func(int64)) error {
	for n := 0; ; n++ {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if progress != nil && n%4096 == 0 {
			progress(rec.Offset)
		}
		switch rec.Kind {
		case rdbio.KindKey:
			if err := s.addKey(r, rec); err != nil {
				return err
			}
		case rdbio.KindAux:
			s.Aux = append(s.Aux, AuxField{string(rec.Name), string(rec.Value)})
		case rdbio.KindFunction:
			s.Functions++
		case rdbio.KindModuleAux:
			s.ModuleAux++
		case rdbio.KindEOF:
			s.Checksum = rec.Checksum
		}
	}
}

func (s *Summary) addKey(r *rdbio.Filter, rec *rdbio.Record) error {
	start, typ := rec.Offset, rec.Type
	s.countKey(rec)
	if rdbio.IsList(typ) {
		if err := s.addNodes(r); err != nil {
			return err
		}
	} else if err := r.Value().Copy(nil); err != nil {
		return err
	}
	t := s.idx.types[typ]
	if t == nil {
		name := typ.String() // types may share a name: then their entry
		if t = s.Types[name]; t == nil {
			t = &TypeSummary{}
			s.Types[name] = t
		}
		s.idx.types[typ] = t
	}
	t.Keys++
	t.Bytes += r.Offset() - start
	return nil
}

func (s *Summary) addNodes(r *rdbio.Filter) error {
	nodes, err := r.Value().Nodes()
	if err != nil {
		return err
	}
	for nodes.Next() {
		s.ListNodes.Add(nodes.Node())
	}
	return nodes.Err()
}

// countKey counts a key record in its database and in the totals.
func (s *Summary) countKey(rec *rdbio.Record) {
	db := s.db(rec.DB)
	db.Keys++
	s.Keys++
	if rec.Expire != -1 {
		db.Expires++
		s.Expires++
	}
}

func (s *Summary) db(n uint64) *DBSummary {
	if d := s.idx.lastDB; d != nil && d.DB == n {
		return d
	}
	d := s.idx.dbs[n]
	if d == nil {
		d = &DBSummary{DB: n}
		s.idx.dbs[n] = d
		s.DBs = append(s.DBs, d)
	}
	s.idx.lastDB = d
	return d
}
