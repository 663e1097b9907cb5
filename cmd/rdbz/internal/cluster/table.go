package cluster

import "fmt"

// Unassigned is the part of a slot no part serves.
const Unassigned = -1

// Table maps every slot to the part that serves it.
type Table struct {
	part [Slots]int32
	n    int
}

// NewTable maps the slots of parts[i] to i. A slot in two parts is an
// error; a slot in none is Unassigned.
func NewTable(parts []Ranges) (*Table, error) {
	t := &Table{n: len(parts)}
	for i := range t.part {
		t.part[i] = Unassigned
	}
	for i, rs := range parts {
		for _, r := range rs {
			for s := r.First; s <= r.Last; s++ {
				if p := t.part[s]; p != Unassigned {
					return nil, fmt.Errorf("slot %d is in part %d and in part %d", s, p, i)
				}
				t.part[s] = int32(i)
			}
		}
	}
	return t, nil
}

// Parts is the number of parts.
func (t *Table) Parts() int { return t.n }

// Part is the part serving slot s, or Unassigned.
func (t *Table) Part(s int) int { return int(t.part[s]) }

// Unserved lists the slots no part serves, as ranges.
func (t *Table) Unserved() Ranges {
	var rs Ranges
	for s := 0; s < Slots; s++ {
		if t.part[s] != Unassigned {
			continue
		}
		if k := len(rs) - 1; k >= 0 && rs[k].Last == s-1 {
			rs[k].Last = s
		} else {
			rs = append(rs, Range{s, s})
		}
	}
	return rs
}
