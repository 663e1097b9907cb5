package cluster

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

// TestCRC16: the check value of CRC-16/XMODEM, which redis src/crc16.c
// names as its test vector.
func TestCRC16(t *testing.T) {
	if got := CRC16([]byte("123456789")); got != 0x31C3 {
		t.Fatalf("CRC16(123456789) = %#x, want 0x31C3", got)
	}
	if got := CRC16(nil); got != 0 {
		t.Fatalf("CRC16() = %#x", got)
	}
}

// TestKeySlot: values the redis cluster specification and CLUSTER KEYSLOT
// give, and its hash tag rules.
func TestKeySlot(t *testing.T) {
	for key, want := range map[string]int{
		"foo": 12182, "bar": 5061, "hello": 866, "123456789": 0x31C3 & 16383,
		"somekey": 11058, "{foo}bar": 12182, "": 0,
	} {
		if got := KeySlot([]byte(key)); got != want {
			t.Errorf("KeySlot(%q) = %d, want %d", key, got, want)
		}
	}
	same := [][2]string{
		{"{user1000}.following", "{user1000}.followers"},
		{"foo{bar}{zap}", "bar"},     // the first '}' after the first '{'
		{"foo{{bar}}zap", "{bar"},    // the tag starts after the first '{'
		{"foo{}{bar}", "foo{}{bar}"}, // an empty tag: the whole key
		{"foo{bar", "foo{bar"},       // no '}': the whole key
		{"a}b{c}", "c"},              // a '}' before the '{' does not count
		{"{}", "{}"}, {"{a}", "a"},   // the shortest
		{"x{\x00\xff}y", "\x00\xff"},      // binary bytes
		{"{user1000}", "user1000"},        // the tag alone
		{"pre{user1000}post", "user1000"}, // anywhere in the key
	}
	for _, p := range same {
		if a, b := KeySlot([]byte(p[0])), KeySlot([]byte(p[1])); a != b {
			t.Errorf("KeySlot(%q) = %d, KeySlot(%q) = %d: want equal", p[0], a, p[1], b)
		}
	}
}

// sampleKeys are keys of every shape KeySlot must treat as redis does:
// plain, with tags where they count and where they do not, binary.
func sampleKeys(n int) []string {
	rng := rand.New(rand.NewPCG(1, 2))
	shapes := []string{"%s", "{%s}", "x{%s}y", "{}%s", "%s{", "}%s{", "{%s}{z}", "{{%s}}", "a{%s", "%s}"}
	keys := make([]string, 0, n)
	for i := range n {
		b := make([]byte, rng.IntN(12))
		for j := range b {
			b[j] = byte(rng.IntN(256))
			if i%2 == 0 {
				b[j] = "ab{}cd:0"[rng.IntN(8)]
			}
		}
		keys = append(keys, fmt.Sprintf(shapes[i%len(shapes)], b))
	}
	return keys
}

// TestKeySlotMatchesServer: CLUSTER KEYSLOT of a cluster-enabled redis
// equals KeySlot on 3000 keys.
func TestKeySlotMatchesServer(t *testing.T) {
	nodes, _ := rdbiotest.StartCluster(t, []string{"0-16383"})
	keys := sampleKeys(3000)
	cmds := make([][]string, len(keys))
	for i, k := range keys {
		cmds[i] = []string{"CLUSTER", "KEYSLOT", k}
	}
	for i, r := range rdbiotest.Replies(t, nodes[0].Conn, cmds...) {
		want, err := strconv.Atoi(r[0])
		if err != nil {
			t.Fatal(err)
		}
		if got := KeySlot([]byte(keys[i])); got != want {
			t.Errorf("KeySlot(%q) = %d, CLUSTER KEYSLOT %d", keys[i], got, want)
		}
	}
}

func TestParseRanges(t *testing.T) {
	rs, err := ParseRanges("0-5460, 5462,6000-6001")
	if err != nil || rs.String() != "0-5460,5462,6000-6001" || rs.Count() != 5461+1+2 {
		t.Fatalf("%v %v", rs, err)
	}
	for _, bad := range []string{"", "a", "-1", "16384", "5-3", "1-", "00", "+1", "1,,2"} {
		if _, err := ParseRanges(bad); err == nil {
			t.Errorf("ParseRanges(%q) accepted", bad)
		}
	}
}

// TestEven: redis-cli --cluster create's division of the slots.
func TestEven(t *testing.T) {
	p, err := Even(3)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(p); got != "[0-5460 5461-10922 10923-16383]" {
		t.Fatalf("3 shards: %s", got)
	}
	for _, n := range []int{1, 2, 5, 7, 1000, Slots} {
		parts, err := Even(n)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := NewTable(parts); err != nil {
			t.Fatalf("%d shards overlap: %v", n, err)
		}
		total := 0
		for _, rs := range parts {
			total += rs.Count()
		}
		if total != Slots || parts[n-1][0].Last != Slots-1 {
			t.Fatalf("%d shards cover %d slots", n, total)
		}
	}
	if _, err := Even(0); err == nil {
		t.Fatal("0 shards accepted")
	}
}

const nodesConf = `e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca 127.0.0.1:30001@31001,host-a myself,master - 0 0 1 connected 0-5460 [5461->-67ed2db8d677e59ec4a4cefb06858cf2a1a89fa1]
67ed2db8d677e59ec4a4cefb06858cf2a1a89fa1 127.0.0.1:30002@31002 master - 0 1426238316232 2 connected 5461-10922 [93-<-e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca]
292f8b365bb7edb5e285caf0b7e6ddc7265d2f4f 127.0.0.1:30003@31003 master - 0 1426238318243 3 connected 10923-16383
6ec23923021cf3ffec47632106199cb7f496ce01 127.0.0.1:30005@31005 slave 67ed2db8d677e59ec4a4cefb06858cf2a1a89fa1 0 1426238316232 5 connected
824fe116063bc5fcf9f4ffd895bc17aee7731ac3 127.0.0.1:30006@31006 slave 292f8b365bb7edb5e285caf0b7e6ddc7265d2f4f 0 1426238317741 6 connected
aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa 127.0.0.1:30007@31007 master - 0 1426238317741 7 connected
vars currentEpoch 7 lastVoteEpoch 0
`

// TestParseNodes: masters with slots, in order; replicas, an empty
// master, resharding markers and the vars line left out.
func TestParseNodes(t *testing.T) {
	nodes, err := ParseNodes(strings.NewReader(nodesConf))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, n := range nodes {
		got = append(got, n.ID[:4]+" "+n.Ranges.String())
	}
	if s := strings.Join(got, "; "); s != "e7d1 0-5460; 67ed 5461-10922; 292f 10923-16383" {
		t.Fatalf("nodes %s", s)
	}
	for _, bad := range []string{"", "x y z\n", strings.Replace(nodesConf, "0-5460", "0-99999", 1),
		strings.Replace(nodesConf, "e7d1", "zzzz", 1)} {
		if _, err := ParseNodes(strings.NewReader(bad)); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
}

// TestTable: overlaps are refused, unserved slots listed.
func TestTable(t *testing.T) {
	if _, err := NewTable([]Ranges{{{0, 10}}, {{10, 20}}}); err == nil {
		t.Fatal("overlap accepted")
	}
	tb, err := NewTable([]Ranges{{{0, 10}}, {{12, 16383}}})
	if err != nil {
		t.Fatal(err)
	}
	if tb.Part(11) != Unassigned || tb.Part(12) != 1 || tb.Unserved().String() != "11" || tb.Parts() != 2 {
		t.Fatalf("table: %d %d %s", tb.Part(11), tb.Part(12), tb.Unserved())
	}
}
