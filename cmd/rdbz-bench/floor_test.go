package main

import "testing"

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
