package listcodec

import (
	"fmt"
	"time"
)

// Stats is what a transcoding did. The writer goroutine fills the node
// counts; the reading side fills the rest.
type Stats struct {
	BytesIn, BytesOut int64
	// Nodes counts list node strings; Changed those re-encoded, Kept those
	// left as they were (not worth it, or an LZF stream the encoder would
	// not reproduce), Big those over the capture cap (streamed unchanged).
	Nodes, Changed, Kept, Big int64
	// NodeBytesIn / NodeBytesOut: node strings as stored, before and after
	// (string prefix and payload).
	NodeBytesIn, NodeBytesOut int64
	// Unfaithful counts LZF nodes left alone because rdbz's encoder would
	// not reproduce their bytes (written by an older liblzf).
	Unfaithful int64
	DictID     uint32
	DictBytes  int
	Note       string // why the input was copied unchanged, when it was
	Elapsed    time.Duration
}

func (s *Stats) addNode(it *item, written int64) {
	s.Nodes++
	s.NodeBytesIn += int64(len(it.hdr) + len(it.buf))
	s.NodeBytesOut += written
	if it.changed {
		s.Changed++
	} else {
		s.Kept++
		if it.outFlags == unfaithfulMark {
			s.Unfaithful++
		}
	}
}

// Summary is the one-line report printed at the end.
func (s *Stats) Summary(verb string) string {
	secs := s.Elapsed.Seconds()
	mbs := 0.0
	if secs > 0 {
		mbs = float64(s.BytesIn) / 1e6 / secs
	}
	line := fmt.Sprintf("%s: %d -> %d bytes (%.3fx); list nodes %d -> %d bytes; nodes %d: %d re-encoded, %d kept, %d over cap",
		verb, s.BytesIn, s.BytesOut, ratio(s.BytesIn, s.BytesOut), s.NodeBytesIn, s.NodeBytesOut,
		s.Nodes, s.Changed, s.Kept, s.Big)
	if s.Unfaithful > 0 {
		line += fmt.Sprintf(" (%d LZF nodes not reproducible, kept)", s.Unfaithful)
	}
	if s.DictID != 0 {
		line += fmt.Sprintf("; dictionary %d (%d bytes)", s.DictID, s.DictBytes)
	}
	if s.Note != "" {
		line += "; " + s.Note
	}
	return line + fmt.Sprintf("; %.2fs, %.1f MB/s", secs, mbs)
}

// unfaithfulMark in a kept node's outFlags says the LZF stream was not one
// the encoder reproduces.
const unfaithfulMark = 0xFF

func ratio(a, b int64) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}
