package columns

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
)

// TestMeasureStreams is the design measurement (MEASURED.md): the bytes of
// each role's streams, compressed on their own per segment with
// klauspost's levels. Behind RDBZ_MEASURE=streams:
//
//	RDBZ_MEASURE=streams RDBZ_MEASURE_FILES=a.rdb,b.rdb RDBZ_MEASURE_SEG=8 \
//	    go test ./listcodec/columns -run MeasureStreams -v -timeout 0
//
// RDBZ_MEASURE_SEG is the segment size in MiB (default 8),
// RDBZ_MEASURE_LEVELS the levels (fastest,default,better,best).
func TestMeasureStreams(t *testing.T) {
	if os.Getenv("RDBZ_MEASURE") != "streams" {
		t.Skip("RDBZ_MEASURE=streams runs the stream measurement")
	}
	seg := 8 << 20
	if v := os.Getenv("RDBZ_MEASURE_SEG"); v != "" {
		n, err := strconv.ParseFloat(v, 64)
		if err != nil {
			t.Fatal(err)
		}
		seg = int(n * (1 << 20))
	}
	levels := []zstd.EncoderLevel{zstd.SpeedFastest, zstd.SpeedDefault, zstd.SpeedBetterCompression, zstd.SpeedBestCompression}
	if v := os.Getenv("RDBZ_MEASURE_LEVELS"); v != "" {
		levels = nil
		for _, s := range strings.Split(v, ",") {
			ok, l := zstd.EncoderLevelFromString(s)
			if !ok {
				t.Fatalf("level %q", s)
			}
			levels = append(levels, l)
		}
	}
	for _, path := range strings.Split(os.Getenv("RDBZ_MEASURE_FILES"), ",") {
		if path == "" {
			continue
		}
		measureFile(t, path, seg, levels)
	}
}

type roleSizes struct {
	raw  [8]int64 // by part
	comp [][8]int64
}

func measureFile(t *testing.T, path string, segSize int, levels []zstd.EncoderLevel) {
	start := time.Now()
	tf := readT(t, path)
	tEnc := time.Since(start)
	encs := make([]*zstd.Encoder, len(levels))
	for i, l := range levels {
		e, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(l), zstd.WithEncoderConcurrency(1),
			zstd.WithEncoderCRC(false), zstd.WithLowerEncoderMem(true), zstd.WithWindowSize(windowFor(segSize)), zstd.WithAllLitEntropyCompression(true))
		if err != nil {
			t.Fatal(err)
		}
		encs[i] = e
	}
	roles := map[int]*roleSizes{}
	var split, join time.Duration
	ctime := make([]time.Duration, len(levels))
	var buf, out []byte
	var segs int
	var names map[int]string
	var skelRecs int
	tokens := map[int]*[2]int64{}
	s := NewSplitter()
	segB := &Segment{}
	s.Start(segB)
	dictSize, _ := strconv.Atoi(os.Getenv("RDBZ_MEASURE_DICT"))
	var dicts [NumStreams][]byte
	dictEncs := map[int]*zstd.Encoder{}
	var withDict, withoutDict, dictBytes int64
	var dictTime time.Duration
	done := func(seg *Segment) {
		if dictSize > 0 {
			measureDicts(t, seg, segs, dictSize, levels[0], segSize, &dicts, dictEncs, &withDict, &withoutDict, &dictBytes, &dictTime)
		}
		segs++
		jt := time.Now()
		var err error
		out, err = Join(out, seg)
		if err != nil {
			t.Fatal(err)
		}
		join += time.Since(jt)
		names = s.roleNames()
		if os.Getenv("RDBZ_MEASURE_TOKENS") != "" {
			measureTokens(seg, encs[0], tokens)
		}
		for id, b := range seg.bufs {
			if len(b) == 0 {
				continue
			}
			role, part := id>>partBits, id&(1<<partBits-1)
			rs := roles[role]
			if rs == nil {
				rs = &roleSizes{comp: make([][8]int64, len(levels))}
				roles[role] = rs
			}
			rs.raw[part] += int64(len(b))
			var planes []byte
			if part == partNums && os.Getenv("RDBZ_MEASURE_PLANES") != "" {
				planes = toPlanes(nil, b)
			}
			for i, e := range encs {
				ct := time.Now()
				buf = e.EncodeAll(b, buf[:0])
				ctime[i] += time.Since(ct)
				n := int64(len(buf))
				if n >= int64(len(b))+4 {
					n = int64(len(b)) + 4 // stored
				}
				if planes != nil {
					buf = e.EncodeAll(planes, buf[:0])
					if int64(len(buf)) < n {
						n = int64(len(buf))
					}
				}
				rs.comp[i][part] += n
			}
		}
	}
	sorted := os.Getenv("RDBZ_MEASURE_SORT") != ""
	var held []int // records of the segment (RDBZ_MEASURE_SORT: split sorted by key at its end)
	var permBits float64
	flush := func() {
		if sorted {
			sort.SliceStable(held, func(a, b int) bool { return recKey(tf.record(held[a])) < recKey(tf.record(held[b])) })
			for _, i := range held {
				s.Record(tf.record(i), tf.recs[i].key)
			}
			permBits += float64(len(held)) * math.Log2(float64(max(len(held), 2)))
			held = held[:0]
		}
	}
	for i, r := range tf.recs {
		st := time.Now()
		if s.Len() > 0 && s.Len()+len(tf.record(i)) > segSize || sorted && len(held) > 0 && heldLen(tf, held)+len(tf.record(i)) > segSize {
			flush()
			seg := s.Finish()
			split += time.Since(st)
			done(seg)
			st = time.Now()
			s.Start(segB)
		}
		if sorted {
			held = append(held, i)
			continue
		}
		n := len(s.seg.bufs[idSkel])
		s.Record(tf.record(i), r.key)
		if r.key && len(s.seg.bufs[idSkel])-n == len(tf.record(i)) {
			skelRecs++
		}
		split += time.Since(st)
	}
	flush()
	done(s.Finish())
	if sorted {
		t.Logf("records sorted by key in each segment: a permutation would take %.0f bytes", permBits/8)
	}
	for r, v := range tokens {
		if v[0] > 64<<10 {
			t.Logf("tokens: %-24s %10d as strings, %10d as templates and runs (%.3f)", roleName(r, names), v[0], v[1], float64(v[1])/float64(v[0]))
		}
	}
	if dictSize > 0 {
		t.Logf("dictionaries of %d bytes a stream from segment 0 (%d bytes in all), %s, segments 1 on: %d bytes without, %d with (%.2f%%; %.2fs)",
			dictSize, dictBytes, levels[0], withoutDict, withDict, 100*float64(withDict-withoutDict)/float64(max(withoutDict, 1)), dictTime.Seconds())
	}

	fi, _ := os.Stat(path)
	t.Logf("%s: %d bytes, T %d bytes (%d records, %d key records wholly in the skeleton), %d segments of %d MiB",
		filepath.Base(path), fi.Size(), len(tf.t), len(tf.recs), skelRecs, segs, segSize>>20)
	t.Logf("time: T encoding %.2fs, split %.2fs, join %.2fs, zstd %s", tEnc.Seconds(), split.Seconds(), join.Seconds(), levelTimes(levels, ctime))
	ids := make([]int, 0, len(roles))
	for id := range roles {
		ids = append(ids, id)
	}
	sum8 := func(a [8]int64) (n int64) {
		for _, v := range a {
			n += v
		}
		return n
	}
	sort.Slice(ids, func(a, b int) bool { return sum8(roles[ids[a]].comp[0]) > sum8(roles[ids[b]].comp[0]) })
	var tot [8]int64
	var ctot = make([]int64, len(levels))
	t.Logf("%-28s %12s %10s %10s | %s", "role", "data", "lens", "nums", levelNames(levels))
	for _, id := range ids {
		rs := roles[id]
		name := roleName(id, names)
		var cs []string
		for i := range levels {
			c := sum8(rs.comp[i])
			ctot[i] += c
			cs = append(cs, fmt.Sprintf("%10d", c))
		}
		for p := range tot {
			tot[p] += rs.raw[p]
		}
		t.Logf("%-28s %12d %10d %10d | %s", name, rs.raw[partData], rs.raw[partLens], rs.raw[partNums]+rs.raw[partOrder], strings.Join(cs, " "))
	}
	var cs []string
	for i := range levels {
		cs = append(cs, fmt.Sprintf("%10d", ctot[i]))
	}
	t.Logf("%-28s %12d %10d %10d | %s", "TOTAL", tot[partData], tot[partLens], tot[partNums]+tot[partOrder], strings.Join(cs, " "))
}

// recKey is a key record's key bytes (as a string to sort by), "" for others.
func recKey(rec []byte) string {
	if len(rec) < 2 || rec[0] >= 200 {
		return ""
	}
	r := rd{b: rec, p: 1}
	k := r.str()
	return string(k.data)
}

func heldLen(tf *tfile, held []int) int {
	n := 0
	for _, i := range held {
		n += len(tf.record(i))
	}
	return n
}

// measureTokens compresses each role's strings as they are and tokenized
// (tokens_test.go), at the first level.
func measureTokens(seg *Segment, e *zstd.Encoder, acc map[int]*[2]int64) {
	comp := func(b []byte) int64 {
		if len(b) == 0 {
			return 0
		}
		return int64(min(len(e.EncodeAll(b, nil)), len(b)+4))
	}
	for r := 1; r < MaxRoles; r++ {
		data, lens := seg.bufs[dataID(r)], seg.bufs[lensID(r)]
		if len(data) < 4096 || len(seg.bufs[orderID(r)]) > 0 || r == roleZScore {
			continue
		}
		var tk tokens
		tk.tokenize(data, lens)
		tm, nu, hx := tk.tmpl, tk.nums, tk.hex
		if acc[r] == nil {
			acc[r] = &[2]int64{}
		}
		acc[r][0] += comp(data) + comp(lens)
		acc[r][1] += comp(tm) + min(comp(nu), comp(toPlanes(nil, nu))) + comp(hx)
	}
}

// measureDicts keeps the streams of segment 0 as raw dictionaries (their
// last size bytes) and compresses the streams of later segments with and
// without them.
func measureDicts(t *testing.T, seg *Segment, n int, size int, l zstd.EncoderLevel, segSize int, dicts *[NumStreams][]byte,
	encs map[int]*zstd.Encoder, with, without, dictBytes *int64, took *time.Duration) {
	plain, _ := zstd.NewWriter(nil, zstd.WithEncoderLevel(l), zstd.WithEncoderConcurrency(1), zstd.WithEncoderCRC(false),
		zstd.WithLowerEncoderMem(true), zstd.WithWindowSize(windowFor(segSize)), zstd.WithAllLitEntropyCompression(true))
	defer plain.Close()
	var buf []byte
	for id, b := range seg.bufs {
		if n == 0 {
			if len(b) >= 1024 {
				d := b[max(0, len(b)-size):]
				dicts[id] = append([]byte(nil), d...)
				*dictBytes += int64(len(d))
			}
			continue
		}
		if len(b) == 0 {
			continue
		}
		buf = plain.EncodeAll(b, buf[:0])
		w := int64(min(len(buf), len(b)+4))
		*without += w
		if dicts[id] == nil {
			*with += w
			continue
		}
		e := encs[id]
		if e == nil {
			var err error
			e, err = zstd.NewWriter(nil, zstd.WithEncoderLevel(l), zstd.WithEncoderConcurrency(1), zstd.WithEncoderCRC(false),
				zstd.WithLowerEncoderMem(true), zstd.WithWindowSize(windowFor(segSize)), zstd.WithAllLitEntropyCompression(true),
				zstd.WithEncoderDictRaw(uint32(id+1), dicts[id]))
			if err != nil {
				t.Fatal(err)
			}
			encs[id] = e
		}
		st := time.Now()
		buf = e.EncodeAll(b, buf[:0])
		*took += time.Since(st)
		*with += min(int64(len(buf)), w)
	}
}

func levelNames(ls []zstd.EncoderLevel) string {
	var s []string
	for _, l := range ls {
		s = append(s, fmt.Sprintf("%10s", l))
	}
	return strings.Join(s, " ")
}

func levelTimes(ls []zstd.EncoderLevel, d []time.Duration) string {
	var s []string
	for i, l := range ls {
		s = append(s, fmt.Sprintf("%s %.2fs", l, d[i].Seconds()))
	}
	return strings.Join(s, ", ")
}

var fixedNames = map[int]string{0: "control (tape, skeleton)", roleKeys: "keys", roleStrings: "strings", roleFields: "hash fields",
	roleHashValues: "hash values", roleSet: "set members", roleList: "list elements", roleZMember: "zset members",
	roleZScore: "zset scores", roleStreamID: "stream IDs", roleStream: "stream entries", roleIntset: "intsets",
	roleFieldTTL: "field TTLs", roleBulk: "bulk", roleOther: "other"}

func roleName(id int, dyn map[int]string) string {
	if n, ok := fixedNames[id]; ok {
		return n
	}
	if n, ok := dyn[id]; ok {
		return n
	}
	return "role " + strconv.Itoa(id)
}

// roleNames names the dynamic roles given out so far.
func (s *Splitter) roleNames() map[int]string {
	m := map[int]string{}
	for name, id := range s.roles.ids {
		fam := map[byte]string{famField: "hval ", famString: "str ", famSet: "set ", famList: "list "}[name[0]]
		n := name[1:]
		if len(n) > 20 {
			n = n[:20]
		}
		m[int(id)] = fam + strconv.Quote(n)
	}
	return m
}

func windowFor(n int) int {
	w := zstd.MinWindowSize
	for w < n {
		w <<= 1
	}
	return w
}
