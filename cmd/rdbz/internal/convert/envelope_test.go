package convert

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/rdbz/rdbz/rdbio/envelope"
	"github.com/rdbz/rdbz/rdbio/rdbiotest"
)

// convertBytes converts a file held in memory.
func convertBytes(t *testing.T, in []byte, opt Options) ([]byte, *Report, error) {
	t.Helper()
	var out bytes.Buffer
	rep, err := Convert(context.Background(), &out, bytes.NewReader(in), opt)
	return out.Bytes(), rep, err
}

// TestConvertEnvelopeCorpus: every small corpus file in a VKCS envelope
// made by the lz4 tool converts for redis-7.0 (every kind allowed to be
// dropped) into the bytes the plain file converts into, which redis 7.0
// loads with the plain file's digest where it loads the plain file; with
// Envelope set, for valkey-9, into those bytes in an envelope.
func TestConvertEnvelopeCorpus(t *testing.T) {
	for _, cf := range small(t) {
		t.Run(cf.Name, func(t *testing.T) {
			plain := readFile(t, cf.Path)
			wrapped := rdbiotest.LZ4Envelope(t, plain, envelope.FlagChecksum)
			opt := Options{Target: "redis-7.0", Drop: dropAll()}
			want, _, werr := convertBytes(t, plain, opt)
			got, rep, gerr := convertBytes(t, wrapped, opt)
			if (werr == nil) != (gerr == nil) || errors.Is(werr, ErrRefused) != errors.Is(gerr, ErrRefused) {
				t.Fatalf("plain: %v; enveloped: %v", werr, gerr)
			}
			if werr != nil {
				t.Logf("refused as the plain file is: %v", gerr)
				return
			}
			if !bytes.Equal(got, want) || rep.FromEnvelope != "lz4" || rep.ToEnvelope != "" {
				t.Fatalf("enveloped input: %d bytes (report %+v), plain input %d bytes", len(got), rep, len(want))
			}
			if cf.RedisLoads() {
				p := filepath.Join(t.TempDir(), "out.rdb")
				if err := os.WriteFile(p, got, 0o644); err != nil {
					t.Fatal(err)
				}
				d1, err1 := rdbiotest.Digest(t, cf.Path)
				d2, err2 := rdbiotest.Digest(t, p)
				if err1 != nil || err2 != nil || d1 != d2 {
					t.Fatalf("digest of the plain file %q (%v), of the conversion %q (%v)", d1, err1, d2, err2)
				}
			}
			checkEnvelopedOutput(t, plain, wrapped)
		})
	}
}

// checkEnvelopedOutput: converting wrapped for valkey-9 with Envelope set
// gives, inside an envelope.LZ4() envelope, the bytes the plain file
// converts into.
func checkEnvelopedOutput(t *testing.T, plain, wrapped []byte) {
	t.Helper()
	opt := Options{Target: "valkey-9", Drop: dropAll()}
	want, _, err := convertBytes(t, plain, opt)
	if err != nil {
		return // refused alike: not this test's subject
	}
	opt.Envelope = envelope.LZ4()
	out, rep, err := convertBytes(t, wrapped, opt)
	if err != nil || rep.ToEnvelope != "lz4" {
		t.Fatalf("convert with an envelope: %v (report %+v)", err, rep)
	}
	r, info, err := envelope.Open(bytes.NewReader(out))
	if err != nil || info != envelope.LZ4() {
		t.Fatalf("output envelope %+v: %v", info, err)
	}
	var inner bytes.Buffer
	if _, err := inner.ReadFrom(r); err != nil || !bytes.Equal(inner.Bytes(), want) {
		t.Fatalf("inside the envelope: %d bytes (%v), want the plain conversion's %d", inner.Len(), err, len(want))
	}
}

// TestConvertEnvelopeRefused: an envelope for a target that does not load
// one is refused before anything is written.
func TestConvertEnvelopeRefused(t *testing.T) {
	for _, target := range []string{"redis-7.2", "valkey-8", "dragonfly"} {
		out, _, err := convertBytes(t, readFile(t, "../../../../testdata/small.rdb"), Options{Target: target, Envelope: envelope.LZ4()})
		if !errors.Is(err, ErrEnvelope) || len(out) != 0 {
			t.Fatalf("%s: %v, %d bytes written", target, err, len(out))
		}
	}
}
