package analyze

// globMatch reports whether key matches pattern as Redis's KEYS and SCAN
// MATCH do (stringmatchlen): * any bytes, ? one byte, [abc], [^abc],
// [a-z] and \ to quote the next byte; keys are bytes, '/' is not special.
func globMatch(pattern, key []byte) bool {
	for len(pattern) > 0 {
		switch pattern[0] {
		case '*':
			for len(pattern) > 1 && pattern[1] == '*' {
				pattern = pattern[1:]
			}
			if len(pattern) == 1 {
				return true
			}
			for i := 0; i <= len(key); i++ {
				if globMatch(pattern[1:], key[i:]) {
					return true
				}
			}
			return false
		case '?':
			if len(key) == 0 {
				return false
			}
		case '[':
			if len(key) == 0 {
				return false
			}
			var ok bool
			if pattern, ok = globClass(pattern[1:], key[0]); !ok {
				return false
			}
			key = key[1:]
			continue
		case '\\':
			if len(pattern) > 1 {
				pattern = pattern[1:]
			}
			fallthrough
		default:
			if len(key) == 0 || pattern[0] != key[0] {
				return false
			}
		}
		pattern, key = pattern[1:], key[1:]
	}
	return len(key) == 0
}

// globClass matches c against the class that p starts (after '['); it
// returns the pattern after the class.
func globClass(p []byte, c byte) ([]byte, bool) {
	not := len(p) > 0 && p[0] == '^'
	if not {
		p = p[1:]
	}
	match := false
	for len(p) > 0 && p[0] != ']' {
		switch {
		case p[0] == '\\' && len(p) > 1:
			match = match || p[1] == c
			p = p[2:]
		case len(p) > 2 && p[1] == '-' && p[2] != ']':
			lo, hi := min(p[0], p[2]), max(p[0], p[2])
			match = match || (c >= lo && c <= hi)
			p = p[3:]
		default:
			match = match || p[0] == c
			p = p[1:]
		}
	}
	if len(p) > 0 {
		p = p[1:] // the ']'
	}
	return p, match != not
}
