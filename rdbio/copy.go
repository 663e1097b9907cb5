package rdbio

import (
	"errors"
	"fmt"
	"io"
)

// unchangedTrailer is the trailer of an unchanged copy: the source's own
// checksum, which the reader has checked (or was told to ignore) — the
// bytes are the same, so the writer need not checksum them again.
func unchangedTrailer(r *Reader) Trailer {
	return TrailerValue(r.crcGot) // 0 when disabled or absent
}

// Copy reads an RDB stream from src and writes it unchanged to dst: every
// record passes through the Reader's sink, the trailer carries the source's
// stored checksum (checked on the way, unless Options.IgnoreChecksum) and
// bytes after it are copied. The output equals the input byte for byte,
// less what Options.Keep leaves out (CopyFiltered).
func Copy(dst io.Writer, src io.Reader, opt Options) (int64, error) {
	n, _, err := CopyFiltered(dst, src, opt)
	return n, err
}

// CopyFiltered is Copy that also tells what Options.Keep kept and left
// out. When something was left out, the trailer is the CRC-64 of what was
// written (0 where the source's was 0: checksums disabled); what the
// server that loads the output sees is the source less those keys.
func CopyFiltered(dst io.Writer, src io.Reader, opt Options) (int64, Filtered, error) {
	r, err := NewReader(src, opt)
	if err != nil {
		return 0, Filtered{}, err
	}
	w, err := NewWriter(dst, r.Header())
	if err != nil {
		return 0, Filtered{}, err
	}
	if opt.Keep == nil {
		w.crc = nil // unchanged bytes: the trailer is the source's (unchangedTrailer)
	}
	if err := passRecords(r, w); err != nil {
		return w.Written(), r.Filtered(), err
	}
	switch {
	case r.left.Bytes == 0:
		w.SetTrailer(unchangedTrailer(r))
	case r.crcGot == 0:
		w.SetTrailer(TrailerZero)
	}
	if err := w.Close(); err != nil {
		return w.Written(), r.Filtered(), fmt.Errorf("write trailer: %w", err)
	}
	if _, err := r.CopyRest(w.Rest()); err != nil {
		return w.Written(), r.Filtered(), fmt.Errorf("copy bytes after the trailer: %w", err)
	}
	return w.Written(), r.Filtered(), w.Flush()
}

// passRecords sends every record of r to w, up to the trailer. Where the
// grammar stops (ErrUnsupported) the rest of the file is copied as it is:
// nothing after it is walked, so nothing after it changes.
func passRecords(r *Reader, w io.Writer) error {
	if err := r.SetSink(w); err != nil {
		return err
	}
	_, err := Drain(r)
	if errors.Is(err, ErrUnsupported) {
		_, err = r.PassBody()
	}
	return err
}

// Drain calls Next until the end and returns the EOF record.
func Drain(r *Reader) (*Record, error) {
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return nil, errors.New("rdb: Drain after the end")
		}
		if err != nil {
			return nil, err
		}
		if rec.Kind == KindEOF {
			eof := *rec
			return &eof, nil
		}
	}
}
