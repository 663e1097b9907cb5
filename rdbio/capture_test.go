package rdbio

import (
	"strings"
	"testing"
)

// TestCappedBuffer: bytes are kept up to Max; the write that would pass it
// sets Over and nothing more is kept; Reset starts again.
func TestCappedBuffer(t *testing.T) {
	var c CappedBuffer
	c.Reset(5)
	for _, p := range []string{"ab", "cde", "f", "g"} {
		if n, err := c.Write([]byte(p)); n != len(p) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", p, n, err)
		}
	}
	if string(c.Buf) != "abcde" || !c.Over {
		t.Fatalf("after 7 bytes with Max 5: Buf %q, Over %v", c.Buf, c.Over)
	}
	c.Reset(3)
	c.Write([]byte("xyz"))
	if string(c.Buf) != "xyz" || c.Over {
		t.Fatalf("after Reset(3) and 3 bytes: Buf %q, Over %v", c.Buf, c.Over)
	}
}

func TestQuoteKey(t *testing.T) {
	if got := QuoteKey([]byte("a\x00b"), 10); got != `"a\x00b"` {
		t.Errorf("short key: %s", got)
	}
	if got := QuoteKey([]byte(strings.Repeat("k", 12)), 10); got != `"kkkkkkkkkk"...` {
		t.Errorf("long key: %s", got)
	}
}
