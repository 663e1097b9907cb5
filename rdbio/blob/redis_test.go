package blob_test

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rdbz/rdbz/rdbio"
	"github.com/rdbz/rdbz/rdbio/blob"
	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

// The writers are judged by what real servers write: the same keys are
// built by commands in redis 6.2 (ziplists, intsets), 7.0 (listpacks) and
// 7.2 (set listpacks, PLAIN list nodes), each saves a dump, and every blob
// in it must be what its writer builds from the blob's own entries, and
// what the other server built for the same key must be what blob.Recode (or
// blob.SingleEntryFrame) makes of it.

// codecCommands builds keys of every blob kind and encoding boundary.
func codecCommands() [][]string {
	els := codecElements()
	hash := []string{"HSET", "h:els"}
	ints := []string{"HSET", "h:ints"}
	var small, many []string
	for i, s := range els {
		hash = append(hash, fmt.Sprintf("f%d", i), s)
		ints = append(ints, strconv.Itoa(i*37-100), s)
		if len(s) <= 4096 {
			small = append(small, s)
		}
	}
	for i := range 600 {
		many = append(many, strconv.Itoa(i*i-50000))
	}
	zset := []string{"ZADD", "z"}
	for i, sc := range []string{"1", "-5", "1.5", "3.141592653589793", "1e20", "-0.25", "4096", "100000", "12", "70000"} {
		zset = append(zset, sc, fmt.Sprintf("m%d", i))
	}
	zset = append(zset, "2", strings.Repeat("M", 300), "0", "7", "-3", "-123456789012")
	return [][]string{hash, ints, zset,
		append([]string{"RPUSH", "l:small"}, small...),
		{"RPUSH", "l:big", strings.Repeat("b", 16384), strings.Repeat("c", 70000)},
		{"SADD", "s:small", "1", "2", "3", "-5", "40000"},
		{"SADD", "s:wide", "1", "-9223372036854775808", "9223372036854775807"},
		append([]string{"SADD", "s:many"}, many...),
		{"SADD", "s:str", "a", "1", "bb", "-7", strings.Repeat("s", 100)},
	}
}

// serverBlob is one blob of a key in a server's dump, or a PLAIN list
// node (plain set, data the element).
type serverBlob struct {
	kind  blob.Kind
	plain bool
	data  []byte
}

// serverBlobs runs the server bin with args, builds codecCommands' keys,
// saves and returns the blobs of each key.
func serverBlobs(t *testing.T, bin string, args ...string) map[string][]serverBlob {
	t.Helper()
	conn, dir := rdbiotest.StartServer(t, bin, append([]string{"--rdbcompression", "no",
		"--hash-max-ziplist-entries", "1000", "--hash-max-ziplist-value", "100000",
		"--zset-max-ziplist-entries", "1000", "--zset-max-ziplist-value", "100000",
		"--list-max-ziplist-size", "-5"}, args...)...)
	rdbiotest.Commands(t, conn, append(codecCommands(), []string{"SAVE"})...)
	dump, err := os.ReadFile(filepath.Join(dir, "dump.rdb"))
	if err != nil {
		t.Fatal(err)
	}
	return dumpBlobs(t, dump)
}

// dumpBlobs reads the blobs of every key of an RDB file.
func dumpBlobs(t *testing.T, dump []byte) map[string][]serverBlob {
	t.Helper()
	r, err := rdbio.NewReader(bytes.NewReader(dump), rdbio.Options{Cap: 1 << 24})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]serverBlob{}
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		if rec.Kind != rdbio.KindKey {
			continue
		}
		key := string(rec.Key)
		if rdbio.IsList(rec.Type) {
			kind := rdbio.NodeBlob(rec.Type)
			var nodes *rdbio.Nodes
			if nodes, err = r.Value().Nodes(); err != nil {
				t.Fatal(err)
			}
			for nodes.Next() {
				n := nodes.Node()
				if n.Enc != rdbio.EncRaw || n.Data == nil {
					t.Fatalf("%s: node stored %s", key, n.Enc)
				}
				out[key] = append(out[key], serverBlob{kind: kind, plain: n.Container == 1, data: bytes.Clone(n.Data)})
			}
			err = nodes.Err()
		} else {
			_, err = r.Value().Visit(func(e *rdbio.Elem) error {
				if e.Kind == rdbio.ElemBlob {
					out[key] = append(out[key], serverBlob{kind: e.Blob, data: bytes.Clone(e.Data)})
				}
				return nil
			})
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// writerOf is a writer of blobs of the given kind.
func writerOf(kind blob.Kind) blob.EntryWriter {
	switch kind {
	case blob.Listpack:
		return blob.NewListpackWriter(1 << 24)
	case blob.Ziplist:
		return blob.NewZiplistWriter(1 << 24)
	}
	return blob.NewIntsetWriter(1 << 24)
}

// recoded is the blob src (of kind from) re-encoded as kind to.
func recoded(t *testing.T, to blob.Kind, from serverBlob) []byte {
	t.Helper()
	if from.plain {
		head, tail, err := blob.SingleEntryFrame(to, uint64(len(from.data)))
		if err != nil {
			t.Fatal(err)
		}
		return bytes.Join([][]byte{head, from.data, tail}, nil)
	}
	w := writerOf(to)
	if err := blob.Recode(w, from.kind, from.data); err != nil {
		t.Fatalf("%s → %s: %v", from.kind, to, err)
	}
	return w.Bytes()
}

// checkSameServer requires every blob of a dump to be what its writer
// builds from its entries, and a blob of one long string to be that
// string in blob.SingleEntryFrame's frame; it returns how many were compared.
func checkSameServer(t *testing.T, name string, blobs map[string][]serverBlob) int {
	n := 0
	for key, bs := range blobs {
		for i, b := range bs {
			if b.plain {
				continue
			}
			if got := recoded(t, b.kind, b); !bytes.Equal(got, b.data) {
				t.Errorf("%s %s blob %d (%s, %d bytes): the writer builds other bytes (%d)", name, key, i, b.kind, len(b.data), len(got))
			}
			n++
			if b.kind == blob.Intset {
				continue
			}
			var es []blob.Entry
			_ = blob.Entries(b.kind, b.data, func(e blob.Entry) error { es = append(es, e); return nil })
			if len(es) == 1 && len(es[0].Str) > 20 {
				one := serverBlob{plain: true, data: es[0].Str}
				if got := recoded(t, b.kind, one); !bytes.Equal(got, b.data) {
					t.Errorf("%s %s blob %d: blob.SingleEntryFrame's %s differs", name, key, i, b.kind)
				}
			}
		}
	}
	return n
}

// checkAcross requires what server a wrote for each key (but skip) to be
// b's blobs re-encoded as a's kinds.
func checkAcross(t *testing.T, aName string, a map[string][]serverBlob, bName string, b map[string][]serverBlob, skip string) int {
	n := 0
	for key, as := range a {
		bs, ok := b[key]
		if !ok || key == skip {
			continue
		}
		if len(as) != len(bs) {
			t.Errorf("%s: %d blobs in %s, %d in %s", key, len(as), aName, len(bs), bName)
			continue
		}
		for i := range as {
			if got := recoded(t, as[i].kind, bs[i]); !bytes.Equal(got, as[i].data) {
				t.Errorf("%s blob %d: %s's %s re-encoded as %s differs from %s's", key, i, bName, bs[i].kind, as[i].kind, aName)
			}
			n++
		}
	}
	return n
}

func TestWritersMatchServers(t *testing.T) {
	if testing.Short() {
		t.Skip("starts redis servers; skipped in -short mode")
	}
	v70 := serverBlobs(t, "redis-server", "--set-max-intset-entries", "1000")
	v62 := serverBlobs(t, rdbiotest.ServerBinary(t, "redis-server-6.2.16"), "--set-max-intset-entries", "1000")
	v72 := serverBlobs(t, rdbiotest.ServerBinary(t, "redis-server-7.2.6"),
		"--set-max-listpack-entries", "1000", "--set-max-listpack-value", "1000")
	for _, c := range []struct {
		name  string
		blobs map[string][]serverBlob
	}{{"redis 7.0", v70}, {"redis 6.2", v62}, {"redis 7.2", v72}} {
		t.Logf("%s: %d blobs rebuilt byte for byte", c.name, checkSameServer(t, c.name, c.blobs))
	}
	t.Logf("redis 7.0 → 6.2: %d blobs", checkAcross(t, "redis 6.2", v62, "redis 7.0", v70, ""))
	t.Logf("redis 6.2 → 7.0: %d blobs", checkAcross(t, "redis 7.0", v70, "redis 6.2", v62, ""))
	// Redis 7.2 writes a score in the fewest digits that read back as it
	// (3.141592653589793), 6.2 and 7.0 in 17 (3.1415926535897931): the
	// same double, other entry bytes. blob.Entries are re-encoded as they are.
	t.Logf("redis 7.2 → 6.2: %d blobs", checkAcross(t, "redis 6.2", v62, "redis 7.2", v72, "z"))
	z62, z72 := v62["z"][0], recoded(t, blob.Ziplist, v72["z"][0])
	if err := blob.Check(blob.Ziplist, z72, true, 2); err != nil {
		t.Error(err)
	}
	want, got := blobTexts(t, blob.Ziplist, z62.data), blobTexts(t, blob.Ziplist, z72)
	for i := range max(len(want), len(got)) {
		if i >= len(want) || i >= len(got) {
			t.Fatalf("z: %d entries from redis 7.2, %d in redis 6.2", len(got), len(want))
		}
		a, errA := strconv.ParseFloat(want[i], 64)
		b, errB := strconv.ParseFloat(got[i], 64)
		if got[i] != want[i] && (i%2 == 0 || errA != nil || errB != nil || a != b) {
			t.Errorf("z entry %d: %q from redis 7.2, %q in redis 6.2", i, got[i], want[i])
		}
	}
	if bs := v72["s:str"]; len(bs) != 1 || bs[0].kind != blob.Listpack {
		t.Errorf("redis 7.2 saved s:str as %v, not a set listpack", bs)
	} else if err := blob.Recode(blob.NewIntsetWriter(1<<20), blob.Listpack, bs[0].data); !errors.Is(err, blob.ErrNotInteger) {
		t.Errorf("set listpack of strings recoded as an intset: %v", err)
	}
}

// TestCountUnknownMatchesServers loads a plain hash of 40000 fields (80000
// entries) into redis 7.0 and 6.2 configured to keep it as one listpack or
// ziplist, saves it, and requires the writer's blob of the same entries:
// the header count says 65535 ("unknown") as the servers' does.
func TestCountUnknownMatchesServers(t *testing.T) {
	if testing.Short() {
		t.Skip("starts redis servers; skipped in -short mode")
	}
	var file bytes.Buffer
	w, err := rdbio.NewWriter(&file, rdbio.Header{Magic: "REDIS0009", Version: 9})
	if err != nil {
		t.Fatal(err)
	}
	const fields = 40000
	_, _ = w.Write([]byte{rdbio.OpSelectDB, 0, rdbio.TypeHash})
	_ = w.WriteString([]byte("h:big"))
	_ = w.WriteLen(fields)
	for i := range fields {
		_ = w.WriteString(fmt.Appendf(nil, "f%d", i))
		_ = w.WriteString(fmt.Appendf(nil, "%d", i*7-1000))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for _, bin := range []string{"redis-server", rdbiotest.ServerBinary(t, "redis-server-6.2.16")} {
		dir := t.TempDir() // the server loads in.rdb at start and saves over it
		if err := os.WriteFile(filepath.Join(dir, "in.rdb"), file.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		conn, _ := rdbiotest.StartServer(t, bin, "--dir", dir, "--dbfilename", "in.rdb",
			"--hash-max-ziplist-entries", "100000")
		rw := bufio.NewReadWriter(bufio.NewReader(conn), bufio.NewWriter(conn))
		rdbiotest.WriteCommand(rw.Writer, []byte("SAVE"))
		if err := rw.Flush(); err != nil {
			t.Fatal(err)
		}
		if line, err := rw.ReadString('\n'); err != nil || line[0] != '+' {
			t.Fatalf("%s: reply %q, %v", bin, line, err)
		}
		dump, err := os.ReadFile(filepath.Join(dir, "in.rdb"))
		if err != nil {
			t.Fatal(err)
		}
		bs := dumpBlobs(t, dump)["h:big"]
		if len(bs) != 1 {
			t.Fatalf("%s saved h:big as %d blobs", bin, len(bs))
		}
		got := recoded(t, bs[0].kind, bs[0])
		if n, _ := blob.Count(bs[0].kind, bs[0].data, false); !bytes.Equal(got, bs[0].data) || n != 0 {
			t.Errorf("%s: the %s of %d entries differs from the writer's (header count known: %d)", bin, bs[0].kind, 2*fields, n)
		}
	}
}
