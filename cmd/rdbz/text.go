package main

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

func section(w io.Writer, title string) { fmt.Fprintf(w, "\n%s\n", title) }

// table prints rows under a header, indented, columns aligned: numbers
// (and sizes, shares) on the right, text on the left.
func table(w io.Writer, header []string, rows func(row func(...any))) {
	all := [][]string{header}
	rows(func(cells ...any) {
		s := make([]string, len(cells))
		for i, c := range cells {
			s[i] = fmt.Sprint(c)
		}
		all = append(all, s)
	})
	width := make([]int, len(header))
	right := make([]bool, len(header))
	for c := range header {
		right[c] = true
		for r, row := range all {
			width[c] = max(width[c], utf8.RuneCountInString(row[c]))
			if r > 0 && !numeric(row[c]) {
				right[c] = false
			}
		}
	}
	for _, row := range all {
		var b strings.Builder
		b.WriteString("  ")
		for c, cell := range row {
			pad := strings.Repeat(" ", width[c]-utf8.RuneCountInString(cell))
			if c == len(row)-1 && !right[c] {
				pad = ""
			}
			if right[c] {
				b.WriteString(pad + cell)
			} else {
				b.WriteString(cell + pad)
			}
			if c < len(row)-1 {
				b.WriteString("  ")
			}
		}
		fmt.Fprintln(w, b.String())
	}
}

// numeric reports cells that read as numbers: counts, sizes, shares, "-".
func numeric(s string) bool {
	return s == "-" || s == "" || (s[0] >= '0' && s[0] <= '9')
}

// size prints a byte count with a binary unit.
func size(n int64) string {
	const unit = 1024
	if n < unit && n > -unit {
		return fmt.Sprintf("%d B", n)
	}
	f, u := float64(n), 0
	for ; (f >= unit || f <= -unit) && u < 5; u++ {
		f /= unit
	}
	return fmt.Sprintf("%.1f %ciB", f, "KMGTP"[u-1])
}

func pct(a, b int64) string {
	if b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(a)/float64(b))
}
