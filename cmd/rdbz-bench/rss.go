package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// rssLimit is the peak RSS every rdbz command promises (KiB).
const rssLimit = 64 << 10

// rssTable runs every command on every file (and on its format-2 form)
// and prints, per command, the worst peak RSS and the file it was met
// on: `rdbz-bench rss FILE...` (the corpus: ../shared/corpus/*/*.rdb).
func (b *bench) rssTable(files []string) {
	type worst struct {
		kib  int64
		file string
		runs int
	}
	per := map[string]*worst{}
	out := filepath.Join(b.dir, "out")
	for _, f := range files {
		z := filepath.Join(b.dir, "in.rdbz")
		if t := runOnce(cmdSpec{name: b.bin, args: []string{"compress", "-q", "-f", "-o", z, f}}); t.err != nil {
			fmt.Fprintf(os.Stderr, "%s: compress: %v %s\n", f, t.err, t.stderr)
			continue // the file is refused (damaged by design): no commands to measure
		}
		for _, c := range rssCommands(f, z, out, b.dir) {
			t := runOnce(cmdSpec{name: b.bin, args: c.args})
			w := per[c.name]
			if w == nil {
				w = &worst{}
				per[c.name] = w
			}
			w.runs++
			if t.rss > w.kib {
				w.kib, w.file = t.rss, filepath.Base(f)
			}
			os.RemoveAll(out)
		}
	}
	names := make([]string, 0, len(per))
	for n := range per {
		names = append(names, n)
	}
	sort.Strings(names)
	fmt.Println("| command | runs | worst peak RSS MiB | on | within 64 MiB |")
	fmt.Println("| --- | ---: | ---: | --- | --- |")
	for _, n := range names {
		w := per[n]
		ok := "yes"
		if w.kib > rssLimit {
			ok = "**no**"
		}
		fmt.Printf("| %s | %d | %.1f | %s | %s |\n", n, w.runs, float64(w.kib)/1024, w.file, ok)
	}
}

type rssCommand struct {
	name string
	args []string
}

// rssCommands are the command lines measured on an RDB f and its format-2
// form z.
func rssCommands(f, z, out, dir string) []rssCommand {
	var cs []rssCommand
	add := func(name string, args ...string) { cs = append(cs, rssCommand{name, args}) }
	for _, in := range []string{f, z} {
		kind := "rdb"
		if in == z {
			kind = "rdbz"
		}
		add("info "+kind, "info", in)
		add("analyze "+kind, "analyze", in)
		add("copy "+kind, "copy", "-f", "-o", out, in)
		add("export "+kind, "export", "-f", "-o", out, in)
		add("export json "+kind, "export", "--format", "json", "-f", "-o", out, in)
		add("get "+kind, "get", in, "rdbz-bench:no-such-key")
		add("convert "+kind, "convert", "-t", "redis-7.2", "--drop", strings.Join(dropAll, ","), "-f", "-o", out, in)
		add("split "+kind, "split", "--shards", "3", "--db-to-0", "-f", "-o", filepath.Join(dir, "p-"), in)
		// Many parts: a group of them at a time (splitmerge.inPasses).
		add("split 64 "+kind, "split", "--shards", "64", "--db-to-0", "-f", "-o", filepath.Join(dir, "q-"), in)
		add("merge "+kind, "merge", "--on-duplicate", "first", "-f", "-o", out, in, in)
		add("verify "+kind, "verify", f, in)
		add("train "+kind, "train", "-f", "-o", out, in)
		add("test "+kind, "test", in)
	}
	add("compress", "compress", "-f", "-o", out, f)
	add("compress -19", "compress", "-19", "-f", "-o", out, f)
	// Workers beyond the cores (the default on a larger machine): bounded
	// by memory (format2.maxColumnWorkers, v1's maxWorkers).
	add("compress -T 64", "compress", "-T", "64", "-f", "-o", out, f)
	add("compress -1 -T 64", "compress", "-1", "-T", "64", "-f", "-o", out, f)
	add("compress --format 1 -T 64", "compress", "--format", "1", "-T", "64", "-f", "-o", out, f)
	for _, to := range []string{"original", "raw", "lzf"} {
		add("decompress --to "+to, "decompress", "--to", to, "-f", "-o", out, z)
	}
	return cs
}

// dropAll are the kinds convert may drop, so that every file converts.
var dropAll = []string{"function", "module", "slot-info", "stream2", "stream3", "stream4", "hash-metadata",
	"hash-listpack-ex", "hash-metadata-pre-ga", "hash-listpack-ex-pre-ga", "hash2", "hash-with-expiry", "set-with-expiry"}
