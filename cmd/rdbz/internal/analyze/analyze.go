package analyze

import (
	"encoding/binary"
	"errors"
	"io"
	"strconv"
	"time"

	"github.com/rdbz/rdbz/listcodec"
	"github.com/rdbz/rdbz/listcodec/format"
	"github.com/rdbz/rdbz/listcodec/format2"
	"github.com/rdbz/rdbz/listcodec/v1"
	"github.com/rdbz/rdbz/rdbio"
)

// Options configure Analyze. A zero field means its default (the zero
// Options: the report without per-key rows or what-if).
type Options struct {
	// Top is how many keys and prefixes the rankings keep (default 10).
	Top int
	// PrefixSep holds the bytes that end a key prefix (default ":").
	PrefixSep string
	// PrefixDepth is how many separators deep prefixes are ranked
	// (default 2: "events", then "events:user").
	PrefixDepth int
	// MaxPrefixes bounds the prefixes tracked at each depth (default
	// 1000); beyond it the ranking is approximate (see PrefixStats).
	MaxPrefixes int
	// Keys, when set, gets a CSV row for every key its filter selects, as
	// the keys are read (nil: no rows).
	Keys *KeyCSV
	// Keep, when set, selects the keys analyzed (rdbio.Filter): the
	// analysis is that of the keys it keeps, LeftOut counts the others,
	// and the what-if is that of a compress with the same filter. nil:
	// every key.
	Keep func(*rdbio.Record) bool
	// WhatIf, when set, also predicts from the same pass what `rdbz
	// compress --format 1` run with these options would write (v1.WhatIf;
	// zero fields take Compress's defaults): Analysis.WhatIf. For the
	// prediction to hold, the reader captures with WhatIf's Cap, as
	// Compress does (0 for both: rdbio.DefaultCap). nil: no prediction.
	WhatIf *v1.CompressOptions
	// Format2, with WhatIf, predicts format 2's output too (its Tee must
	// be the reader r reads); Analyze waits for it and closes it.
	Format2 *listcodec.Format2Estimate
	// Now is the TTL reference when the file has no ctime AUX field
	// (default time.Now()).
	Now time.Time
}

// Defaults of Options, which the command line shows and uses.
const (
	DefaultTop         = 10
	DefaultPrefixSep   = ":"
	DefaultMaxPrefixes = 1000
	DefaultPrefixDepth = 2
)

func (o Options) withDefaults() Options {
	if o.Top <= 0 {
		o.Top = DefaultTop
	}
	if o.PrefixSep == "" {
		o.PrefixSep = DefaultPrefixSep
	}
	if o.MaxPrefixes <= 0 {
		o.MaxPrefixes = DefaultMaxPrefixes
	}
	if o.PrefixDepth <= 0 {
		o.PrefixDepth = DefaultPrefixDepth
	}
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	return o
}

// Analyze reads r to the end and describes what the file holds, in one
// pass and bounded memory (the rankings are of fixed size, prefixes are
// tracked up to a bound, node sizes go to a fixed histogram, the hashes of
// the keys that the duplicate-key check keeps go to a temporary file
// beyond a bound: see keySet). r must have
// no sink (rdbio.Reader.SetSink): list node payloads never reach it. On error it returns what it found so far
// with the error; a record it cannot walk ends the walk as in Summarize
// (Unwalked).
//
// With Options.WhatIf, once the pass has read the whole file without error
// and with a checksum that is not a mismatch, it trains the what-if's
// dictionary and predicts (Analysis.WhatIf, WhatIfSeconds).
//
// With Options.Keep, the analysis is that of the keys it keeps.
func Analyze(r *rdbio.Reader, opt Options) (*Analysis, error) {
	var key func(*KeyRow) error
	if opt.Keys != nil {
		key = opt.Keys.row
	}
	return analyze(rdbio.NewFilter(r, opt.Keep), opt, key)
}

// analyze is Analyze with every key's row given to key, when set.
func analyze(r *rdbio.Filter, opt Options, key func(*KeyRow) error) (*Analysis, error) {
	opt = opt.withDefaults()
	h := r.Header()
	res := &Analysis{
		Summary:   *newSummary(h),
		TypeStats: map[string]*TypeStats{}, Rankings: Rankings{Biggest: map[string]*KeyInfo{}},
		Rdbz: RdbzInfo{Dicts: []DictInfo{}},
	}
	a := &analyzer{r: r, opt: opt, res: res, keyRow: key,
		prefixes: newPrefixTree(opt.PrefixDepth, opt.MaxPrefixes, opt.PrefixSep),
		compat:   newCompatCollector(opt.Now),
		byName:   map[string]*typeSlot{},
	}
	a.topB = topKeys{n: opt.Top, by: func(k *KeyInfo) int64 { return k.Bytes }}
	a.topE = topKeys{n: opt.Top, by: func(k *KeyInfo) int64 { return k.Elements }}
	a.topM = topKeys{n: opt.Top, by: func(k *KeyInfo) int64 { return k.Memory }}
	a.visit = a.vm.add
	if opt.WhatIf != nil {
		a.whatIf = v1.NewWhatIf(*opt.WhatIf)
	}
	s := &res.Summary
	err := s.finish(r, a.scan())
	if err == nil && s.Unwalked == nil {
		n, rerr := r.CopyRest(io.Discard)
		res.TrailingBytes, err = n, rerr
	}
	a.finish()
	if a.whatIf != nil && err == nil && res.Checksum != rdbio.ChecksumMismatch {
		start := time.Now()
		// Format 2's estimate first: the two trainings must not hold their
		// memory at once.
		var p *format2.Prediction
		if opt.Format2 != nil && !res.Rdbz.Compressed {
			p, err = opt.Format2.Result()
		}
		if err == nil {
			// The file a filtered compress would read: less what the
			// filter left out.
			res.WhatIf, err = a.whatIf.Estimate(v1.EstimateInput{Bytes: res.Bytes + res.TrailingBytes - r.Filtered().Bytes,
				Compressed: res.Rdbz.Compressed, ChecksumDisabled: res.Checksum == rdbio.ChecksumDisabled})
		}
		if err == nil && p != nil {
			res.WhatIf.SetFormat2(p)
		}
		res.WhatIfSeconds = time.Since(start).Seconds()
	}
	if opt.Format2 != nil {
		opt.Format2.Close()
	}
	return res, err
}

// typeSlot caches what one value type maps to, so that the per-key path
// looks nothing up by name.
type typeSlot struct {
	name, family string
	stats        *TypeStats
	sum          *TypeSummary
	use          *use
}

// slot returns the cache entry for type typ (two types of one name, as
// Dragonfly's two JSON types, share one).
func (a *analyzer) slot(typ rdbio.Type) *typeSlot {
	if s := a.types[typ]; s != nil {
		return s
	}
	name := typ.String()
	s := a.byName[name]
	if s == nil {
		s = &typeSlot{name: name, family: typ.Family()}
		a.byName[name] = s
	}
	a.types[typ] = s
	return s
}

// counted returns the slot with its counters, created when its first key
// is read whole (so that a failed read leaves no empty entry).
func (a *analyzer) counted(typ rdbio.Type, s *typeSlot) *typeSlot {
	if s.stats != nil {
		return s
	}
	res := a.res
	s.stats = &TypeStats{Family: s.family}
	res.TypeStats[s.name] = s.stats
	s.sum = &TypeSummary{}
	res.Types[s.name] = s.sum
	s.use = a.compat.typeUse(typ, s.name)
	return s
}

// analyzer holds the state of one Analyze pass.
type analyzer struct {
	r        *rdbio.Filter
	opt      Options
	res      *Analysis
	vm       valueMem
	visit    func(*rdbio.Elem) error
	dec      []byte
	topB     topKeys
	topE     topKeys
	topM     topKeys
	row      KeyRow
	keyRow   func(*KeyRow) error // sees row; nil: no rows
	whatIf   *v1.WhatIf          // fed every list node; nil: no what-if
	prefixes *prefixTree
	compat   *compatCollector
	ttl      [6]TTLBucket
	ttlRef   int64
	ttlSet   bool
	nodeHist sizeHistogram
	decHist  sizeHistogram
	types    [256]*typeSlot
	byName   map[string]*typeSlot
}

func (a *analyzer) scan() error {
	r := a.r
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		switch rec.Kind {
		case rdbio.KindKey:
			if err := a.key(rec); err != nil {
				return err
			}
			continue
		case rdbio.KindAux:
			a.aux(rec)
		case rdbio.KindFunction:
			a.res.Functions++
		case rdbio.KindModuleAux:
			a.res.ModuleAux++
		case rdbio.KindEOF:
			a.res.Checksum = rec.Checksum
		}
		a.compat.op(rec.Op, rec.Offset)
	}
}

func (a *analyzer) aux(rec *rdbio.Record) {
	res := a.res
	name, val := string(rec.Name), string(rec.Value)
	res.Aux = append(res.Aux, AuxField{name, val})
	p := &res.Producer
	switch name {
	case "redis-ver":
		p.RedisVer = val
	case "valkey-ver":
		p.ValkeyVer = val
	case "df-ver":
		p.DflyVer = val
	case "ctime":
		p.Ctime, _ = strconv.ParseInt(val, 10, 64)
	case "used-mem":
		p.UsedMem, _ = strconv.ParseInt(val, 10, 64)
	case "aof-base":
		p.AofBase = val == "1"
	case format.AuxFormat:
		res.Rdbz.Compressed, res.Rdbz.Format = true, val
	case format.AuxDict:
		d := DictInfo{Bytes: len(rec.Value)}
		if len(rec.Value) >= 8 {
			d.ID = binary.LittleEndian.Uint32(rec.Value[4:])
		}
		res.Rdbz.Dicts = append(res.Rdbz.Dicts, d)
	case format.AuxDictID:
		if id, err := strconv.ParseUint(val, 10, 32); err == nil {
			res.Rdbz.ExternalDictIDs = append(res.Rdbz.ExternalDictIDs, uint32(id))
		}
	}
}

// keyFacts is what one key's value turned out to hold.
type keyFacts struct {
	count   rdbio.ValueInfo
	mem     int64  // the value's memory (key apart), when modeled
	alloc   int64  // what it allocates (MemoryStats.Dataset)
	enc     string // its encoding in memory
	modeled bool
	zstd    bool // holds rdbz 0xC4 nodes
}

func (a *analyzer) key(rec *rdbio.Record) error {
	r, res := a.r, a.res
	start, typ := rec.Offset, rec.Type
	res.countKey(rec)
	var kf keyFacts
	var err error
	if rdbio.IsList(typ) {
		kf, err = a.list(rec, typ)
	} else {
		kf, err = a.value(rec, typ)
	}
	if err != nil {
		return err
	}
	n := r.Offset() - start
	sl := a.counted(typ, a.slot(typ))
	a.compat.integ.key(rec, sl.family, kf.count)
	sl.sum.Keys++
	sl.sum.Bytes += n
	return a.account(rec, sl, n, kf)
}

// value reads a value of any type but the list types, its parts going to
// the memory model and its blob, if it is one, to the integrity checks.
func (a *analyzer) value(rec *rdbio.Record, typ rdbio.Type) (keyFacts, error) {
	a.vm.reset(typ)
	vc, err := a.visitValue(rec)
	if err != nil {
		return keyFacts{}, err
	}
	kf := keyFacts{count: vc}
	kf.mem, kf.alloc, kf.enc, kf.modeled = valueMemory(typ, &a.vm, vc)
	return kf, nil
}

// account adds one key to the statistics and rankings.
func (a *analyzer) account(rec *rdbio.Record, sl *typeSlot, n int64, kf keyFacts) error {
	res := a.res
	fam, ts := sl.family, sl.stats
	ts.Keys++
	ts.Bytes += n
	if kf.count.Known {
		ts.Elements += kf.count.Elements
	} else {
		ts.UnknownKeys++
	}
	mem, err := a.memory(rec, sl, n, kf)
	if err != nil {
		return err
	}
	ts.MemoryBytes += mem

	sl.use.add(rec.Key, true, rec.Offset)
	if kf.count.Module != "" {
		a.compat.module(kf.count.Module, rec.Key, rec.Offset)
	}
	if kf.zstd {
		a.compat.zstd.add(rec.Key, true, rec.Offset)
	}

	if !a.ttlSet {
		a.ttlSet = true
		a.res.TTL.Reference, a.ttlRef = "now", a.opt.Now.UnixMilli()
		if c := res.Producer.Ctime; c > 0 {
			a.res.TTL.Reference, a.ttlRef = "ctime", c*1000
		}
	}
	b := &a.ttl[ttlBucket(rec.Expire, a.ttlRef)]
	b.Keys++
	b.Bytes += n

	a.prefixes.add(rec.Key, n, mem)

	var ki *KeyInfo
	info := func() KeyInfo {
		if ki == nil {
			k, q := keyString(rec.Key)
			ki = &KeyInfo{DB: rec.DB, Key: k, KeyQuoted: q, Type: sl.name, Family: fam, Bytes: n,
				Elements: kf.count.Elements, ElementsKnown: kf.count.Known, Expire: rec.Expire, Memory: mem}
		}
		return *ki
	}
	if a.topB.wants(n) {
		a.topB.add(info())
	}
	if a.topM.wants(mem) {
		a.topM.add(info())
	}
	if fam != "string" && kf.count.Known && a.topE.wants(kf.count.Elements) {
		a.topE.add(info())
	}
	measure := n
	if countedFamilies[fam] {
		if !kf.count.Known {
			return nil
		}
		measure = kf.count.Elements
	}
	cur := res.Biggest[fam]
	switch {
	case cur == nil || measure > biggestMeasure(cur):
		k := info()
		k.Ties = 1
		res.Biggest[fam] = &k
	case measure == biggestMeasure(cur):
		cur.Ties++
	}
	return nil
}

func biggestMeasure(k *KeyInfo) int64 {
	if countedFamilies[k.Family] {
		return k.Elements
	}
	return k.Bytes
}

// finish computes what needs the whole file: the memory of keys scaled by
// ratio, the rankings, percentiles and the compatibility verdicts.
func (a *analyzer) finish() {
	res := a.res
	res.TopBytes, res.TopElements, res.TopMemory = a.topB.sorted(), a.topE.sorted(), a.topM.sorted()
	tracked, exact := a.prefixes.tracked()
	res.Prefixes = PrefixStats{Separators: a.opt.PrefixSep, Depth: a.opt.PrefixDepth, Tracked: tracked,
		Exact: exact, Top: a.prefixes.ranking(a.opt.Top)}
	ls := &res.Lists
	ls.NodeStored, ls.NodeDecoded = a.nodeHist.percentiles(), a.decHist.percentiles()
	res.hists, res.prefixes = [2]*sizeHistogram{&a.nodeHist, &a.decHist}, a.prefixes
	if ls.StoredBytes > 0 {
		ls.LZFShare = float64(ls.LZF.Bytes) / float64(ls.StoredBytes)
	}
	if !a.ttlSet {
		res.TTL.Reference = "ctime"
		res.TTL.ReferenceMs = res.Producer.Ctime * 1000
	} else {
		res.TTL.ReferenceMs = a.ttlRef
	}
	res.TTL.Buckets = make([]TTLBucket, len(a.ttl))
	for i, b := range a.ttl {
		b.Bucket = ttlBucketNames[i]
		res.TTL.Buckets[i] = b
	}
	res.Producer.Name, res.Producer.Version = producerName(a.r.Header(), &res.Producer, a.r.Dragonfly())
	res.Compat = a.compat.judge(a.r.Header(), &res.Summary)
}

// producerName tells who wrote the file: Dragonfly (df-ver, or its own
// types or opcodes), Valkey (valkey-ver or the VALKEY magic), Redis
// (redis-ver); Dragonfly and Valkey also write a redis-ver.
func producerName(h rdbio.Header, p *Producer, dfly bool) (string, string) {
	switch {
	case p.DflyVer != "" || dfly:
		return "dragonfly", p.DflyVer
	case p.ValkeyVer != "" || h.Valkey:
		return "valkey", p.ValkeyVer
	case p.RedisVer != "":
		return "redis", p.RedisVer
	}
	return "unknown", ""
}
