package export

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"os"
	"testing"

	"github.com/rdbz/rdbz/rdbio"
)

// jsonKey is a key object of the JSON export.
type jsonKey struct {
	DB       *uint64         `json:"db"`
	Key      json.RawMessage `json:"key"`
	Type     string          `json:"type"`
	Encoding string          `json:"encoding"`
	Expire   *int64          `json:"expire"`
	Value    json.RawMessage `json:"value"`
}

// counted is what rdbio counts of a file's keys, by position: each key's
// element count (-1 unknown), as analyze reports them.
func counted(t *testing.T, path string) []int64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []int64
	err = rdbio.ForEachKey(f, rdbio.Options{}, func(r *rdbio.Reader, _ *rdbio.Record) error {
		info, err := r.Value().Count(nil)
		n := info.Elements
		if !info.Known {
			n = -1
		}
		out = append(out, n)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// elements counts the elements of a key object's value as analyze does:
// a string's bytes, a collection's members or pairs, a stream's length.
func elements(t *testing.T, k *jsonKey) int64 {
	t.Helper()
	switch k.Type {
	case "string":
		return int64(len(jsonBytes(t, k.Value)))
	case "stream":
		var s struct{ Length int64 }
		if err := json.Unmarshal(k.Value, &s); err != nil {
			t.Fatal(err)
		}
		return s.Length
	}
	var items []json.RawMessage
	if err := json.Unmarshal(k.Value, &items); err != nil {
		return -1 // null: a value not exported
	}
	return int64(len(items))
}

// jsonBytes decodes a string as the JSON export writes it (Auto).
func jsonBytes(t *testing.T, m json.RawMessage) []byte {
	t.Helper()
	var s string
	if json.Unmarshal(m, &s) == nil {
		return []byte(s)
	}
	var o struct{ Base64 string }
	if err := json.Unmarshal(m, &o); err != nil {
		t.Fatalf("string %s: %v", m, err)
	}
	b, err := base64.StdEncoding.DecodeString(o.Base64)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestExportJSON parses the JSON and JSONL exports of every corpus file
// rdbio reads with encoding/json: one object per key, each with the
// element count that analyze gives.
func TestExportJSON(t *testing.T) {
	for _, f := range exportable(t) {
		t.Run(f.Name, func(t *testing.T) {
			want := counted(t, f.Path)
			for _, format := range []Format{JSON, JSONL} {
				var out bytes.Buffer
				if err := exportTo(t, f.Path, Options{Format: format})(&out); err != nil {
					t.Fatal(err)
				}
				keys := parseJSON(t, out.Bytes(), format)
				if len(keys) != len(want) {
					t.Fatalf("%s: %d key objects, the file has %d keys", FormatNames[format], len(keys), len(want))
				}
				for i, k := range keys {
					if got := elements(t, &k); want[i] >= 0 && got != want[i] {
						t.Fatalf("%s: key %d %s (%s): %d elements, analyze counts %d", FormatNames[format], i, k.Key, k.Encoding, got, want[i])
					}
				}
			}
		})
	}
}

// parseJSON reads the key objects of an export (function objects left out).
func parseJSON(t *testing.T, b []byte, format Format) []jsonKey {
	t.Helper()
	var all []jsonKey
	if format == JSON {
		if err := json.Unmarshal(b, &all); err != nil {
			t.Fatalf("JSON export does not parse: %v", err)
		}
	} else {
		dec := json.NewDecoder(bytes.NewReader(b))
		for {
			var k jsonKey
			err := dec.Decode(&k)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("JSONL export does not parse: %v", err)
			}
			all = append(all, k)
		}
		if n := bytes.Count(b, []byte("\n")); n != len(all) {
			t.Fatalf("JSONL export of %d objects in %d lines", len(all), n)
		}
	}
	keys := all[:0]
	for _, k := range all {
		if k.Type != "function" {
			keys = append(keys, k)
		}
	}
	return keys
}
