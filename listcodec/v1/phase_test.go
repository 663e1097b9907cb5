package v1

import (
	"bytes"
	"io"
	"os"
	"reflect"
	"testing"

	"github.com/rdbz/rdbz/listcodec/node"
)

// TestCompressPhases: CompressOptions.Phase hears the phases in order: a
// file is sampled, trained on and compressed; a stream trains in the
// middle of compressing; with a dictionary only compressing.
func TestCompressPhases(t *testing.T) {
	data, err := os.ReadFile("../../testdata/small.rdb")
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open("../../testdata/small.rdb")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dict, err := node.ReadDictFile("../../testdata/test.dict")
	if err != nil {
		t.Fatal(err)
	}
	phases := func(src io.Reader, dict *node.Dict) []string {
		var got []string
		opt := DefaultCompressOptions()
		opt.Dict = dict
		opt.Phase = func(name string) { got = append(got, name) }
		if _, err := Compress(io.Discard, src, opt); err != nil {
			t.Fatal(err)
		}
		return got
	}
	for _, c := range []struct {
		name string
		got  []string
		want []string
	}{
		{"file", phases(f, nil), []string{"sampling", "training", "compressing"}},
		{"stream", phases(bytes.NewReader(data), nil), []string{"compressing", "training", "compressing"}},
		{"dictionary", phases(bytes.NewReader(data), dict), []string{"compressing"}},
	} {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s: phases %q, want %q", c.name, c.got, c.want)
		}
	}
}
