package analyze

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/rdbz/rdbz/rdbio"
	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

// TestEnvelopeCorpus: every corpus file in a VKCS envelope made by the lz4
// tool (rdbiotest.LZ4Envelope) gives what the plain file gives — the
// summary `rdbz info --json` prints and the analysis `rdbz analyze --json`
// prints, field for field but the envelope's own, and the same error —
// and the envelope is reported.
func TestEnvelopeCorpus(t *testing.T) {
	for _, cf := range corpusFiles(t) {
		t.Run(cf.Name, func(t *testing.T) {
			data, err := os.ReadFile(cf.Path)
			if err != nil {
				t.Fatal(err)
			}
			flags, args := byte(1), []string(nil)
			if len(data)%2 == 1 { // half of them without the checksums
				flags, args = 0, []string{"--no-frame-crc"}
			}
			wrapped := rdbiotest.LZ4Envelope(t, data, flags, args...)
			plain, perr := analyzeBytes(t, data)
			env, eerr := analyzeBytes(t, wrapped)
			if (perr == nil) != (eerr == nil) {
				t.Fatalf("plain: %v; enveloped: %v", perr, eerr)
			}
			if env.Envelope == nil || env.Envelope.Codec != "lz4" || env.Envelope.Flags != int(flags) {
				t.Fatalf("envelope reported as %+v", env.Envelope)
			}
			env.Envelope = nil
			if a, b := jsonOf(t, plain), inner(jsonOf(t, env)); !bytes.Equal(a, b) {
				t.Fatalf("analysis differs:\nplain     %.400s\nenveloped %.400s", a, b)
			}
			s := openSummary(t, wrapped)
			s.Envelope = nil
			if a, b := jsonOf(t, plain.Summary), inner(jsonOf(t, s)); !bytes.Equal(a, b) {
				t.Fatalf("summary differs:\nanalyze   %.400s\nsummarize %.400s", a, b)
			}
		})
	}
}

// analyzeBytes is Analyze of a file held in memory.
func analyzeBytes(t *testing.T, file []byte) (*Analysis, error) {
	t.Helper()
	r, err := rdbio.NewReader(bytes.NewReader(file), rdbio.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return Analyze(r, Options{Top: 5, Now: time.Unix(1_800_000_000, 0)})
}

// openSummary is Summarize of a file held in memory.
func openSummary(t *testing.T, file []byte) *Summary {
	t.Helper()
	r, err := rdbio.NewReader(bytes.NewReader(file), rdbio.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := Summarize(r, nil)
	return s
}

// inner is an enveloped file's report as the plain file's says it: its
// errors name the offset as "inner RDB offset".
func inner(report []byte) []byte {
	return bytes.ReplaceAll(report, []byte("rdb: inner RDB offset "), []byte("rdb: offset "))
}

func jsonOf(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
