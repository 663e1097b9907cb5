package rdbio

import "strconv"

// QuoteKey renders a key for a message: Go-quoted, and cut to its first max
// bytes followed by "..." when it is longer.
func QuoteKey(k []byte, max int) string {
	if len(k) > max {
		return strconv.Quote(string(k[:max])) + "..."
	}
	return strconv.Quote(string(k))
}
