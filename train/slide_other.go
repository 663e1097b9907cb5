//go:build !amd64

package train

func slide(table, enter, leave []uint32, score, best uint64) (uint64, int) {
	return slideGo(table, enter, leave, score, best)
}
