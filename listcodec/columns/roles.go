package columns

// roleTable gives out the dynamic roles: one for each hash field name
// (its values) and each key prefix of a value type (string values, set
// members, list elements) with bytes enough to pay for streams of their
// own. A name gets a role once promoteBytes of its values were met, while
// roles are left; until then, and for the names met after the roles ran
// out, its strings go to the family's fixed role. The table lives as long as its Splitter (the whole file),
// so that a name keeps its role from segment to segment.
type roleTable struct {
	ids   map[string]uint8
	count map[string]int
	next  int
}

const (
	promoteBytes = 4 << 10 // value bytes met before a name gets a role
	maxCounts    = 4096    // names counted at once (names met once stay here)
)

func newRoleTable() roleTable {
	return roleTable{ids: map[string]uint8{}, count: map[string]int{}, next: firstDynamic}
}

// role is the role of name (a family byte and the field or prefix), or
// fallback; size is the bytes of the value about to go to it.
func (t *roleTable) role(name []byte, size int, fallback int) int {
	if id, ok := t.ids[string(name)]; ok {
		return int(id)
	}
	if t.next >= MaxRoles {
		return fallback
	}
	c, ok := t.count[string(name)]
	if !ok && len(t.count) >= maxCounts {
		return fallback
	}
	c += size
	if c < promoteBytes {
		t.count[string(name)] = c
		return fallback
	}
	delete(t.count, string(name))
	id := t.next
	t.ids[string(name)] = uint8(id)
	t.next++
	return id
}

// Families of dynamic roles: the first byte of a name.
const (
	famField  = 'h' // hash values by field name
	famString = 's' // string values by key prefix
	famSet    = 'S' // set members by key prefix
	famList   = 'l' // list elements by key prefix
)

// maxPrefix bounds a key prefix: the key's bytes through its first ':'
// within them (none: the key has no prefix).
const maxPrefix = 32

func keyPrefix(key []byte) []byte {
	for i := 0; i < len(key) && i < maxPrefix; i++ {
		if key[i] == ':' {
			return key[:i+1]
		}
	}
	return nil
}
