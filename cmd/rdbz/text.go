package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/rivo/uniseg"
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
			width[c] = max(width[c], cellWidth(row[c]))
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
			pad := strings.Repeat(" ", max(width[c]-cellWidth(cell), 0))
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

// fit narrows text columns, the widest first and none below
// minTextColumn, until the table's rows fit in reportWidth: the last
// column's cells wrap onto rows of their own (a word wider than the column
// is broken), other columns' are cut with "...". Widths are terminal
// columns, so wide characters count twice.
func fit(all [][]string, width []int, right []bool) [][]string {
	for {
		total := 2 + 2*(len(width)-1)
		widest := -1
		for c, w := range width {
			total += w
			if !right[c] && w > minTextColumn && (widest < 0 || w > width[widest]) {
				widest = c
			}
		}
		if total <= reportWidth || widest < 0 {
			break
		}
		w := max(width[widest]-(total-reportWidth), minTextColumn)
		width[widest] = w
		if widest == len(width)-1 {
			all = wrapLast(all, w)
			continue
		}
		for r := 1; r < len(all); r++ {
			if cellWidth(all[r][widest]) > w {
				all[r][widest] = cutWidth(all[r][widest], w-3) + "..."
			}
		}
	}
	return all
}

// wrapLast wraps the last cell of each row at spaces to w columns (a word
// wider than w is broken into pieces), continuing, indented, on rows with
// the other cells empty.
func wrapLast(all [][]string, w int) [][]string {
	out := all[:1:1]
	last := len(all[0]) - 1
	for _, row := range all[1:] {
		line := ""
		for _, word := range words(row[last], w-2) {
			if line != "" && cellWidth(line)+1+cellWidth(word) > w {
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

// words splits s at spaces and breaks each word wider than w columns into
// pieces of at most w.
func words(s string, w int) []string {
	var out []string
	for _, word := range strings.Fields(s) {
		for cellWidth(word) > w {
			piece := cutWidth(word, w)
			if piece == "" { // w narrower than one character
				piece, _, _, _ = uniseg.FirstGraphemeClusterInString(word, -1)
			}
			out = append(out, piece)
			word = word[len(piece):]
		}
		out = append(out, word)
	}
	return out
}

// paragraph writes text wrapped at spaces to reportWidth columns, each line
// after indent (continuations two columns further in).
func paragraph(w io.Writer, indent, text string) {
	line := indent
	for _, word := range words(text, reportWidth-len(indent)-2) {
		if line != indent && cellWidth(line)+1+cellWidth(word) > reportWidth {
			fmt.Fprintln(w, line)
			line = indent + "  "
		} else if line != indent {
			line += " "
		}
		line += word
	}
	fmt.Fprintln(w, line)
}

// cellWidth is the number of terminal columns s takes.
func cellWidth(s string) int { return uniseg.StringWidth(s) }

// cutWidth is the longest prefix of s, whole characters, that takes at
// most w columns.
func cutWidth(s string, w int) string {
	n, used := 0, 0
	g := uniseg.NewGraphemes(s)
	for g.Next() {
		cw := g.Width()
		if used+cw > w {
			break
		}
		used += cw
		_, n = g.Positions()
	}
	return s[:n]
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
