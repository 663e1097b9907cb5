// Package escape renders binary strings (keys, values) as text, one way
// for every exporter: rdbz export's JSON and text, and analyze's --keys
// CSV. The modes are redis-rdb-tools' --escape: raw (the bytes as they
// are), utf8 (valid UTF-8 as it is, every other byte and the backslash
// escaped, so the bytes can be told back) and base64.
package escape

import (
	"encoding/base64"
	"fmt"
	"unicode/utf8"
)

// Mode is how a string is rendered.
type Mode uint8

// Modes.
const (
	Raw    Mode = iota // the bytes unchanged
	UTF8               // valid UTF-8 unchanged but '\\' as `\\`; other bytes as `\xNN`
	Base64             // standard base64 (RFC 4648, padded)
)

// Names are the modes' names as flags take them, in Mode order.
var Names = []string{"raw", "utf8", "base64"}

// Parse reads a mode's name.
func Parse(name string) (Mode, error) {
	for i, n := range Names {
		if n == name {
			return Mode(i), nil
		}
	}
	return 0, fmt.Errorf("escape %q: want one of raw, utf8, base64", name)
}

func (m Mode) String() string {
	if int(m) < len(Names) {
		return Names[m]
	}
	return fmt.Sprintf("mode(%d)", uint8(m))
}

// Append appends b rendered in mode m to dst.
func Append(dst, b []byte, m Mode) []byte {
	switch m {
	case UTF8:
		return AppendUTF8(dst, b)
	case Base64:
		return base64.StdEncoding.AppendEncode(dst, b)
	}
	return append(dst, b...)
}

// AppendUTF8 appends b with its valid UTF-8 unchanged, each backslash
// doubled and each byte of an invalid sequence as \xNN (lowercase hex).
func AppendUTF8(dst, b []byte) []byte {
	const hex = "0123456789abcdef"
	for len(b) > 0 {
		c := b[0]
		if c < utf8.RuneSelf {
			if c == '\\' {
				dst = append(dst, '\\')
			}
			dst = append(dst, c)
			b = b[1:]
			continue
		}
		r, n := utf8.DecodeRune(b)
		if r == utf8.RuneError && n == 1 {
			dst = append(dst, '\\', 'x', hex[c>>4], hex[c&15])
		} else {
			dst = append(dst, b[:n]...)
		}
		b = b[n:]
	}
	return dst
}

// Carry is how many bytes at the end of b may begin a UTF-8 sequence that
// the bytes after b complete: a streamed string is escaped piece by piece
// holding these back (at most 3), so that no valid character is split.
func Carry(b []byte) int {
	for k := 1; k <= 3 && k <= len(b); k++ {
		c := b[len(b)-k]
		if c < utf8.RuneSelf {
			return 0
		}
		if utf8.RuneStart(c) {
			if need := seqLen(c); need > k {
				return k
			}
			return 0
		}
	}
	return 0
}

// seqLen is the length of the UTF-8 sequence a leading byte c announces
// (1 for a byte that starts none).
func seqLen(c byte) int {
	switch {
	case c >= 0xF0 && c < 0xF8:
		return 4
	case c >= 0xE0:
		return 3
	case c >= 0xC0:
		return 2
	}
	return 1
}
