package convert

import (
	"strconv"
	"unicode/utf8"
)

// Actions of a report item.
const (
	Dropped   = "dropped"
	Reencoded = "re-encoded"
	Refused   = "refused"
	// Expired: left out because it had expired, as the server that saved
	// the file leaves it out when loading it (a hash all of whose fields
	// had expired, converted for a target without field expiry).
	Expired = "expired"
)

// Report says what a conversion changed.
type Report struct {
	Target string `json:"target"`
	From   string `json:"from"` // the input's magic
	To     string `json:"to"`   // the output's magic
	// FromEnvelope and ToEnvelope name the codec of the input's and the
	// output's VKCS envelope ("" for none).
	FromEnvelope string `json:"from_envelope,omitempty"`
	ToEnvelope   string `json:"to_envelope,omitempty"`
	// Keys counts the keys kept (written, or in a dry run to be written).
	Keys int64 `json:"keys"`
	// LeftOut counts the keys the filter (Options.Keep) left out.
	LeftOut int64  `json:"left_out"`
	Items   []Item `json:"items"`
}

// Item is what happened to one kind of record or value.
type Item struct {
	Kind   string `json:"kind"`
	Action string `json:"action"`
	// Count counts the keys (for records other than keys: the records).
	Count int64 `json:"count"`
	// FirstKey names the first key concerned, Go-quoted when it is not
	// valid UTF-8; nil for records other than keys.
	FirstKey    *string `json:"first_key,omitempty"`
	FirstOffset int64   `json:"first_offset"`
	// Why is the conversion needed or done; Lost what the output lacks.
	Why  string `json:"why"`
	Lost string `json:"lost,omitempty"`
}

// add counts one record of kind under action, remembering the first.
func (r *Report) add(kind, action string, key []byte, isKey bool, off int64, why, lost string) *Item {
	for i := range r.Items {
		if it := &r.Items[i]; it.Kind == kind && it.Action == action {
			it.Count++
			return it
		}
	}
	it := Item{Kind: kind, Action: action, Count: 1, FirstOffset: off, Why: why, Lost: lost}
	if isKey {
		s := keyText(key)
		it.FirstKey = &s
	}
	r.Items = append(r.Items, it)
	return &r.Items[len(r.Items)-1]
}

// keyText is a key as the report shows it: as it is when valid UTF-8,
// else Go-quoted.
func keyText(key []byte) string {
	if utf8.Valid(key) {
		return string(key)
	}
	return strconv.Quote(string(key))
}

// Lossless reports whether nothing was dropped or refused and nothing
// re-encoded lost information.
func (r *Report) Lossless() bool {
	for _, it := range r.Items {
		if it.Lost != "" || (it.Action != Reencoded && it.Action != Expired) {
			return false
		}
	}
	return true
}
