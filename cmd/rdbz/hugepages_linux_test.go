package main

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"
)

// adviseHugePages marks a range of the heap: the mapping that holds it has
// the hg flag in /proc/self/smaps.
func TestAdviseHugePages(t *testing.T) {
	start, end, err := adviseHugePages(16 << 20)
	if err != nil {
		t.Skipf("the kernel refuses MADV_HUGEPAGE: %v", err)
	}
	if end-start < hugePage {
		t.Fatalf("16 MiB gave the range %#x-%#x: no huge page in it", start, end)
	}
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skipf("no smaps: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	in := false
	for sc.Scan() {
		line := sc.Text()
		var lo, hi uintptr
		if n, _ := fmt.Sscanf(line, "%x-%x ", &lo, &hi); n == 2 {
			in = lo <= start && start < hi
			continue
		}
		if in && strings.HasPrefix(line, "VmFlags:") {
			if !strings.Contains(line, " hg") {
				t.Fatalf("the mapping of %#x: %q, no hg", start, line)
			}
			return
		}
	}
	t.Fatalf("no mapping holds %#x", start)
}
