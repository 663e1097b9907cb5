package analyze

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

// verdictsFile records, for every corpus file and each judge, whether the
// real server loads it with its default configuration (and why not, from
// its log). TestRecordedVerdictsMatchServers derives it again from the
// servers (RDBZ_LONG=1; RDBZ_UPDATE_VERDICTS=1 rewrites it).
const verdictsFile = "testdata/server-verdicts.tsv"

// judges are the servers whose verdicts are checked: analyze's name and
// the binary (under ../shared/tools/servers, or redis-server on PATH).
var judges = []struct{ server, bin string }{
	{"redis-6.2", "redis-server-6.2.16"},
	{"redis-7.0", ""},
	{"redis-7.2", "redis-server-7.2.6"},
	{"redis-7.4", "redis-server-7.4.1"},
	{"valkey-8", "valkey-server-8.0.1"},
}

// verdict is one recorded outcome.
type verdict struct {
	loads  bool
	reason string
}

type verdictKey struct{ file, server string }

func readVerdicts(t *testing.T) map[verdictKey]verdict {
	t.Helper()
	f, err := os.Open(verdictsFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[verdictKey]verdict{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		row := strings.Split(sc.Text(), "\t")
		if len(row) != 4 || row[0] == "file" {
			continue
		}
		out[verdictKey{row[0], row[1]}] = verdict{loads: row[2] == "yes", reason: row[3]}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCompatVerdictsMatchServers: on every crafted file and every corpus
// file, analyze's verdict for redis 6.2, 7.0, 7.2, 7.4 and valkey 8 is what
// the real server does (as recorded in verdictsFile), and a refusal names
// a cause.
func TestCompatVerdictsMatchServers(t *testing.T) {
	recorded := readVerdicts(t)
	checkVerdicts(t, recorded, writeCrafted(t))
	checkVerdicts(t, recorded, rdbiotest.Files(t))
}

func checkVerdicts(t *testing.T, recorded map[verdictKey]verdict, files []rdbiotest.File) {
	for _, cf := range files {
		t.Run(cf.Name, func(t *testing.T) {
			a := analyzePath(t, cf.Path)
			got := map[string]Compat{}
			for _, c := range a.Compat {
				got[c.Server] = c
			}
			for _, j := range judges {
				want, ok := recorded[verdictKey{cf.Name, j.server}]
				if !ok {
					t.Errorf("%s: no recorded verdict (RDBZ_LONG=1 RDBZ_UPDATE_VERDICTS=1 go test -run TestRecordedVerdictsMatchServers ./rdbio/analyze)", j.server)
					continue
				}
				v := got[j.server]
				switch {
				case v.Loads && !want.loads:
					t.Errorf("%s refuses it (%s); analyze says it loads", j.server, want.reason)
				case !v.Loads && want.loads:
					t.Errorf("%s loads it; analyze says it refuses it: %+v", j.server, v.Causes)
				case !v.Loads && len(v.Causes) == 0:
					t.Errorf("%s: a refusal without a cause", j.server)
				}
			}
		})
	}
}

// TestRecordedVerdictsMatchServers (RDBZ_LONG=1): each judge loads every
// corpus file through rdb-oracle with sanitize-dump-payload at its
// default (no); the outcome must be the recorded one. With
// RDBZ_UPDATE_VERDICTS=1 the file is written from what they did instead.
func TestRecordedVerdictsMatchServers(t *testing.T) {
	if !rdbiotest.Long() {
		t.Skip("loads every corpus file in five servers (10-15 minutes): RDBZ_LONG=1")
	}
	tool := filepath.Join(rdbiotest.Shared(), "tools", "rdb-oracle")
	files := append(writeCrafted(t), rdbiotest.Files(t)...)
	bins := map[string]string{}
	for _, j := range judges {
		bin := filepath.Join(rdbiotest.Shared(), "tools", "servers", j.bin)
		if j.bin == "" {
			bin, _ = exec.LookPath("redis-server")
		}
		if _, err := os.Stat(bin); bin == "" || err != nil {
			t.Skipf("%s: server binary %q not found", j.server, bin)
		}
		bins[j.server] = bin
	}
	recorded := map[verdictKey]verdict{}
	if os.Getenv("RDBZ_UPDATE_VERDICTS") == "" {
		recorded = readVerdicts(t)
	}
	var rows []string
	for _, cf := range files {
		for _, j := range judges {
			v, err := loadIn(tool, bins[j.server], cf.Path)
			if err != nil {
				t.Fatalf("%s in %s: %v", cf.Name, j.server, err)
			}
			rows = append(rows, fmt.Sprintf("%s\t%s\t%s\t%s", cf.Name, j.server, yesNo(v.loads), v.reason))
			if w, ok := recorded[verdictKey{cf.Name, j.server}]; ok && w.loads != v.loads {
				t.Errorf("%s in %s: recorded loads=%v, the server now says %v (%s)", cf.Name, j.server, w.loads, v.loads, v.reason)
			}
		}
	}
	if os.Getenv("RDBZ_UPDATE_VERDICTS") != "" {
		sort.Strings(rows)
		body := "file\tserver\tloads\treason\n" + strings.Join(rows, "\n") + "\n"
		if err := os.WriteFile(verdictsFile, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// loadIn runs rdb-oracle with server on path: it loads, or refuses for the
// reason its log gives (exit 1); anything else is an error.
func loadIn(tool, server, path string) (verdict, error) {
	cmd := exec.Command(tool, path)
	cmd.Env = append(os.Environ(), "REDIS_SERVER="+server, "RDB_ORACLE_SANITIZE=no", "RDB_ORACLE_TIMEOUT=300")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err := cmd.Run()
	if err == nil {
		return verdict{loads: true, reason: "-"}, nil
	}
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		return verdict{}, fmt.Errorf("%v: %s", err, stderr.String())
	}
	first, _, _ := strings.Cut(stderr.String(), "\n")
	if _, after, ok := strings.Cut(first, path); ok {
		if _, r, ok := strings.Cut(after, ": "); ok {
			first = r
		}
	}
	return verdict{reason: strings.TrimSpace(first)}, nil
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
