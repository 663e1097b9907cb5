package export

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rdbz/rdbz/cmd/rdbz/internal/convert"
	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

// targetServers are the servers of ../shared/tools/servers and their names
// in rdbio/servers' table.
var targetServers = []struct{ bin, target string }{
	{"redis-server-6.2.16", "redis-6.2"}, {"redis-server-7.2.6", "redis-7.2"},
	{"redis-server-7.4.1", "redis-7.4"}, {"valkey-server-8.0.1", "valkey-8"},
}

// targetFiles hold what the servers differ in: listpacks, newer streams
// and function libraries (RDB 10), hashes with field TTLs (RDB 12).
var targetFiles = []string{"generated/mixed-all-types.rdb", "public/redis-replicator__dump-stream.rdb",
	"public/hdt3213-rdb__hash_with_hfe.rdb", "public/librdb__stream_v11.rdb"}

// TestExportTargets exports files for each server with --target, plain
// and RESTORE: the server takes every command, and then holds what it
// holds after loading the file converted for it (rdbz convert, dropping
// what it cannot hold), keys, values, TTLs and stream metadata alike.
func TestExportTargets(t *testing.T) {
	for _, s := range targetServers {
		bin := rdbiotest.ServerBinary(t, s.bin)
		for _, name := range targetFiles {
			path := filepath.Join(rdbiotest.Shared(), "corpus", name)
			t.Run(s.target+"/"+filepath.Base(name), func(t *testing.T) {
				conv := convertedFor(t, path, s.target)
				want, err := rdbiotest.JudgeImport(t, bin, conv)
				if err != nil {
					t.Fatalf("%s refuses the converted file: %v", s.bin, err)
				}
				for _, restore := range []bool{false, true} {
					opt := Options{Target: s.target, Restore: restore, Drop: allKinds()}
					got := rdbiotest.Import(t, bin, exportTo(t, path, opt))
					except := ""
					if d, ok := plainDiffers[filepath.Base(name)]; ok && !restore {
						except = d.key
					}
					sameLoaded(t, want, got, except)
				}
			})
		}
	}
}

// allKinds lets convert drop whatever a target cannot hold.
func allKinds() map[string]bool {
	m := map[string]bool{}
	for _, k := range append(convert.Kinds(), DropKinds()...) {
		m[k] = true
	}
	return m
}

// convertedFor writes path converted for target.
func convertedFor(t *testing.T, path, target string) string {
	t.Helper()
	in, err := os.Open(path)
	if err != nil {
		t.Skipf("corpus: %v", err)
	}
	defer in.Close()
	var out bytes.Buffer
	if _, err := convert.Convert(context.Background(), &out, in, convert.Options{Target: target, Drop: allKinds()}); err != nil {
		t.Fatal(err)
	}
	conv := filepath.Join(t.TempDir(), "converted.rdb")
	if err := os.WriteFile(conv, out.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return conv
}

// TestExportRefusesLoss: plain commands for a target without field TTLs
// would leave the TTLs out: refused (ErrLoss, naming the offset and the
// key) unless Drop names field-ttl, and then reported.
func TestExportRefusesLoss(t *testing.T) {
	path := filepath.Join(rdbiotest.Shared(), "corpus", "public", "hdt3213-rdb__hash_with_hfe.rdb")
	in, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("corpus absent: %v", err)
	}
	_, err = Export(t.Context(), io.Discard, bytes.NewReader(in), Options{Target: "redis-6.2"})
	if !errors.Is(err, ErrLoss) || !strings.Contains(err.Error(), "offset") || !strings.Contains(err.Error(), "--drop field-ttl") {
		t.Fatalf("got %v; want ErrLoss naming the offset and --drop field-ttl", err)
	}
	rep, err := Export(t.Context(), io.Discard, bytes.NewReader(in), Options{Target: "redis-6.2", Drop: map[string]bool{"field-ttl": true}})
	if err != nil || len(rep.Skipped) != 1 || rep.Skipped[0].What != "field TTLs" {
		t.Fatalf("with --drop field-ttl: %v, skipped %+v", err, rep)
	}
}
