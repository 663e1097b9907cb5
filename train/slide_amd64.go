package train

// slideAsm is slideGo that also asks the CPU to fetch the table entry of
// the d-mer 16 positions ahead (PREFETCHT0), which Go cannot say: the
// entries of a table of 2^18 miss the caches, and the picker spent a third
// of its time waiting on that one load. It returns at = -2 if a hash is
// neither invalidHash nor below len(table).
//
//go:noescape
func slideAsm(table, enter, leave []uint32, score, best uint64) (top uint64, at int)

func slide(table, enter, leave []uint32, score, best uint64) (uint64, int) {
	if len(leave) < len(enter) {
		panic("train: slide: fewer leaving than entering d-mers")
	}
	top, at := slideAsm(table, enter, leave, score, best)
	if at == -2 {
		panic("train: slide: a hash outside the table")
	}
	return top, at
}
