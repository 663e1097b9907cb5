package cluster

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Range is the slots First to Last, both included.
type Range struct{ First, Last int }

func (r Range) String() string {
	if r.First == r.Last {
		return strconv.Itoa(r.First)
	}
	return fmt.Sprintf("%d-%d", r.First, r.Last)
}

// Ranges is a set of slot ranges.
type Ranges []Range

// String is the ranges as ParseRanges reads them: "0-5460,5462".
func (rs Ranges) String() string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = r.String()
	}
	return strings.Join(parts, ",")
}

// Count is the number of slots the ranges hold.
func (rs Ranges) Count() int {
	n := 0
	for _, r := range rs {
		n += r.Last - r.First + 1
	}
	return n
}

// ParseRange reads "A-B" or "A", slots from 0 to 16383 with A ≤ B.
func ParseRange(s string) (Range, error) {
	a, b, isRange := strings.Cut(s, "-")
	first, err := parseSlot(a)
	if err != nil {
		return Range{}, err
	}
	last := first
	if isRange {
		if last, err = parseSlot(b); err != nil {
			return Range{}, err
		}
	}
	if last < first {
		return Range{}, fmt.Errorf("slot range %q: %d is after %d", s, first, last)
	}
	return Range{first, last}, nil
}

func parseSlot(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n >= Slots || (len(s) > 1 && s[0] == '0') || s[0] == '+' {
		return 0, fmt.Errorf("slot %q: want a number from 0 to %d", s, Slots-1)
	}
	return n, nil
}

// ParseRanges reads comma-separated ranges: "0-5460,5462,6000-6100".
func ParseRanges(s string) (Ranges, error) {
	var rs Ranges
	for _, part := range strings.Split(s, ",") {
		r, err := ParseRange(strings.TrimSpace(part))
		if err != nil {
			return nil, err
		}
		rs = append(rs, r)
	}
	return rs, nil
}

// Even divides the slots among n parts as redis-cli --cluster create
// divides them among n masters: part i starts where part i-1 ended and
// ends at the rounded multiple of 16384/n (3 parts: 0-5460, 5461-10922,
// 10923-16383).
func Even(n int) ([]Ranges, error) {
	if n < 1 || n > Slots {
		return nil, fmt.Errorf("%d shards: want 1 to %d", n, Slots)
	}
	per := float64(Slots) / float64(n)
	out := make([]Ranges, n)
	first := 0
	for i := range n {
		last := int(math.Round(float64(i)*per + per - 1))
		if i == n-1 {
			last = Slots - 1
		}
		last = max(last, first)
		out[i] = Ranges{{first, last}}
		first = last + 1
	}
	return out, nil
}

// Node is a master of a CLUSTER NODES listing and the slots it serves.
type Node struct {
	ID     string // the 40-character node id
	Addr   string // ip:port@cport[,hostname] as listed
	Ranges Ranges
}

// ParseNodes reads the output of CLUSTER NODES, or a node's
// cluster-config-file (nodes.conf: the same lines and a "vars" line), and
// returns its masters that serve slots, in the order listed. Replicas, and
// the importing and migrating markers ([slot->-id], [slot-<-id]) of a
// resharding, are left out: a slot belongs to the master that lists it.
func ParseNodes(r io.Reader) ([]Node, error) {
	var nodes []Node
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for line := 1; sc.Scan(); line++ {
		n, ok, err := parseNodeLine(sc.Text())
		if err != nil {
			return nil, fmt.Errorf("nodes line %d: %w", line, err)
		}
		if ok {
			nodes = append(nodes, n)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("nodes: %w", err)
	}
	if len(nodes) == 0 {
		return nil, errors.New("nodes: no master serving slots is listed")
	}
	return nodes, nil
}

// parseNodeLine reads "<id> <addr> <flags> <master> <ping-sent>
// <pong-recv> <config-epoch> <link-state> <slot>...": ok is false for a
// line that is not a master serving slots.
func parseNodeLine(s string) (Node, bool, error) {
	f := strings.Fields(s)
	if len(f) == 0 || f[0] == "vars" {
		return Node{}, false, nil
	}
	if len(f) < 8 {
		return Node{}, false, fmt.Errorf("%d fields, want at least 8 (id addr flags master ping pong epoch link slots...)", len(f))
	}
	if !isNodeID(f[0]) {
		return Node{}, false, fmt.Errorf("node id %q: want 40 hex characters", f[0])
	}
	if !hasFlag(f[2], "master") {
		return Node{}, false, nil
	}
	n := Node{ID: f[0], Addr: f[1]}
	for _, sl := range f[8:] {
		if strings.HasPrefix(sl, "[") { // importing or migrating
			continue
		}
		rg, err := ParseRange(sl)
		if err != nil {
			return Node{}, false, fmt.Errorf("node %s: %w", f[0], err)
		}
		n.Ranges = append(n.Ranges, rg)
	}
	return n, len(n.Ranges) > 0, nil
}

func hasFlag(flags, want string) bool {
	for _, f := range strings.Split(flags, ",") {
		if f == want {
			return true
		}
	}
	return false
}

func isNodeID(s string) bool {
	if len(s) != 40 {
		return false
	}
	for _, c := range s {
		if !strings.ContainsRune("0123456789abcdefABCDEF", c) {
			return false
		}
	}
	return true
}
