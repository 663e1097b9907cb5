package rdbio

import "fmt"

// walkDflyValue walks Dragonfly's own value types (docs/rdb-format.md §6). Only
// the hashes and sets with expiry tell their element count.
func (r *Reader) walkDflyValue(t Type) (ValueInfo, error) {
	switch t {
	case TypeDflyJSON:
		return ValueInfo{}, r.skipString()
	case TypeDflyHashExpiry: // field, value, expiry
		return r.walkStrings(3, 0)
	case TypeDflySetExpiry: // member, expiry
		return r.walkStrings(2, 0)
	case TypeDflySBF, TypeDflySBF2:
		return ValueInfo{}, r.skipSBF(t == TypeDflySBF2)
	case TypeDflyCMS:
		return ValueInfo{}, r.skipCMS()
	case TypeDflyTopK:
		return ValueInfo{}, r.skipTopK()
	case TypeDflyCuckoo:
		return ValueInfo{}, r.skipCuckoo()
	}
	return ValueInfo{}, fmt.Errorf("%w: Dragonfly type %d", ErrUnsupported, t)
}

func (r *Reader) skipSBF(chunked bool) error {
	if err := r.skipLens(1); err != nil { // options
		return err
	}
	if err := r.in.skip(16); err != nil { // grow, fp_prob
		return err
	}
	if err := r.skipLens(3); err != nil { // prev size, cur size, max capacity
		return err
	}
	return r.each(func() error {
		if err := r.skipLens(1); err != nil { // hash count
			return err
		}
		if chunked {
			return r.skipChunks()
		}
		return r.skipString()
	})
}

// skipChunks walks `len total`, then (`len chunk`, raw chunk) until total.
func (r *Reader) skipChunks() error {
	total, err := r.readLen()
	if err != nil {
		return err
	}
	for total > 0 {
		n, err := r.readLen()
		if err != nil {
			return err
		}
		if n == 0 || n > total {
			return fmt.Errorf("%w: chunk of %d bytes with %d left", ErrCorrupt, n, total)
		}
		if err := r.in.skip(n); err != nil {
			return err
		}
		total -= n
	}
	return nil
}

func (r *Reader) skipCMS() error {
	var dims [3]uint64
	for i := range dims {
		n, err := r.readLen()
		if err != nil {
			return err
		}
		dims[i] = n
	}
	cells := dims[0] * dims[1]
	if dims[1] != 0 && cells/dims[1] != dims[0] || cells > 1<<60 {
		return fmt.Errorf("%w: count-min sketch %d×%d", ErrCorrupt, dims[0], dims[1])
	}
	return r.in.skip(cells * 8)
}

func (r *Reader) skipTopK() error {
	if err := r.skipLens(4); err != nil { // 0, k, width, depth
		return err
	}
	if err := r.in.skip(8); err != nil { // decay
		return err
	}
	if err := r.each(r.skipStringLen); err != nil { // heavy hitters
		return err
	}
	n, err := r.readLen()
	if err != nil {
		return err
	}
	return r.in.skip(n)
}

func (r *Reader) skipCuckoo() error {
	if err := r.skipLens(6); err != nil {
		return err
	}
	return r.each(r.skipChunks)
}
