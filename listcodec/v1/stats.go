package v1

import (
	"time"

	"github.com/rdbz/rdbz/rdbio/envelope"
)

// Stats is what Compress or Decompress did. The writer goroutine fills
// the node counts; the reading side fills the rest.
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
	// Keys counts the key records written; LeftOut those the filter
	// (Flow.Keep) left out.
	Keys, LeftOut int64
	DictID        uint32
	DictBytes     int
	Note          string // why the input was copied unchanged, when it was
	// Format is the rdbz format version Decompress read ("1.1" or "1";
	// "" for an RDB).
	Format  string
	Elapsed time.Duration
	// InputEnvelope is the VKCS envelope the input was in (read through;
	// format 1 does not record it).
	InputEnvelope envelope.Info
}

func (s *Stats) addNode(it *item, written int64) {
	s.Nodes++
	s.NodeBytesIn += int64(len(it.hdr) + len(it.buf))
	s.NodeBytesOut += written
	if it.changed {
		s.Changed++
	} else {
		s.Kept++
		if it.unfaithful {
			s.Unfaithful++
		}
	}
}
