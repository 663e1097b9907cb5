package main

import (
	"strings"
	"testing"
)

const topSample = `File: rdbz
Type: cpu
Duration: 1.74s, Total samples = 2750ms (158.34%)
Showing nodes accounting for 2.53s, 92% of 2.75s total
      flat  flat%   sum%        cum   cum%
     0.28s 10.18% 10.18%      0.28s 10.18%  runtime.memmove
     0.24s  8.73% 18.91%      0.24s  8.73%  crypto/internal/fips140/sha256.blockSHANI
     0.05s  1.82% 20.73%      0.05s  1.82%  runtime.memclrNoHeapPointers
`

func TestParseTop(t *testing.T) {
	if got := sampledSecs(topSample); got != 2.75 {
		t.Fatalf("sampledSecs = %v, want 2.75", got)
	}
	if got := sampledSecs("no header"); got != 0 {
		t.Fatalf("sampledSecs of no header = %v", got)
	}
	lines, shares := parseTop(topSample)
	if len(lines) != 3 || shares["runtime.memmove"] != 10.18 || shares["runtime.memclrNoHeapPointers"] != 1.82 {
		t.Fatalf("parseTop: %d lines, shares %v", len(lines), shares)
	}
}

// A ratio with a target is judged; one without (a dump under 1 MB) is
// shown and not judged.
func TestFloorLineJudgesRatio(t *testing.T) {
	r := floorRow{file: "f", op: "compress", refName: "GOMAXPROCS=1", hasRef: true, speedup: true, want: 1.7,
		rdbz: timing{secs: 1}, ref: timing{secs: 1.5}, maxRSS: rssTarget}
	if got := floorLine(r); !strings.Contains(got, "| 1.50 | ≤ 64 MiB, ≥ 1.7× faster | **no** |") {
		t.Errorf("a speedup of 1.5 against 1.7: %s", got)
	}
	r.want = 0
	if got := floorLine(r); !strings.Contains(got, "| 1.50 | ≤ 64 MiB | yes |") {
		t.Errorf("a speedup with no target: %s", got)
	}
	r = floorRow{file: "f", op: "info", refName: "cp", hasRef: true, want: 2, rdbz: timing{secs: 0.09}, ref: timing{secs: 0.04}, maxRSS: rssTarget}
	if got := floorLine(r); !strings.Contains(got, "| 2.25 | ≤ 64 MiB, ≤ 2.0× | **no** |") {
		t.Errorf("2.25 against 2.0: %s", got)
	}
}
