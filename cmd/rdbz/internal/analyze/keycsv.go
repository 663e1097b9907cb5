package analyze

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"

	"github.com/rdbz/rdbz/cmd/rdbz/internal/escape"
)

// KeyFilter selects the rows a per-key export lists of the keys Analyze
// reads (which keys those are is Options.Keep's: by name, db, type and
// expiry); the zero value selects every one.
type KeyFilter struct {
	MinBytes int64 // serialized bytes at least
}

// Selects reports whether the filter keeps row k.
func (f *KeyFilter) Selects(k *KeyRow) bool {
	return k.Bytes >= f.MinBytes
}

// KeyCSVHeader is the first row of the per-key export.
var KeyCSVHeader = []string{"db", "key", "type", "encoding", "bytes", "memory", "elements", "expiry"}

// KeyCSV writes one CSV row per selected key as Analyze reads them (given
// as Options.Keys), so that the export streams whatever the file holds.
// The key is written as Escape renders it (its bytes unchanged by
// default); elements is empty when unknown, expiry (absolute Unix ms) when
// there is none.
type KeyCSV struct {
	// Escape is how keys are written (rdbio/escape: raw, utf8, base64).
	Escape escape.Mode
	w      *csv.Writer
	filter KeyFilter
	key    []byte
	rec    [9]string
	cols   []string // rec, or rec less the file column
	// File, when the export has a file column, names the input whose keys
	// come next.
	File string
	Rows int64 // rows written
}

// NewKeyCSV writes the header to w and returns the exporter; withFile
// adds a first column, "file", for exports of several inputs.
func NewKeyCSV(w io.Writer, f KeyFilter, withFile bool) (*KeyCSV, error) {
	c := &KeyCSV{w: csv.NewWriter(w), filter: f}
	c.cols = c.rec[1:]
	header := KeyCSVHeader
	if withFile {
		c.cols = c.rec[:]
		header = append([]string{"file"}, header...)
	}
	if err := c.w.Write(header); err != nil {
		return nil, fmt.Errorf("writing the key CSV: %w", err)
	}
	return c, nil
}

// row writes k when the filter selects it.
func (c *KeyCSV) row(k *KeyRow) error {
	if !c.filter.Selects(k) {
		return nil
	}
	c.rec[0] = c.File
	r := c.rec[1:]
	r[0] = strconv.FormatUint(k.DB, 10)
	c.key = escape.Append(c.key[:0], k.Key, c.Escape)
	r[1] = string(c.key)
	r[2], r[3] = k.Type, k.Encoding
	r[4] = strconv.FormatInt(k.Bytes, 10)
	r[5] = strconv.FormatInt(k.Memory, 10)
	r[6], r[7] = "", ""
	if k.ElementsKnown {
		r[6] = strconv.FormatInt(k.Elements, 10)
	}
	if k.Expire != -1 {
		r[7] = strconv.FormatInt(k.Expire, 10)
	}
	c.Rows++
	if err := c.w.Write(c.cols); err != nil {
		return fmt.Errorf("writing the key CSV: %w", err)
	}
	return nil
}

// Flush writes what is buffered and reports the first write error.
func (c *KeyCSV) Flush() error {
	c.w.Flush()
	if err := c.w.Error(); err != nil {
		return fmt.Errorf("writing the key CSV: %w", err)
	}
	return nil
}
