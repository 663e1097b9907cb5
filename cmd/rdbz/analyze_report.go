package main

import (
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/rdbz/rdbz/cmd/rdbz/internal/analyze"
	"github.com/rdbz/rdbz/listcodec/format"
	"github.com/rdbz/rdbz/listcodec/v1"
)

// printAnalysis writes the report for people: aligned tables, human sizes.
func printAnalysis(w io.Writer, name string, a *analyze.Analysis) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	line := func(k, v string) { fmt.Fprintf(tw, "%s\t%s\n", k, v) }
	line("file", name)
	if e := a.Envelope; e != nil {
		line("envelope", e.Text+" (below: the RDB inside)")
	}
	line("format", fmt.Sprintf("%s, magic %s (RDB %d), checksum %s", size(a.Bytes+a.TrailingBytes), a.Magic, a.Version, a.Checksum))
	p := a.Producer
	prod := p.Name
	if p.Version != "" {
		prod += " " + p.Version
	}
	if p.Name != "redis" && p.RedisVer != "" {
		prod += fmt.Sprintf(" (redis-ver %s)", p.RedisVer)
	}
	if p.Ctime > 0 {
		prod += ", saved " + time.Unix(p.Ctime, 0).UTC().Format("2006-01-02 15:04:05 UTC")
	}
	if p.UsedMem > 0 {
		prod += ", used-mem " + size(p.UsedMem)
	}
	if p.AofBase {
		prod += ", AOF base"
	}
	line("producer", prod)
	for _, x := range a.Aux {
		switch x.Name {
		case "redis-ver", "valkey-ver", "df-ver", "ctime", "used-mem", format.AuxDict:
			continue
		}
		v := x.Value
		if len(v) > 60 {
			v = fmt.Sprintf("%.32q... (%d bytes)", v, len(v))
		} else {
			v = strconv.Quote(v)
		}
		line("aux", x.Name+" = "+v)
	}
	switch {
	case a.Rdbz.FileBytes > 0:
		d := fmt.Sprintf("format %s, %s: %s of the RDB below (checked whole)", a.Rdbz.Format, size(a.Rdbz.FileBytes), pct(a.Rdbz.FileBytes, a.Bytes))
		if a.Rdbz.Blocks > 0 {
			d += fmt.Sprintf(", %d blocks, index %s", a.Rdbz.Blocks, size(a.Rdbz.IndexBytes))
		}
		for _, x := range a.Rdbz.Dicts {
			d += fmt.Sprintf(", dictionary %d (%s)", x.ID, size(int64(x.Bytes)))
		}
		line("rdbz", d)
	case a.Rdbz.Compressed:
		d := fmt.Sprintf("compressed (format %s), %d zstd nodes", a.Rdbz.Format, a.Rdbz.ZstdNodes)
		for _, x := range a.Rdbz.Dicts {
			d += fmt.Sprintf(", dictionary %d (%s)", x.ID, size(int64(x.Bytes)))
		}
		for _, id := range a.Rdbz.ExternalDictIDs {
			d += fmt.Sprintf(", external dictionary %d", id)
		}
		line("rdbz", d)
	default:
		line("rdbz", "not compressed")
	}
	if u := a.Unwalked; u != nil {
		line("unwalked", fmt.Sprintf("from offset %d (the rest was only checked for a valid trailer):", u.Offset))
		line("", u.Reason)
	}
	line("keys", fmt.Sprintf("%d (%d with expiry), %d functions", a.Keys, a.Expires, a.Functions))
	if a.LeftOut > 0 {
		line("", fmt.Sprintf("(%d keys left out by the filters are not counted)", a.LeftOut))
	}
	line("memory", fmt.Sprintf("≈ %s (Σ MEMORY USAGE in redis 7.0), dataset ≈ %s", size(a.Memory.Bytes), size(a.Memory.Dataset)))
	if a.Memory.Stored > 0 {
		line("", fmt.Sprintf("(%d keys of types not modeled counted as stored)", a.Memory.Stored))
	}
	tw.Flush()

	section(w, "databases")
	table(w, []string{"db", "keys", "expires"}, func(row func(...any)) {
		for _, d := range a.DBs {
			row(d.DB, d.Keys, d.Expires)
		}
	})

	section(w, "types")
	printTypes(w, a.TypeStats)

	section(w, fmt.Sprintf("TTL (relative to %s %s)", a.TTL.Reference, time.UnixMilli(a.TTL.ReferenceMs).UTC().Format("2006-01-02 15:04:05 UTC")))
	table(w, []string{"ttl", "keys", "bytes"}, func(row func(...any)) {
		for _, b := range a.TTL.Buckets {
			row(b.Bucket, b.Keys, size(b.Bytes))
		}
	})

	printKeys(w, "biggest keys by memory (estimated MEMORY USAGE)", a.TopMemory, a.TTL.ReferenceMs)
	printKeys(w, "biggest keys by serialized bytes", a.TopBytes, a.TTL.ReferenceMs)
	printKeys(w, "biggest keys by element count", a.TopElements, a.TTL.ReferenceMs)
	printBiggest(w, a.Biggest)
	printPrefixes(w, a.Prefixes)

	ls := a.Lists
	section(w, "lists")
	if ls.Keys == 0 {
		fmt.Fprintln(w, "  none")
	} else {
		printLists(w, ls)
	}

	if wi := a.WhatIf; wi != nil {
		printWhatIf(w, wi, a.WhatIfSeconds)
	} else {
		why := "--no-whatif or --sample-bytes 0"
		if a.Rdbz.FileBytes > 0 {
			why = "the input is compressed: see rdbz above"
		}
		section(w, "what-if: not run ("+why+")")
	}
	printCompat(w, a.Compat)
}

// printTypes writes the table of types, most bytes first.
func printTypes(w io.Writer, stats map[string]*analyze.TypeStats) {
	names := make([]string, 0, len(stats))
	for n := range stats {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return stats[names[i]].Bytes > stats[names[j]].Bytes })
	table(w, []string{"type", "family", "keys", "bytes", "elements", "memory"}, func(row func(...any)) {
		for _, n := range names {
			t := stats[n]
			el := strconv.FormatInt(t.Elements, 10)
			if t.UnknownKeys > 0 {
				el += fmt.Sprintf(" (+%d keys unknown)", t.UnknownKeys)
			}
			row(n, t.Family, t.Keys, size(t.Bytes), el, size(t.MemoryBytes))
		}
	})
	fmt.Fprintln(w, "  (elements: entries of collections; for strings the value lengths in bytes)")
}

// printKeys writes a ranking of keys; ttls are relative to refMs. Keys of
// several inputs are named file/db.
func printKeys(w io.Writer, title string, ks []analyze.KeyInfo, refMs int64) {
	section(w, title)
	table(w, []string{"db", "key", "type", "bytes", "memory", "elements", "ttl"}, func(row func(...any)) {
		for _, k := range ks {
			row(dbText(k), keyText(k), k.Type, size(k.Bytes), size(k.Memory), elemText(k), expireText(k.Expire, refMs))
		}
	})
}

func dbText(k analyze.KeyInfo) string {
	if k.File != "" {
		return filepath.Base(k.File) + "/" + strconv.FormatUint(k.DB, 10)
	}
	return strconv.FormatUint(k.DB, 10)
}

// printBiggest writes the biggest key of each family.
func printBiggest(w io.Writer, biggest map[string]*analyze.KeyInfo) {
	section(w, "biggest key per type (as redis-cli --bigkeys)")
	fams := make([]string, 0, len(biggest))
	for f := range biggest {
		fams = append(fams, f)
	}
	sort.Strings(fams)
	table(w, []string{"family", "db", "key", "measure", "same size"}, func(row func(...any)) {
		for _, f := range fams {
			k := biggest[f]
			m := size(k.Bytes) + " serialized"
			switch {
			case f == "string":
				m = fmt.Sprintf("%d bytes", k.Elements)
			case k.ElementsKnown && k.Family != "module":
				m = fmt.Sprintf("%d elements", k.Elements)
			}
			row(f, dbText(*k), keyText(*k), m, k.Ties)
		}
	})
}

// printPrefixes writes the prefix ranking, children indented.
func printPrefixes(w io.Writer, ps analyze.PrefixStats) {
	exact := ""
	if !ps.Exact {
		exact = fmt.Sprintf("; approximate, %d tracked", ps.Tracked)
	}
	section(w, fmt.Sprintf("key prefixes by memory (separators %q, depth %d%s)", ps.Separators, ps.Depth, exact))
	table(w, []string{"prefix", "keys", "bytes", "memory"}, func(row func(...any)) {
		for _, p := range ps.Top {
			pre := p.Prefix
			if !p.Quoted {
				pre = strconv.Quote(pre)
			}
			row(strings.Repeat("  ", p.Depth-1)+shorten(pre), p.Keys, size(p.Bytes), size(p.Memory))
		}
	})
}

func printLists(w io.Writer, ls analyze.ListStats) {
	fmt.Fprintf(w, "  %d keys, %d nodes, %d elements", ls.Keys, ls.Nodes, ls.Elements)
	if ls.UnknownNodes > 0 {
		fmt.Fprintf(w, " (+%d nodes not counted)", ls.UnknownNodes)
	}
	fmt.Fprintf(w, "; %s stored, %s decoded\n  %d PLAIN nodes (%s), %d over the cap\n",
		size(ls.StoredBytes), size(ls.DecodedBytes), ls.Plain.Nodes, size(ls.Plain.Bytes), ls.OverCap)
	table(w, []string{"stored as", "nodes", "bytes", "share"}, func(row func(...any)) {
		for _, x := range []struct {
			n string
			c analyze.NodeCount
		}{{"raw", ls.Raw}, {"lzf", ls.LZF}, {"zstd (rdbz)", ls.Zstd}, {"int", ls.Int}} {
			row(x.n, x.c.Nodes, size(x.c.Bytes), pct(x.c.Bytes, ls.StoredBytes))
		}
	})
	table(w, []string{"node size", "p50", "p90", "p99", "max"}, func(row func(...any)) {
		for _, x := range []struct {
			n string
			p analyze.Percentiles
		}{{"stored", ls.NodeStored}, {"decoded", ls.NodeDecoded}} {
			row(x.n, size(x.p.P50), size(x.p.P90), size(x.p.P99), size(x.p.Max))
		}
	})
}

func printCompat(w io.Writer, verdicts []analyze.Compat) {
	section(w, "compatibility (can the server load the file as it is)")
	table(w, []string{"server", "loads", "causes"}, func(row func(...any)) {
		for _, v := range verdicts {
			loads := "yes"
			if !v.Loads {
				loads = "no"
			} else if len(v.Causes) > 0 {
				loads = "yes, with losses"
			}
			causes := make([]string, 0, len(v.Causes))
			for _, cs := range v.Causes {
				causes = append(causes, causeText(cs))
			}
			if len(causes) == 0 {
				causes = append(causes, "-")
			}
			if v.Fix != "" && v.FixLoses != "" {
				causes = append(causes, "fix: "+v.Fix+" (loses "+v.FixLoses+")")
			} else if v.Fix != "" {
				causes = append(causes, "fix: "+v.Fix)
			}
			for i, cs := range causes {
				if i == 0 {
					row(v.Server, loads, cs)
				} else {
					row("", "", cs)
				}
			}
		}
	})
}

// printWhatIf writes the what-if section; secs is what it took.
func printWhatIf(w io.Writer, wi *v1.WhatIfReport, secs float64) {
	how := "sampled: " + strconv.Itoa(wi.Sample.Nodes) + " nodes, " + size(wi.Sample.StoredBytes)
	if wi.Exact {
		how = "on every node"
	}
	section(w, "what-if: list node strings in each encoding ("+how+")")
	n := wi.Nodes
	table(w, []string{"encoding", "bytes", "vs stored"}, func(row func(...any)) {
		row("as stored", size(n.Stored), "100.0%")
		row("raw (rdbcompression no)", size(n.Raw), pct(n.Raw, n.Stored))
		row("lzf (rdbcompression yes)", size(n.LZF), pct(n.LZF, n.Stored))
		row("zstd, no dictionary", size(n.Zstd), pct(n.Zstd, n.Stored))
		if wi.DictBytes > 0 {
			row(fmt.Sprintf("zstd + dictionary (%s, counted)", size(int64(wi.DictBytes))), size(n.ZstdDict), pct(n.ZstdDict, n.Stored))
			row("rdbz compress (per-node rules, dictionary not counted)", size(n.Rdbz), pct(n.Rdbz, n.Stored))
		}
	})
	if f := wi.Format2; f != nil {
		how := "exact: the whole dump compressed"
		if !f.Exact {
			how = fmt.Sprintf("scaled: %s of %s compressed", size(f.SampledT), size(f.TBytes))
		}
		fmt.Fprintf(w, "  rdbz compress: %s -> %s (%s)\n    (format 2, level %d, %s)\n",
			size(wi.FileBytes), size(wi.RdbzCompressBytes), pct(wi.RdbzCompressBytes, wi.FileBytes), f.Level, how)
	}
	label := "rdbz compress"
	if wi.Format2 != nil {
		label = "rdbz compress --format 1"
	}
	fmt.Fprintf(w, "  %s: %s -> %s (%s)\n    (level %d, min-saving %g, %s sample)\n",
		label, size(wi.FileBytes), size(format1Bytes(wi)), pct(format1Bytes(wi), wi.FileBytes),
		wi.Settings.Level, wi.Settings.MinSaving, size(wi.Settings.SampleBytes))
	if wi.Unchanged {
		paragraph(w, "    ", "copied unchanged: "+strings.TrimSuffix(wi.Note, ": copied unchanged"))
	}
	if d := wi.Dragonfly; d.DecodedBytes > 0 && wi.DictBytes > 0 {
		fmt.Fprintf(w, "  Dragonfly's lists in its dictionary mode: %s of payloads -> ≈ %s\n    (%.0f%% of interior nodes kept compressed)\n",
			size(d.DecodedBytes), size(d.EstimatedBytes), 100*d.CompressedShare)
	}
	fmt.Fprintf(w, "  the what-if took %.1f s (dictionary training %.1f s); --no-whatif skips it\n", secs, wi.TrainSeconds)
}

func causeText(cs analyze.Cause) string {
	s := cs.Cause
	switch {
	case cs.FirstKey != nil:
		k := *cs.FirstKey
		if !cs.FirstKeyQuoted {
			k = strconv.Quote(k)
		}
		s += fmt.Sprintf(": %d keys, first %s", cs.Keys, shorten(k))
	case cs.Keys > 0:
		s += fmt.Sprintf(": %d records, first at offset %d", cs.Keys, cs.Offset)
	}
	if !cs.Fatal {
		s += " (loads, dropping them)"
	}
	return s
}

func keyText(k analyze.KeyInfo) string {
	if k.KeyQuoted {
		return shorten(k.Key)
	}
	return shorten(strconv.Quote(k.Key))
}

// shorten cuts a quoted key or prefix to 60 columns, whole characters.
func shorten(q string) string {
	if cellWidth(q) > 60 {
		return cutWidth(q, 57) + "..."
	}
	return q
}

func elemText(k analyze.KeyInfo) string {
	if !k.ElementsKnown {
		return "?"
	}
	if k.Family == "string" {
		return fmt.Sprintf("%d B", k.Elements)
	}
	return strconv.FormatInt(k.Elements, 10)
}

// expireText is the time a key has left at the reference time.
func expireText(ms, ref int64) string {
	if ms == -1 {
		return "-"
	}
	d := time.Duration(ms-ref) * time.Millisecond
	switch {
	case d <= 0:
		return "expired"
	case d >= 48*time.Hour:
		return fmt.Sprintf("%dd", d/(24*time.Hour))
	}
	return d.Round(time.Second).String()
}

// format1Bytes is what `compress --format 1` writes, by the what-if.
func format1Bytes(wi *v1.WhatIfReport) int64 {
	if wi.Format2 != nil {
		return wi.Format1Bytes
	}
	return wi.RdbzCompressBytes
}
