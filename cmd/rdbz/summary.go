package main

import (
	"fmt"

	"github.com/rdbz/rdbz/listcodec"
	"github.com/rdbz/rdbz/listcodec/format2"
	"github.com/rdbz/rdbz/listcodec/v1"
)

// summary is what a command prints at its end: one short line as zstd's
// ("dump.rdb : 40.7% (166 MiB => 67.5 MiB, dump.rdb.rdbz)"), and with -v
// the details.
type summary struct {
	line, detail string
}

// transcodeSummary is the short line of compress and decompress: IN, the
// output's share of the input, both sizes and OUT.
func transcodeSummary(verb, in, out string, s *listcodec.Stats, note string) summary {
	line := fmt.Sprintf("%s : %s (%s => %s, %s)", displayName(in), pct(s.BytesOut, s.BytesIn), size(s.BytesIn), size(s.BytesOut), displayName(out))
	if verb == "decompress" {
		line = fmt.Sprintf("%s : %s => %s (%s)", displayName(in), size(s.BytesIn), size(s.BytesOut), displayName(out))
	}
	return summary{line: line + note, detail: detailLine(verb, s)}
}

// detailLine is the line -v adds after compress and decompress.
func detailLine(verb string, s *listcodec.Stats) string {
	secs := s.Elapsed.Seconds()
	mbs := 0.0
	if secs > 0 {
		mbs = float64(s.BytesIn) / 1e6 / secs
	}
	if f := s.Format2; f != nil {
		line := fmt.Sprintf("%s: %d -> %d bytes (%.3fx), format 2; T %d bytes, %d records, %d LZF strings decoded (%d -> %d bytes), %d kept (not reproducible), %d over cap; %d blocks at level %d, index %d bytes",
			verb, s.BytesIn, s.BytesOut, ratio(s.BytesIn, s.BytesOut), f.T.TBytes, f.T.Records, f.T.Decoded, f.T.LZFBytes, f.T.DecBytes,
			f.T.Unfaithful, f.T.OverCap, f.Block.Blocks, format2.ZstdLevel(f.Level), f.Block.IndexBytes)
		if s.DictID != 0 {
			line += fmt.Sprintf("; dictionary %d (%d bytes)", s.DictID, s.DictBytes)
		}
		if f.Note != "" {
			line += "; " + f.Note
		}
		return line + envelopeNote(verb, s) + fmt.Sprintf("; %.2fs, %.1f MB/s", secs, mbs)
	}
	if f := s.Format2Decompress; f != nil {
		return fmt.Sprintf("%s: %d -> %d bytes (%.3fx), format 2; T %d bytes; %.2fs, %.1f MB/s",
			verb, s.BytesIn, s.BytesOut, ratio(s.BytesIn, s.BytesOut), f.TBytes, secs, float64(s.BytesOut)/1e6/max(secs, 1e-9))
	}
	f := s.Format1 // format 1's pipeline: compress --format 1, decompress of a format-1 file or an RDB
	if f == nil {
		f = &v1.Stats{} // it failed before it started
	}
	line := fmt.Sprintf("%s: %d -> %d bytes (%.3fx), format 1; list nodes %d -> %d bytes; nodes %d: %d re-encoded, %d kept, %d over cap",
		verb, s.BytesIn, s.BytesOut, ratio(s.BytesIn, s.BytesOut), f.NodeBytesIn, f.NodeBytesOut,
		f.Nodes, f.Changed, f.Kept, f.Big)
	if f.Unfaithful > 0 {
		line += fmt.Sprintf(" (%d LZF nodes not reproducible, kept)", f.Unfaithful)
	}
	if f.DictID != 0 {
		line += fmt.Sprintf("; dictionary %d (%d bytes)", f.DictID, f.DictBytes)
	}
	if f.Note != "" {
		line += "; " + f.Note
	}
	return line + envelopeNote(verb, s) + fmt.Sprintf("; %.2fs, %.1f MB/s", secs, mbs)
}

// envelopeNote says, for the summary line, what became of a VKCS envelope
// around the input or the output ("" for neither).
func envelopeNote(verb string, s *listcodec.Stats) string {
	note := ""
	if e := s.InputEnvelope; e.Enveloped() {
		note = fmt.Sprintf("; input: an RDB in a VKCS %s envelope", e.Codec)
		switch {
		case s.Format2 != nil:
			note += " (recorded: decompress --to original wraps it again)"
		case verb == "compress":
			note += " (not recorded by format 1: decompress writes the RDB alone)"
		}
	}
	if e := s.OutputEnvelope; e.Enveloped() {
		note += fmt.Sprintf("; output in a VKCS %s envelope", e.Codec)
	}
	return note
}

func ratio(a, b int64) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}
