package rdbio

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/rdbz/rdbz/rdbio/lzf"
	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

// plainNodeFile is a REDIS0011 file with one quicklist 2 list "l" of the
// given PLAIN nodes (stored raw, or LZF-compressed with ulen claimed as
// given: 0 for the true length), then a string key "after".
func plainNodeFile(t *testing.T, nodes []testNode) []byte {
	t.Helper()
	var b bytes.Buffer
	w, err := NewWriter(&b, Header{Magic: "REDIS0011", Version: 11})
	if err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	_, err = w.Write([]byte{OpSelectDB, 0, TypeListQuicklist2})
	must(err)
	must(w.WriteString([]byte("l")))
	must(w.WriteLen(uint64(len(nodes))))
	for _, n := range nodes {
		if !n.lzf {
			must(w.WriteNode(1, EncRaw, 0, 0, n.elem))
			continue
		}
		var e lzf.Encoder
		comp, ok := e.Encode(nil, n.elem, len(n.elem)+len(n.elem)/32+8)
		if !ok {
			t.Fatal("LZF encoding failed")
		}
		ulen := uint64(len(n.elem))
		if n.ulen != 0 {
			ulen = n.ulen
		}
		must(w.WriteNode(1, EncLZF, 0, ulen, comp))
	}
	_, err = w.Write([]byte{TypeString})
	must(err)
	must(w.WriteString([]byte("after")))
	must(w.WriteString([]byte("value")))
	must(w.Close())
	return b.Bytes()
}

type testNode struct {
	elem []byte
	lzf  bool
	ulen uint64 // the decoded length the node claims; 0: len(elem)
}

// readPlainNodes reads file's list with CopyNodeDecoded for the nodes over
// the cap and returns the elements, what reached the sink, and the first
// error.
func readPlainNodes(file []byte, capBytes int) ([][]byte, []byte, error) {
	r, err := NewReader(bytes.NewReader(file), Options{Cap: capBytes})
	if err != nil {
		return nil, nil, err
	}
	var sink bytes.Buffer
	if err := r.SetSink(&sink); err != nil {
		return nil, nil, err
	}
	var elems [][]byte
	for {
		rec, err := r.Next()
		if err != nil {
			return elems, sink.Bytes(), err
		}
		if rec.Kind == KindEOF {
			return elems, sink.Bytes(), nil
		}
		if rec.Kind != KindKey || rec.Type != TypeListQuicklist2 {
			continue
		}
		nodes, err := r.Value().Nodes()
		if err != nil {
			return elems, sink.Bytes(), err
		}
		for nodes.Next() {
			n := nodes.Node()
			if n.Data != nil {
				return elems, sink.Bytes(), errors.New("node captured, want it over the cap")
			}
			var b bytes.Buffer
			got, err := nodes.CopyDecoded(&b)
			if err != nil {
				return elems, sink.Bytes(), err
			}
			if got != int64(b.Len()) || uint64(got) != n.ULen {
				return elems, sink.Bytes(), errors.New("CopyDecoded's count is not the bytes written and ULen")
			}
			elems = append(elems, b.Bytes())
		}
		if err := nodes.Err(); err != nil {
			return elems, sink.Bytes(), err
		}
	}
}

// TestCopyNodeDecoded: PLAIN nodes over the cap, raw and LZF, stream
// decoded to the writer, not to the sink, and the records after them read
// on; an LZF node claiming a decoded length one more or one less than its
// stream's, and an input cut inside a payload, fail with an *Error naming
// an offset, wrapping ErrCorrupt.
func TestCopyNodeDecoded(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	raw, js, patchy := rdbiotest.RandomBytes(rng, 50000), rdbiotest.JSONish(rng, 80000), rdbiotest.Patchy(rng, 70000)
	nodes := []testNode{{elem: raw}, {elem: js, lzf: true}, {elem: patchy, lzf: true}}
	file := plainNodeFile(t, nodes)
	elems, sink, err := readPlainNodes(file, 1024)
	if err != nil {
		t.Fatal(err)
	}
	if len(elems) != len(nodes) {
		t.Fatalf("%d nodes read, want %d", len(elems), len(nodes))
	}
	for i, n := range nodes {
		if !bytes.Equal(elems[i], n.elem) {
			t.Errorf("node %d: decoded %d bytes that differ from the element's %d", i, len(elems[i]), len(n.elem))
		}
	}
	if len(sink) > 200 || !bytes.Contains(sink, []byte("after")) {
		t.Errorf("the sink got %d bytes (want the records and node heads only, the key after the list included)", len(sink))
	}

	for _, claim := range []uint64{uint64(len(js)) + 1, uint64(len(js)) - 1} {
		bad := plainNodeFile(t, []testNode{{elem: raw}, {elem: js, lzf: true, ulen: claim}})
		_, _, err := readPlainNodes(bad, 1024)
		checkOffsetError(t, err, "LZF node claiming %d bytes", claim)
	}
	for _, cut := range []int{len(file) - len(patchy)/2, 40 + len(raw)/2} {
		_, _, err := readPlainNodes(file[:cut], 1024)
		checkOffsetError(t, err, "input cut at %d", cut)
	}

}

// checkOffsetError fails unless err is an *Error with an offset, wrapping
// ErrCorrupt.
func checkOffsetError(t *testing.T, err error, format string, args ...any) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) || e.Offset <= 0 || !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "offset ") {
		t.Errorf(format+": err %v, want an *Error naming an offset, wrapping ErrCorrupt", append(args, err)...)
	}
}

// failingWriter fails every write.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// TestCopyNodeDecodedWriterFails: a failure of the caller's writer is
// reported as writing output, not as a corrupt input.
func TestCopyNodeDecodedWriterFails(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, lzf := range []bool{false, true} {
		file := plainNodeFile(t, []testNode{{elem: rdbiotest.JSONish(rng, 40000), lzf: lzf}})
		r, err := NewReader(bytes.NewReader(file), Options{Cap: 1024})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.Next(); err != nil { // SELECTDB
			t.Fatal(err)
		}
		if _, err := r.Next(); err != nil {
			t.Fatal(err)
		}
		nodes, err := r.Value().Nodes()
		if err != nil {
			t.Fatal(err)
		}
		if !nodes.Next() {
			t.Fatal(nodes.Err())
		}
		_, err = nodes.CopyDecoded(failingWriter{})
		if err == nil || errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "disk full") {
			t.Errorf("lzf %v: err %v, want the writer's failure", lzf, err)
		}
	}
}
