package reshape

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/rdbz/rdbz/cmd/rdbz/internal/cluster"
	"github.com/rdbz/rdbz/rdbio"
)

// crafted is a small dump: AUX fields, a function library, slot info,
// keys with and without expiry, keys sharing a hash tag.
func crafted(t testing.TB, extra func(c *craft)) []byte {
	c := &craft{}
	c.aux("redis-ver", "7.4.1").aux("redis-bits", "64").function("#!lua name=lib\nredis.register_function('f', function() return 1 end)")
	c.selectDB(0).resizeDB(40, 2)
	for i := range 40 {
		key := fmt.Sprintf("key:%d", i)
		if i < 10 {
			key = fmt.Sprintf("{user1000}.%d", i)
		}
		if i == 20 {
			c.slotInfo(uint64(cluster.KeySlot([]byte(key))), 1, 1)
		}
		var exp int64
		if i%20 == 0 {
			exp = 4102444800000 // 2100
		}
		c.set(key, fmt.Sprintf("value %d", i), exp)
	}
	if extra != nil {
		extra(c)
	}
	return c.file(t, "REDIS0012")
}

// checkParts checks every part: the input's magic, AUX fields and
// function in each, SELECTDB 0 then RESIZEDB with the part's counts (when
// sized), keys only of the part's slots, each with its value and expiry;
// together every key of the input once.
func checkParts(t *testing.T, in []byte, parts [][]byte, ranges []cluster.Ranges, sized bool) {
	t.Helper()
	want, hdr := records(t, in)
	keys := map[string]record{}
	for _, r := range want {
		if r.kind == rdbio.KindKey {
			keys[r.key] = r
		}
	}
	tb, _ := cluster.NewTable(ranges)
	seen := 0
	for i, p := range parts {
		got, h := records(t, p)
		if h != hdr {
			t.Fatalf("part %d: magic %s, input %s", i, h.Magic, hdr.Magic)
		}
		var aux, funcs, n, expires int
		var resized *record
		for j, r := range got {
			switch r.kind {
			case rdbio.KindAux:
				aux++
			case rdbio.KindFunction:
				funcs++
			case rdbio.KindResizeDB:
				resized = &got[j]
			case rdbio.KindSlotInfo:
				if tb.Part(int(r.db)) != i {
					t.Errorf("part %d: slot info of slot %d", i, r.db)
				}
			case rdbio.KindKey:
				w, ok := keys[r.key]
				if !ok || w.value != r.value || w.expire != r.expire || r.db != 0 {
					t.Errorf("part %d: key %q: %+v, input %+v", i, r.key, r, w)
				}
				if s := cluster.KeySlot([]byte(r.key)); tb.Part(s) != i {
					t.Errorf("part %d: key %q of slot %d", i, r.key, s)
				}
				delete(keys, r.key)
				n++
				if r.expire >= 0 {
					expires++
				}
			}
		}
		seen += n
		if aux != 2 || funcs != 1 {
			t.Errorf("part %d: %d aux, %d functions", i, aux, funcs)
		}
		if sized && n > 0 && (resized == nil || resized.size != uint64(n) || resized.expires != uint64(expires)) {
			t.Errorf("part %d: %d keys, %d expires, resizedb %+v", i, n, expires, resized)
		}
		if !sized && resized != nil {
			t.Errorf("part %d: resizedb %+v from one pass", i, resized)
		}
	}
	if len(keys) != 0 {
		t.Errorf("%d keys in no part (%d seen)", len(keys), seen)
	}
}

// TestSplitCrafted: three shards and uneven ranges, from a file (two
// passes, RESIZEDB) and from a stream (one pass).
func TestSplitCrafted(t *testing.T) {
	in := crafted(t, nil)
	three, _ := cluster.Even(3)
	uneven := []cluster.Ranges{{rr(0, 99), rr(12000, 16383)}, {rr(100, 11999)}}
	for _, ranges := range [][]cluster.Ranges{three, uneven, {{rr(0, 16383)}}} {
		for _, once := range []bool{false, true} {
			parts, rep, err := splitBytes(t, bytesInput("in", in, once), ranges, SplitOptions{})
			if err != nil {
				t.Fatal(err)
			}
			checkParts(t, in, parts, ranges, !once)
			var total int64
			for i, p := range rep.Parts {
				total += p.Keys
				if p.Bytes != int64(len(parts[i])) {
					t.Errorf("part %d: report says %d bytes, wrote %d", i, p.Bytes, len(parts[i]))
				}
			}
			if total != 40 || rep.Shared != 3 || rep.Sized == once || rep.Magic != "REDIS0012" {
				t.Errorf("report %+v", rep)
			}
		}
	}
}

// TestSplitOtherDBs: a key of db 1 is refused naming it, unless DBTo0
// moves it (reported); a key in db 0 and db 1 is then refused, naming it
// from a file and by offsets from a stream.
func TestSplitOtherDBs(t *testing.T) {
	three, _ := cluster.Even(3)
	in := crafted(t, func(c *craft) { c.selectDB(1).set("other", "x", 0).set("another", "y", 0) })
	for _, once := range []bool{false, true} {
		_, _, err := splitBytes(t, bytesInput("in", in, once), three, SplitOptions{})
		if !errors.Is(err, ErrDB) || !strings.Contains(err.Error(), `key "other": db 1`) {
			t.Fatalf("db 1: %v", err)
		}
		_, rep, err := splitBytes(t, bytesInput("in", in, once), three, SplitOptions{DBTo0: true})
		if err != nil || rep.Moved[1] != 2 {
			t.Fatalf("--db-to-0: %v, %+v", err, rep)
		}
	}
	dup := crafted(t, func(c *craft) { c.selectDB(3).set("key:33", "x", 0) })
	_, _, err := splitBytes(t, bytesInput("in", dup, false), three, SplitOptions{DBTo0: true})
	if !errors.Is(err, ErrDuplicate) || !strings.Contains(err.Error(), `key "key:33" in db 3: db 0 holds it too`) {
		t.Fatalf("duplicate from a file: %v", err)
	}
	_, _, err = splitBytes(t, bytesInput("in", dup, true), three, SplitOptions{DBTo0: true})
	if !errors.Is(err, ErrDuplicate) || !strings.Contains(err.Error(), "a key in db 3: db 0 holds it too (offset ") {
		t.Fatalf("duplicate from a stream: %v", err)
	}
}

// TestSplitUnservedSlot: a key of a slot no part serves is an error
// naming its slot and the unserved ranges.
func TestSplitUnservedSlot(t *testing.T) {
	in := crafted(t, nil)
	_, _, err := splitBytes(t, bytesInput("in", in, false), []cluster.Ranges{{rr(0, 8000)}}, SplitOptions{})
	if !errors.Is(err, ErrSlot) || !strings.Contains(err.Error(), "(unserved: 8001-16383)") {
		t.Fatalf("%v", err)
	}
}

func rr(first, last int) cluster.Range { return cluster.Range{First: first, Last: last} }

// TestSplitFiltered: through a filter, the parts hold the keys it keeps
// with their values and expiries, a kept key right after keys left out
// (with an expiry record, or alone) included; as the filtered copy of the
// input splits.
func TestSplitFiltered(t *testing.T) {
	in := crafted(t, nil)
	out := map[string]bool{"key:11": true, "key:19": true, "key:39": true, "{user1000}.3": true}
	keep := func(rec *rdbio.Record) bool { return !out[string(rec.Key)] }
	var filtered bytes.Buffer
	if _, _, err := rdbio.CopyFiltered(&filtered, bytes.NewReader(in), rdbio.Options{}, keep); err != nil {
		t.Fatal(err)
	}
	three, _ := cluster.Even(3)
	for _, once := range []bool{false, true} {
		parts, rep, err := splitBytes(t, bytesInput("in", in, once), three, SplitOptions{Keep: keep})
		if err != nil {
			t.Fatal(err)
		}
		checkParts(t, filtered.Bytes(), parts, three, !once)
		var total int64
		for _, p := range rep.Parts {
			total += p.Keys
		}
		if total != 36 {
			t.Errorf("%d keys in the parts, want 36", total)
		}
	}
}
