package v1

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rdbz/rdbz/rdbio"
)

// TestTranscoderDrop: the transcoder leaves an AUX record out whole, one
// read across the Reader's input window (256 KiB) included, and passes
// every other record on; a key record's first bytes are what the
// chunker had when Next returned it, at most its type and key.
func TestTranscoderDrop(t *testing.T) {
	big := strings.Repeat("d", 300<<10)
	b := []byte("REDIS0011")
	keep := rdbio.AppendAux(nil, []byte("redis-ver"), []byte("7.2.0"))
	b = append(b, keep...)
	b = rdbio.AppendAux(b, []byte("drop-small"), []byte("x"))
	b = rdbio.AppendAux(b, []byte("drop-big"), []byte(big))
	body := append(keep, rdbio.OpSelectDB, 0, rdbio.TypeString, 1, 's', 1, 'v')
	b = append(b, body[len(keep):]...)
	b = append(b, rdbio.OpEOF)
	b = append(b, make([]byte, 8)...) // checksum 0

	r, err := rdbio.NewReader(bytes.NewReader(b), rdbio.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	tr := &transcoder{r: rdbio.NewFilter(r, nil), out: recordSink{w: &out}}
	if err := r.SetSink(&tr.out); err != nil {
		t.Fatal(err)
	}
	for {
		rec, err := tr.next()
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case rec.Kind == rdbio.KindEOF:
			if !bytes.Equal(out.Bytes(), body) {
				t.Fatalf("output %d bytes, want the %d of the file less the dropped AUX records", out.Len(), len(body))
			}
			return
		case rec.Kind == rdbio.KindAux && strings.HasPrefix(string(rec.Name), "drop-"):
			if err := tr.drop(); err != nil {
				t.Fatal(err)
			}
		case rec.Kind == rdbio.KindKey && (tr.sent < 0 || tr.sent > 3):
			t.Errorf("key record: %d bytes sent, want at most the 3 of the type and the key", tr.sent)
		}
		if rec.Kind == rdbio.KindAux {
			if _, err := tr.out.pass(); err != nil {
				t.Fatal(err)
			}
		}
	}
}
