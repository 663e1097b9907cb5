package main

import (
	"fmt"
	"io"
	"slices"
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
	all = fit(all, width, right)
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

// reportWidth is the terminal width the text reports fit in.
const reportWidth = 80

// minTextColumn is the narrowest fit makes a text column.
const minTextColumn = 16

// fit narrows the widest text column so that the table's rows fit in
// reportWidth: the last column's cells wrap onto rows of their own, other
// columns' are cut with "...".
func fit(all [][]string, width []int, right []bool) [][]string {
	total := 2 + 2*(len(width)-1)
	widest := -1
	for c, w := range width {
		total += w
		if !right[c] && (widest < 0 || w > width[widest]) {
			widest = c
		}
	}
	if total <= reportWidth || widest < 0 {
		return all
	}
	w := max(width[widest]-(total-reportWidth), minTextColumn)
	if w >= width[widest] {
		return all
	}
	width[widest] = w
	if widest == len(width)-1 {
		return wrapLast(all, w)
	}
	for r := 1; r < len(all); r++ {
		if cell := []rune(all[r][widest]); len(cell) > w {
			all[r][widest] = string(cell[:w-3]) + "..."
		}
	}
	return all
}

// wrapLast wraps the last cell of each row at spaces to w runes (a word
// longer than w stays whole), continuing, indented, on rows with the other
// cells empty.
func wrapLast(all [][]string, w int) [][]string {
	out := all[:1:1]
	last := len(all[0]) - 1
	for _, row := range all[1:] {
		words := strings.Fields(row[last])
		line := ""
		for _, word := range words {
			if line != "" && utf8.RuneCountInString(line)+1+utf8.RuneCountInString(word) > w {
				out = append(out, withLast(row, line))
				row = make([]string, len(row))
				line = "  " + word // a continuation, indented
				continue
			}
			if line != "" {
				line += " "
			}
			line += word
		}
		out = append(out, withLast(row, line))
	}
	return out
}

// withLast is row with its last cell replaced.
func withLast(row []string, last string) []string {
	r := slices.Clone(row)
	r[len(r)-1] = last
	return r
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
