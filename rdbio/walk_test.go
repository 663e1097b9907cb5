package rdbio

import (
	"errors"
	"io"
)

// walkAll reads every record of r as an analysis does: list values node by
// node with their element counts, other values with CountValue. A record
// rdbio cannot walk ends the walk with PassBody, which checks the trailer.
func walkAll(r *Reader) error {
	err := walkRecords(r)
	if errors.Is(err, ErrUnsupported) {
		_, err = r.PassBody()
	}
	return err
}

func walkRecords(r *Reader) error {
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if rec.Kind != KindKey {
			continue
		}
		if IsList(rec.Type) {
			_, err = r.EachNode(func(*Node) (bool, error) {
				_, _, err := r.NodeElements()
				return true, err
			})
		} else {
			_, err = r.CountValue(nil)
		}
		if err != nil {
			return err
		}
	}
}
