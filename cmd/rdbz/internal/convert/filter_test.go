package convert

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strconv"
	"testing"

	"github.com/rdbz/rdbz/cmd/rdbz/internal/filter"
	"github.com/rdbz/rdbz/rdbio"
	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

// TestConvertFiltered: converting a file through a filter writes what
// converting its filtered copy writes, byte for byte, and the report
// counts the keys left out (the gate skips what the reader left out,
// between records and after prefix records, also where it cuts, as for
// Dragonfly's expiries).
func TestConvertFiltered(t *testing.T) {
	f, err := filter.New(filter.Options{Exclude: []string{"*[aeiou0-4]"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, cf := range rdbiotest.Sweep(t) {
		if n, _ := strconv.ParseInt(cf.Fields["bytes"], 10, 64); n > 1<<20 || cf.CorruptByDesign() {
			continue
		}
		src, err := os.ReadFile(cf.Path)
		if err != nil {
			t.Fatal(err)
		}
		var copied bytes.Buffer
		_, left, err := rdbio.CopyFiltered(&copied, bytes.NewReader(src), rdbio.Options{IgnoreChecksum: true}, f.Keep)
		if err != nil {
			continue // files a filtered copy refuses
		}
		for _, target := range []string{"redis-7.0", "dragonfly"} {
			opt := Options{Target: target, Drop: dropAll(), Options: rdbio.Options{IgnoreChecksum: true}}
			var want bytes.Buffer
			_, werr := Convert(context.Background(), &want, bytes.NewReader(copied.Bytes()), opt)
			opt.Keep = f.Keep
			var got bytes.Buffer
			rep, err := Convert(context.Background(), &got, bytes.NewReader(src), opt)
			if (err == nil) != (werr == nil) || err != nil && errors.Is(err, ErrRefused) != errors.Is(werr, ErrRefused) {
				t.Errorf("%s to %s: filtered %v, of the filtered copy %v", cf.Name, target, err, werr)
				continue
			}
			if err != nil {
				continue
			}
			if !bytes.Equal(got.Bytes(), want.Bytes()) {
				t.Errorf("%s to %s: %d bytes, the filtered copy converts to %d", cf.Name, target, got.Len(), want.Len())
			}
			if rep.LeftOut != left.LeftOut {
				t.Errorf("%s to %s: the report leaves out %d keys, the copy %d", cf.Name, target, rep.LeftOut, left.LeftOut)
			}
		}
	}
}
